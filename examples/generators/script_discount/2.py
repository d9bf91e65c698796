"""Attempt 2 of a scripted generator: the repair (the discount is floored, not the price)."""

import enum
import re


class Tier(enum.Enum):
    basic = "basic"
    silver = "silver"
    gold = "gold"


def discounted(price_cents: int, percent: int) -> int:
    return price_cents - price_cents * percent // 100


def tier_percent(tier: Tier) -> int:
    return {Tier.gold: 10, Tier.silver: 5}.get(tier, 0)


def parse_percent(text: str) -> int:
    if not re.fullmatch("[0-9]+", text):
        raise ValueError(f"not a percentage: {text!r}")
    return int(text)
