"""Subtly wrong: C-style remainder: negative keys give negative buckets."""
# expect-fail: bucket.ensures
import math
def bucket(key, n):
    return int(math.fmod(key, n))
