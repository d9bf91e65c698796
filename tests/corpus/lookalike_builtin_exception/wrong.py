"""Subtly wrong: raises its own class named ValueError, which is not the built-in one."""
# expect-fail: f.raises.ValueError
class ValueError(Exception):  # a caller's `except ValueError` does not catch this
    pass
def f(x):
    if x < 0:
        raise ValueError(f"{x} is negative")
    return x + 1
