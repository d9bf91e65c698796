"""Correct implementation of substring_search/spec.req."""
def find_first(hay, needle):
    return hay.find(needle)
