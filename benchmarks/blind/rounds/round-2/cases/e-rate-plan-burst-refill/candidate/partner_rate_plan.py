"""Token bucket helpers of the partner API plan."""


def tokens_after(tokens, elapsed_ms, capacity, per_second):
    return min(capacity, tokens + elapsed_ms * per_second // 1000)


def should_alert(tokens, capacity, threshold_percent):
    return (capacity - tokens) * 100 >= threshold_percent * capacity
