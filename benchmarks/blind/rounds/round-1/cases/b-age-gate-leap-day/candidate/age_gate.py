"""Age gate for restricted goods at checkout."""

from __future__ import annotations

import datetime

ADULT_AGE = 18


def _coming_of_age(born: datetime.date) -> datetime.date:
    """The 18th birthday; a 29 February birthday falls back to the end of February."""
    try:
        return born.replace(year=born.year + ADULT_AGE)
    except ValueError:
        return datetime.date(born.year + ADULT_AGE, 2, 28)


def is_adult(birth_year: int, birth_month: int, birth_day: int,
             year: int, month: int, day: int) -> bool:
    born = datetime.date(birth_year, birth_month, birth_day)
    today = datetime.date(year, month, day)
    if born > today:
        raise ValueError("the birth date is after today")
    return today >= _coming_of_age(born)
