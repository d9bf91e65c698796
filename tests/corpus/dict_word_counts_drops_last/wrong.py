"""Subtly wrong: an off-by-one loop never counts the last word."""
# expect-fail: word_counts.ensures, word_counts.example
def word_counts(words):
    counts = {}
    for i in range(len(words) - 1):
        counts[words[i]] = counts.get(words[i], 0) + 1
    return counts
