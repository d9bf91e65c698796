"""Subtly wrong: returns a name that is not a member of the enum."""
# expect-fail: grade.ensures
def grade(score):
    if score < 50:
        return "fail"
    return "pass" if score < 80 else "distinction"
