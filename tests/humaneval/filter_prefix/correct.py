"""Correct implementation of filter_prefix/spec.req."""
def filter_by_prefix(strings, prefix):
    return [s for s in strings if s.startswith(prefix)]
