"""Resource limits grow with the question, an ``unknown`` names its limit, and the text
report stays readable at any size (docs/decisions.md, "Resource limits grow with the
question"; issue 15, item 4).

The behavioural tests shrink ``RLIMIT_SCALE_SIZE`` (the constraints a question may assert
within the base ``--rlimit``) so that a sheet of a thousand requirements shows what one of
a hundred thousand does at the real setting, in a fraction of a second.  Every answer is
decided by Z3's resource count, never by the clock.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from derivative import api
from derivative.cli import main
from derivative.solver import CheckOptions, Limit, _limits, _question, _report
from derivative.solver._limits import RLIMIT_SCALE_SIZE, Z3_RLIMIT_MAX, scaled_rlimit


def independent(n: int) -> str:
    """``n`` params and one requirement each: trivially consistent, ``2n`` constraints."""
    params = "".join(f"param p{i}: int in 0..10\n" for i in range(n))
    reqs = "".join(f"requirement R{i}: p{i} >= {i % 5}\n" for i in range(n))
    return f"spec independent version 1\n\n{params}{reqs}"


def cycle(n: int) -> str:
    """A chain ``x0 < x1 < ... < x(n-1) < x0``: one conflict of all ``n`` requirements."""
    params = "".join(f"param x{i}: int in 0..1000\n" for i in range(n))
    reqs = "".join(f"requirement C{i}: x{i} < x{(i + 1) % n}\n" for i in range(n))
    return f"spec ring version 1\n\n{params}{reqs}"


HARD = """spec hard version 1
param p: int in 2..1000002
param q: int in 2..1000002
requirement R1 "factor a prime": p * q == 1000003
"""


def _check(text: str, **options: int) -> api.CheckResult:
    loaded = api.parse_text(text, "sheet.req")
    return api.check(loaded, CheckOptions(**options))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the rule


def test_the_limit_is_the_base_up_to_the_scale_size_then_grows_linearly() -> None:
    assert RLIMIT_SCALE_SIZE == CheckOptions.RLIMIT_SCALE_SIZE == 5_000
    assert scaled_rlimit(2_000_000, 3) == 2_000_000
    assert scaled_rlimit(2_000_000, 5_000) == 2_000_000
    assert scaled_rlimit(2_000_000, 5_001) == 2_000_400
    assert scaled_rlimit(2_000_000, 125_005) == 50_002_000
    # Z3 reads the limit as an unsigned 32-bit number: never more than it can hold.
    assert scaled_rlimit(4_000_000_000, 10_000) == Z3_RLIMIT_MAX


def test_a_large_consistent_sheet_is_decided_where_a_fixed_limit_gave_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 1,000 params and requirements: 2,000 constraints, about 110,000 units of Z3's work.
    # A fixed limit of 20,000 cannot decide it; the same base scaled by 2,000 / 100
    # (400,000) can.
    text = independent(1_000)
    monkeypatch.setattr(_limits, "RLIMIT_SCALE_SIZE", 10**9)
    fixed = _check(text, rlimit=20_000)
    assert fixed.status == "unknown"
    (undecided,) = fixed.unknowns
    assert [(x.name, x.value, x.flag) for x in undecided.limits] == [("rlimit", 20_000, "--rlimit")]
    monkeypatch.setattr(_limits, "RLIMIT_SCALE_SIZE", 100)
    scaled = _check(text, rlimit=20_000)
    assert scaled.status == "feasible", scaled.unknowns
    assert scaled.witness is not None and scaled.witness.params["p4"] >= 4


def test_a_conflict_planted_in_a_large_sheet_is_proven(monkeypatch: pytest.MonkeyPatch) -> None:
    # A ring of 5 strict comparisons among 1,000 independent requirements.
    ring = cycle(5).split("\n", 2)[2]
    text = independent(1_000) + ring
    monkeypatch.setattr(_limits, "RLIMIT_SCALE_SIZE", 10**9)
    assert _check(text, rlimit=20_000).status == "unknown"
    monkeypatch.setattr(_limits, "RLIMIT_SCALE_SIZE", 100)
    proven = _check(text, rlimit=20_000)
    assert proven.status == "infeasible_proven", proven.unknowns
    (core,) = proven.cores
    assert core.ids == ("C0", "C1", "C2", "C3", "C4") and core.minimal


def test_a_scaled_limit_says_how_it_was_scaled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_limits, "RLIMIT_SCALE_SIZE", 2)
    result = _check(HARD, rlimit=1_000)
    (undecided,) = result.unknowns
    (limit,) = undecided.limits
    # R1 and the two ranges: 3 constraints, so 1,000 x 3 // 2 units.
    assert (limit.name, limit.value, limit.flag) == ("rlimit", 1_500, "--rlimit")
    assert limit.detail == "--rlimit 1,000 scaled by the question's 3 constraints / 2"
    assert "the Z3 rlimit of 1,500 units is used up" in undecided.reason
    assert undecided.reason.endswith("raise --rlimit to try harder")


# --------------------------------------------------------------------------- unknowns


def test_an_unknown_names_the_limit_and_its_flag_in_text_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "hard.req"
    spec.write_text(HARD, encoding="utf-8")
    assert main(["check", str(spec), "--rlimit", "1000"]) == 6
    text = capsys.readouterr().out
    assert (
        "  - requirements [R1, p.range, q.range]: resource limit reached: the Z3 rlimit of "
        "1,000 units is used up (--rlimit 1,000); raise --rlimit to try harder\n"
    ) in text
    assert main(["check", str(spec), "--rlimit", "1000", "--json"]) == 6
    (unknown,) = json.loads(capsys.readouterr().out)["unknowns"]
    assert unknown["limits"] == [
        {"name": "rlimit", "value": 1000, "flag": "--rlimit", "detail": "--rlimit 1,000"}
    ]
    assert "raise --rlimit" in unknown["reason"]


class _Gave:
    """A solver that answered ``unknown`` for ``why`` (what ``_question._unknown`` reads)."""

    def __init__(self, why: str, limit: Limit | None = None) -> None:
        self.why, self.limit = why, limit

    def reason_unknown(self) -> str:
        return self.why


def test_only_a_resource_limit_is_reported_as_one() -> None:
    limit = Limit("rlimit", 7, "--rlimit", "--rlimit 7")
    stopped = _question._unknown(_Gave("canceled", limit))
    assert stopped.limits == (limit,)
    assert stopped.reason == (
        "resource limit reached: the Z3 rlimit of 7 units is used up (--rlimit 7); "
        "raise --rlimit to try harder"
    )
    # Z3's other reasons are its own, and no flag would help: no limit is named.
    gave_up = _question._unknown(_Gave("(incomplete quantifiers)", limit))
    assert (gave_up.reason, gave_up.limits) == ("(incomplete quantifiers)", ())


def test_the_all_cores_bounds_name_their_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Three ways to break x >= 5: three cores in one group, and one correction.
    spec = tmp_path / "cores.req"
    spec.write_text(
        "spec cores version 1\nparam x: int in 0..10\nrequirement A: x >= 5\n"
        "requirement B: x <= 3\nrequirement C: x <= 2\nrequirement D: x <= 1\n",
        encoding="utf-8",
    )
    assert main(["check", str(spec), "--all-cores", "--max-cores", "1", "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["cores"]) == 1
    limits = [x for u in doc["unknowns"] for x in u["limits"]]
    assert limits and all(x["flag"] == "--max-cores" and x["value"] == 1 for x in limits)
    assert all("raise --max-cores" in u["reason"] for u in doc["unknowns"])
    assert main(["check", str(spec), "--all-cores", "--max-cores", "8", "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["cores"]) == 3 and doc["unknowns"] == []
    # Without --all-cores the bounds would be ignored: that is bad input, never silence.
    for flag in ("--max-cores", "--enumeration-work"):
        assert main(["check", str(spec), flag, "5"]) == 2
        assert f"{flag} bounds the enumeration of --all-cores" in capsys.readouterr().err


# --------------------------------------------------------------------------- readable text


def _lines_between(text: str, head: str) -> list[str]:
    block = text.split(head, 1)[1].split("\n\n", 1)[0]
    return [line for line in block.splitlines() if line]


def test_a_long_witness_and_many_warnings_are_cut_with_counts() -> None:
    n = _report.SHOWN + 40
    unused = "".join(f"param u{i}: int\n" for i in range(n))
    loaded = api.parse_text(independent(n) + unused, "sheet.req")
    result = api.check(loaded, CheckOptions())
    assert result.status == "feasible"
    text = api.render_text(result)
    params = _lines_between(text, "witness:\n")[0]
    assert params.count(" = ") == _report.SHOWN
    assert params.endswith(f", ... and {2 * n - _report.SHOWN:,} more")
    warnings = _lines_between(text, "warnings:\n")
    shown = [line for line in warnings if line.startswith("  unused_param:")]
    assert len(shown) == _report.SHOWN
    assert warnings[-1] == (
        f"  ... and {n - _report.SHOWN:,} more warnings: {n - _report.SHOWN:,} unused_param "
        "(--json lists them all)"
    )
    # The JSON document lists everything.
    doc = api.render_json(result)
    assert len(doc["witness"]["params"]) == 2 * n
    assert len([w for w in doc["warnings"] if w["kind"] == "unused_param"]) == n


def test_a_large_core_is_cut_and_json_keeps_every_member() -> None:
    result = _check(cycle(60))
    assert result.status == "infeasible_proven"
    text = api.render_text(result)
    listed = [line for line in text.splitlines() if line.startswith("     C")]
    assert len(listed) == _report.SHOWN
    assert "     ... and 40 more members (--json lists them all)\n" in text
    assert all(len(line) <= _report.LINE_LIMIT + 80 for line in text.splitlines())
    doc = api.render_json(result)
    assert doc["cores"][0]["ids"] == [f"C{i}" for i in range(60)]
    assert len(doc["cores"][0]["members"]) == 60


def test_a_long_list_of_undecided_ids_is_cut_and_json_keeps_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # R1, A0..A29 and 32 ranges: 63 ids in the one undecided question.
    spec = tmp_path / "many.req"
    more = "".join(f"param a{i}: int in 0..9\nrequirement A{i}: a{i} >= 1\n" for i in range(30))
    spec.write_text(HARD + more, encoding="utf-8")
    assert main(["check", str(spec), "--rlimit", "1000"]) == 6
    text = capsys.readouterr().out
    (line,) = [x for x in text.splitlines() if x.startswith("  - requirements [")]
    ids = line.split("[", 1)[1].split("]", 1)[0]
    assert ids.startswith("R1, A0, A1, ") and ids.count(", ") == _report.SHOWN
    assert ids.endswith(f", ... and {63 - _report.SHOWN:,} more")
    assert main(["check", str(spec), "--rlimit", "1000", "--json"]) == 6
    (unknown,) = json.loads(capsys.readouterr().out)["unknowns"]
    assert len(unknown["ids"]) == 63


# --------------------------------------------------------------------------- large witnesses


@pytest.mark.parametrize("threshold", [1, 10**9])
def test_a_large_question_reads_its_witness_from_a_plain_copy(
    monkeypatch: pytest.MonkeyPatch, threshold: int
) -> None:
    # From PLAIN_MODEL_MIN constraints on, the model of a consistent set comes from a
    # copy without assumption literals (Z3 builds the other one in quadratic time); the
    # answer, and every requirement holding at the witness, do not depend on it.
    monkeypatch.setattr(_question, "PLAIN_MODEL_MIN", threshold)
    reads: list[bool] = []
    original = _question._check_assuming

    def spy(*args: object, **kwargs: object) -> _question.Answer:
        reads.append(bool(kwargs.get("model", True)))
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_question, "_check_assuming", spy)
    result = _check(independent(40))
    assert result.status == "feasible" and result.witness is not None
    assert all(result.witness.params[f"p{i}"] >= i % 5 for i in range(40))
    assert reads[0] is (threshold > 80)
    ring = cycle(5).split("\n", 2)[2]
    proven = _check(independent(40) + ring)
    assert proven.status == "infeasible_proven"
    assert proven.cores[0].ids == ("C0", "C1", "C2", "C3", "C4")
