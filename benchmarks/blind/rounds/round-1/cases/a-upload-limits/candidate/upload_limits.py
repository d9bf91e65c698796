"""Upload caps per plan and chunking of resumable uploads."""

import enum

MIB = 1024 * 1024
CHUNK_BYTES = 8 * MIB
PROXY_BODY_LIMIT_MIB = 16


class Plan(enum.Enum):
    free = "free"
    pro = "pro"
    enterprise = "enterprise"


_CAP_MIB = {Plan.free: 25, Plan.pro: 250, Plan.enterprise: 2048}


def cap_bytes(plan: Plan) -> int:
    return _CAP_MIB[plan] * MIB


def upload_allowed(size_bytes: int, plan: Plan) -> bool:
    if size_bytes < 0:
        raise ValueError(f"negative upload size {size_bytes}")
    return 0 < size_bytes <= cap_bytes(plan)


def chunk_count(size_bytes: int) -> int:
    return (size_bytes + CHUNK_BYTES - 1) // CHUNK_BYTES
