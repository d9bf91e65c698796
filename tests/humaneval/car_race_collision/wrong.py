"""Subtly wrong: counts each pair of cars once from one side only."""
# expect-fail: car_race_collision.ensures
def car_race_collision(n):
    return n * (n - 1) // 2 + n
