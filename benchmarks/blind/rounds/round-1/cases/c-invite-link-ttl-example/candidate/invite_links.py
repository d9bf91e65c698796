"""State of a team invite link."""

import enum

INVITE_TTL_HOURS = 72


class InviteState(enum.Enum):
    pending = "pending"
    accepted = "accepted"
    expired = "expired"


def invite_state(sent_hour, now_hour, accepted):
    if accepted:
        return InviteState.accepted
    if now_hour - sent_hour > INVITE_TTL_HOURS:
        return InviteState.expired
    return InviteState.pending
