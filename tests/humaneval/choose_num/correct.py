"""Correct implementation of choose_num/spec.req."""
def choose_num(low, high):
    for k in range(high, low - 1, -1):
        if k % 2 == 0:
            return k
    return -1
