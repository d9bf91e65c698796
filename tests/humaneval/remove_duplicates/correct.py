"""Correct implementation of remove_duplicates/spec.req."""
def remove_duplicates(numbers):
    return [x for x in numbers if numbers.count(x) == 1]
