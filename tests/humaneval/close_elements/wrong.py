"""Subtly wrong: compares only neighbours, so close elements far apart are missed."""
# expect-fail: has_close_elements.ensures
def has_close_elements(numbers, threshold):
    return any(abs(a - b) < threshold for a, b in zip(numbers, numbers[1:]))
