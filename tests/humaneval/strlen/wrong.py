"""Subtly wrong: counts UTF-8 bytes instead of characters."""
# expect-fail: strlen.ensures
def strlen(text):
    return len(text.encode("utf-8"))
