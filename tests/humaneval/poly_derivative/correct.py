"""Correct implementation of poly_derivative/spec.req."""
def derivative(coefficients):
    return [i * c for i, c in enumerate(coefficients)][1:]
