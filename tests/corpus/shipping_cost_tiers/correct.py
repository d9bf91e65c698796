"""Correct implementation of shipping_cost_tiers/spec.req."""
def shipping(weight_g):
    if weight_g <= 1000:
        return 499
    if weight_g <= 5000:
        return 899
    return 899 + (weight_g - 5000) // 1000 * 100
