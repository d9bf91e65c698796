"""The ``golden`` fixture: one reading of ``DERIVATIVE_REGEN_GOLDEN`` for every golden test."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.parametrize(
    ("value", "regen"),
    [(None, False), ("", False), ("0", False), ("no", False), ("false", False),
     ("1", True), ("true", True), ("YES", True), (" on ", True)],
)
def test_the_flag_is_read_one_way(
    value: str | None, regen: bool, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    if value is None:
        monkeypatch.delenv("DERIVATIVE_REGEN_GOLDEN", raising=False)
    else:
        monkeypatch.setenv("DERIVATIVE_REGEN_GOLDEN", value)
    assert request.getfixturevalue("golden").regen is regen


def test_comparing_and_rewriting(tmp_path: Path, golden: object) -> None:
    make = type(golden)
    snapshot = tmp_path / "case.expected.txt"
    comparing = make(regen=False)
    with pytest.raises(AssertionError, match="is missing: run with DERIVATIVE_REGEN_GOLDEN=1"):
        comparing.check(snapshot, "new\n")
    rewriting = make(regen=True)
    with pytest.warns(UserWarning, match="golden snapshot rewritten"):
        rewriting.check(snapshot, "new\n")
    assert snapshot.read_text(encoding="utf-8") == "new\n"
    rewriting.check(snapshot, "new\n")  # unchanged: not rewritten again
    assert rewriting.rewritten == [snapshot]
    comparing.check(snapshot, "new\n")
    with pytest.raises(AssertionError, match="differs; if the change is intended"):
        comparing.check(snapshot, "other\n")
