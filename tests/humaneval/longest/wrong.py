"""Subtly wrong: on a tie it keeps the last of the longest strings, not the first."""
# expect-fail: longest.ensures
def longest(strings):
    if not strings:
        return None
    best = strings[0]
    for s in strings[1:]:
        if len(s) >= len(best):
            best = s
    return best
