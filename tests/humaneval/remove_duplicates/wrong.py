"""Subtly wrong: keeps the first copy of a repeated number instead of dropping it."""
# expect-fail: remove_duplicates.ensures
def remove_duplicates(numbers):
    out = []
    for x in numbers:
        if x not in out:
            out.append(x)
    return out
