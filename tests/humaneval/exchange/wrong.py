"""Subtly wrong: demands strictly more even numbers than needed."""
# expect-fail: exchange.ensures
def exchange(a, b):
    odd_in_a = sum(1 for x in a if x % 2)
    even_in_b = sum(1 for y in b if y % 2 == 0)
    return odd_in_a < even_in_b
