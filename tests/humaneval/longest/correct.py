"""Correct implementation of longest/spec.req."""
def longest(strings):
    if not strings:
        return None
    best = strings[0]
    for s in strings[1:]:
        if len(s) > len(best):
            best = s
    return best
