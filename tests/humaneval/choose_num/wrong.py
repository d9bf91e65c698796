"""Subtly wrong: misses the case where the range holds one even number at its low end."""
# expect-fail: choose_num.ensures
def choose_num(low, high):
    if low >= high:
        return -1
    if high % 2 == 0:
        return high
    return high - 1 if high - 1 >= low else -1
