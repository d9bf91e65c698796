"""Subtly wrong: the right numbers, but in a list, which is not a tuple[int, int]."""
# expect-fail: divmod_pair.ensures, divmod_pair.example
def divmod_pair(a, b):
    return [a // b, a % b]
