"""Hostile: allocate (and touch) memory in 64 MiB steps, bounded at 4 GiB.

Pure Python with no imports: nothing for a static check to see.  The memory limit of
the sandbox must stop it (MemoryError or a kill) well before the bound.
"""

STEP = 64 << 20
LIMIT = 4 << 30


def f(x: int) -> int:
    chunks = []
    total = 0
    try:
        while total < LIMIT:
            chunks.append(bytearray(b"\x01") * STEP)
            total += STEP
    except MemoryError:
        pass
    chunks.clear()
    if total >= LIMIT:
        print("DERIVATIVE-BREACH memory_bomb: allocated", total, "bytes", flush=True)
    return x + 1
