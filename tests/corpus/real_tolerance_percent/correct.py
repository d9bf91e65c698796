"""Correct implementation of real_tolerance_percent/spec.req."""
def with_vat(net, rate):
    return net * (1 + rate)
