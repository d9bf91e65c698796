"""Subtly wrong: exactly 1000 g is charged the second tier."""
# expect-fail: shipping.ensures
def shipping(weight_g):
    if weight_g < 1000:
        return 499
    if weight_g <= 5000:
        return 899
    return 899 + (weight_g - 5000) // 1000 * 100
