"""Mirror codes on warehouse shelf labels."""


def is_mirror_code(code: str) -> bool:
    """Return True when the shelf code reads the same forwards and backwards."""
    if len(code) < 2:
        return True
    return code.lower() == code[::-1].lower()
