"""Subtly wrong: only drops adjacent duplicates."""
# expect-fail: unique.ensures
def unique(xs):
    out = []
    for i, x in enumerate(xs):
        if i == 0 or x != xs[i - 1]:
            out.append(x)
    return out
