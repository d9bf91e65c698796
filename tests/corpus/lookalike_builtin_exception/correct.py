"""Correct implementation of lookalike_builtin_exception/spec.req: the built-in ValueError."""
def f(x):
    if x < 0:
        raise ValueError(f"{x} is negative")
    return x + 1
