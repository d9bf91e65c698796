"""Subtly wrong: accepts degenerate triangles whose two short sides add up to the long one."""
# expect-fail: is_triangle.ensures
def is_triangle(a, b, c):
    x, y, z = sorted((a, b, c))
    return x + y >= z
