"""Peak-so-far line of the capacity report."""


def peak_so_far(samples: list[int]) -> list[int]:
    """Return, for each sample, the largest sample seen up to and including it."""
    peaks: list[int] = []
    for sample in samples:
        if peaks and peaks[-1] >= sample:
            peaks.append(peaks[-1])
        else:
            peaks.append(sample)
    return peaks
