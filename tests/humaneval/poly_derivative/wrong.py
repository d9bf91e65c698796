"""Subtly wrong: multiplies by the index of the lower term."""
# expect-fail: derivative.ensures
def derivative(coefficients):
    return [i * c for i, c in enumerate(coefficients[1:])]
