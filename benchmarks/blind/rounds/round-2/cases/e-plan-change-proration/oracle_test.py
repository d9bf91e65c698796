"""Oracle for e-plan-change-proration, written from the requirements only."""

import math
import random
from fractions import Fraction

import proration as m


def _exact(old, new, days, cycle):
    return Fraction(new - old) * days / cycle


def test_examples_from_the_ticket():
    assert m.prorated_cents(1000, 2500, 10, 30) == 500
    assert m.prorated_cents(2500, 1000, 10, 30) == -500
    assert m.prorated_cents(1000, 2000, 1, 30) == 33
    assert m.prorated_cents(4900, 9900, 31, 31) == 5000


def test_rounded_in_the_customers_favour():
    rng = random.Random(1234)
    for _ in range(3000):
        old = rng.randint(0, 1000000) if rng.random() < 0.5 else rng.randint(0, 5000)
        new = rng.randint(0, 1000000) if rng.random() < 0.5 else rng.randint(0, 5000)
        cycle = rng.randint(28, 31)
        days = rng.randint(0, cycle)
        exact = _exact(old, new, days, cycle)
        got = m.prorated_cents(old, new, days, cycle)
        # the customer never pays more, nor is credited less, than the exact amount,
        # and by less than one cent
        assert got <= exact < got + 1, (old, new, days, cycle, got)
        assert got == math.floor(exact)


def test_downgrade_credits_round_up_in_size():
    assert m.prorated_cents(2000, 1000, 10, 30) == -334
    assert m.prorated_cents(999, 0, 1, 30) == -34
    assert m.prorated_cents(1, 0, 1, 31) == -1
    for old in range(1, 300):
        for days in (1, 7, 13):
            got = m.prorated_cents(old, 0, days, 30)
            assert got == math.floor(Fraction(-old * days, 30)), (old, days)
            assert got <= 0 and -got <= old


def test_days_outside_the_cycle_are_refused():
    for days, cycle in ((-1, 30), (31, 30), (32, 31), (29, 28), (-30, 28)):
        try:
            m.prorated_cents(1000, 2000, days, cycle)
            assert False, (days, cycle)
        except ValueError:
            pass


def test_invoice_line():
    assert m.invoice_line(500) == "5.00"
    assert m.invoice_line(-334) == "-3.34"
    assert m.invoice_line(-5) == "-0.05"
    assert m.invoice_line(0) == "0.00"
    assert m.invoice_line(1000000) == "10000.00"
    assert m.invoice_line(-1000000) == "-10000.00"
    rng = random.Random(7)
    for _ in range(2000):
        cents = rng.randint(-1000000, 1000000)
        sign = "-" if cents < 0 else ""
        text = "%s%d.%02d" % (sign, abs(cents) // 100, abs(cents) % 100)
        assert m.invoice_line(cents) == text, cents
