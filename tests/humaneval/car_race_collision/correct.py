"""Correct implementation of car_race_collision/spec.req."""
def car_race_collision(n):
    return n * n
