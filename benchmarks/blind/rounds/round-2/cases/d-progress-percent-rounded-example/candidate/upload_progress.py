"""Progress percentage shown in the upload dialog."""


def progress_percent(sent: int, total: int) -> int:
    """Return the whole percentage of bytes sent, rounded down."""
    return sent * 100 // total
