"""Subtly wrong: removes only adjacent repeats before sorting."""
# expect-fail: unique.ensures
def unique(xs):
    out = []
    for x in xs:
        if not out or out[-1] != x:
            out.append(x)
    return sorted(out)
