"""What a presented password-reset token is worth."""

import enum

TTL_SECONDS = 900


class TokenStatus(enum.Enum):
    valid = "valid"
    expired = "expired"
    used = "used"
    revoked = "revoked"


def token_status(issued_at, now, used, revoked):
    if now < issued_at:
        raise ValueError(f"clock went backwards: now={now} < issued_at={issued_at}")
    if revoked:
        return TokenStatus.revoked
    if used:
        return TokenStatus.used
    age = now - issued_at
    if age > TTL_SECONDS:
        return TokenStatus.expired
    return TokenStatus.valid
