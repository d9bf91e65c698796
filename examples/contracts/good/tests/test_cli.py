"""The candidate's own tests of its CLI (reported by the build, never counted as evidence)."""

import csv
import datetime
import os
import tempfile

from cli import main, parse_expiry


def test_parse_expiry_accepts_both_formats():
    assert parse_expiry("2026-05-01") == datetime.date(2026, 5, 1)
    assert parse_expiry("01/05/2026") == datetime.date(2026, 5, 1)


def test_summary_flags_contracts_expiring_soon():
    folder = tempfile.mkdtemp()
    source = os.path.join(folder, "contracts.csv")
    target = os.path.join(folder, "summary.csv")
    with open(source, "w", newline="") as handle:
        handle.write("id,party,expires\nC1,Acme,2026-03-15\nC2,Globex,2027-01-01\n"
                     "C3,Initech,2026-01-31\n")
    assert main([source, target, "--today", "2026-02-01"]) == 0
    with open(target, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["id"], r["standing"]) for r in rows] == [
        ("C3", "expired"), ("C1", "expiring"), ("C2", "active")]
