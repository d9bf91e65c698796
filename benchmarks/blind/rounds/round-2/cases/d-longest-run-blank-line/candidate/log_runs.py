"""Longest run of one repeated character in a log line."""


def longest_run(line: str) -> int:
    """Return the length of the longest run of one repeated character."""
    best = 1
    run = 1
    for i in range(1, len(line)):
        if line[i] == line[i - 1]:
            run += 1
            best = max(best, run)
        else:
            run = 1
    return best
