"""Correct implementation of triangle_sides/spec.req."""
def is_triangle(a, b, c):
    x, y, z = sorted((a, b, c))
    return x + y > z
