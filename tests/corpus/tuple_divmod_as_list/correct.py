"""Quotient and remainder as a tuple, with Python's floor semantics."""


def divmod_pair(a, b):
    return divmod(a, b)
