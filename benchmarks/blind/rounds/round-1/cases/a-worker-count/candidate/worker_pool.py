"""Worker-thread sizing for the job runner."""

HARD_CAP = 64
QUEUE_SLOTS_PER_WORKER = 4
DEFAULT_WORKERS = 0
QUEUE_CAPACITY = QUEUE_SLOTS_PER_WORKER * HARD_CAP


def effective_workers(requested: int, cpu_cores: int) -> int:
    """The number of worker threads to start: ``requested``, or one per core when it is 0,
    kept within 1..HARD_CAP."""
    wanted = cpu_cores if requested == 0 else requested
    return max(1, min(HARD_CAP, wanted))
