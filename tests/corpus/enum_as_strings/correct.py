"""Correct implementation of enum_as_strings/spec.req."""
def grade(score):
    if score < 50:
        return "fail"
    return "pass" if score < 80 else "merit"
