"""Subtly wrong: splits on any white space, so a tab or newline separates words too."""
# expect-fail: words_string.ensures
def words_string(text):
    return text.split()
