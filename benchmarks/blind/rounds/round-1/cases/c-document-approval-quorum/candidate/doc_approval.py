"""Approval status of a policy document."""

import enum


class DocStatus(enum.Enum):
    draft = "draft"
    in_review = "in_review"
    approved = "approved"
    rejected = "rejected"


def status(author, approvers, rejections, required):
    if rejections >= 1:
        return DocStatus.rejected
    valid = [a for a in approvers if a != author]
    if len(valid) >= required:
        return DocStatus.approved
    return DocStatus.in_review
