"""Password rule: limit how often one character may repeat in a row."""


def within_repeat_limit(password: str, limit: int) -> bool:
    """Return True when no character appears more than ``limit`` times in a row."""
    run = 1
    for i in range(1, len(password)):
        if password[i] == password[i - 1]:
            run += 1
        else:
            if run > limit:
                return False
            run = 1
    return True
