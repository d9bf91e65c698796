"""Bracket nesting depths for the formula editor."""


def nesting_depths(formula: str) -> list[int]:
    """Return the depth before the first character and after each character."""
    depth = 0
    depths = [depth]
    for ch in formula:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        depths.append(depth)
    return depths
