"""Correct implementation of dedupe_keeps_order/spec.req."""
def unique(xs):
    out = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out
