"""The audit record of ``check`` names its contract, and an unobserved check never hashes it.

``derivative._audit`` promises that nothing is built without a subscriber; the contract's
identity (a hash of the whole contract) is part of the record, so it is computed only
when someone listens.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import derivative
from derivative import api

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "password_policy.req"


def test_an_unobserved_check_does_not_hash_the_contract() -> None:
    loaded = api.load([EXAMPLE])
    result = api.check(loaded)
    assert result.status == "feasible"
    assert "identity" not in vars(loaded)  # the cached property was never computed


def test_an_observed_check_records_its_contract() -> None:
    loaded = api.load([EXAMPLE])
    records: list[dict[str, Any]] = []
    sid = derivative.subscribe(records.append)
    try:
        api.check(loaded)
    finally:
        derivative.unsubscribe(sid)
    assert len(records) == 1
    record = records[0]
    assert record["operation"] == "check"
    assert record["contract"] == {
        "name": "password_policy", "version": 3, "sha256": loaded.identity,
    }
    assert record["outcome"] == {"status": "feasible"}
