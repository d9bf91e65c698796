"""``derivative check``: flags, output formats and exit codes (docs/cli.md §1).

Driven through ``derivative.cli.main``, exactly as a user runs the command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from derivative.cli import _check, main

FEASIBLE = """spec ok version 1
param x: int in 0..10
requirement A: x >= 3
"""

INFEASIBLE = """spec bad version 1
param x: int in 0..10
requirement A [source: ux] "big": x >= 30
"""

LATENT = """spec latent version 1
param a: int
param b: int
requirement R3: when a == 3, b shall be 2
requirement R4: when a == 3, b shall be 3
"""

HARD = """spec hard version 1
param x: int
param y: int
param z: int
requirement N: x * x * x + y * y * y + z * z * z == 42
requirement P: x > 1000
"""


def _spec(tmp_path: Path, text: str, name: str = "spec.req") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _run(argv: list[str]) -> int:
    return main(["check", *argv])


def test_feasible_exits_0_with_a_text_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run([_spec(tmp_path, FEASIBLE)]) == 0
    out = capsys.readouterr().out
    assert "status: feasible" in out and "params: x = 3" in out


def test_infeasible_exits_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run([_spec(tmp_path, INFEASIBLE)]) == 3
    out = capsys.readouterr().out
    assert "x.range" in out and '"big"' in out


def test_unknown_exits_6(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run([_spec(tmp_path, HARD), "--rlimit", "2000"]) == 6
    assert "undecided questions" in capsys.readouterr().out


def test_strict_makes_a_latent_conflict_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _spec(tmp_path, LATENT)
    assert _run([spec]) == 0
    assert _run([spec, "--strict"]) == 1
    assert "latent_conflict" in capsys.readouterr().out


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run([_spec(tmp_path, INFEASIBLE), "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "derivative.check/v1" and doc["status"] == "infeasible_proven"
    assert sorted(doc["cores"][0]["ids"]) == ["A", "x.range"]


def test_format_sarif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run([_spec(tmp_path, INFEASIBLE), "--format", "sarif"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["version"] == "2.1.0"
    assert doc["runs"][0]["results"][0]["ruleId"] == "inconsistent_requirements"


def test_json_with_format_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run([_spec(tmp_path, FEASIBLE), "--json", "--format", "text"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "error: --json and --format cannot be used together (--json means --format json)\n"
    )


def test_missing_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run([str(tmp_path / "absent.req")]) == 2
    assert capsys.readouterr().err == f"error: no such file: {tmp_path / 'absent.req'}\n"


def test_bad_rlimit_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["x.req", "--rlimit", "-5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: derivative check")
    assert err.endswith("error: argument --rlimit: must be a positive integer\n")


def test_the_defaults_shown_are_the_options_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    from derivative.solver import CheckOptions

    assert main(["check", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"default {CheckOptions.rlimit})" in text
    assert f"default {CheckOptions.timeout:g})" in text


def test_all_cores_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _spec(
        tmp_path,
        """spec many version 1
param x: int
requirement A: x > 5
requirement B: x < 3
requirement C: x < 4
""",
    )
    assert _run([spec, "--all-cores", "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert sorted(sorted(c["ids"]) for c in doc["cores"]) == [["A", "B"], ["A", "C"]]
    assert sorted(sorted(c["ids"]) for c in doc["corrections"]) == [["A"], ["B", "C"]]


def test_no_certificate_is_written_for_a_feasible_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "cert.json"
    assert _run([_spec(tmp_path, FEASIBLE), "--certificate", str(target)]) == 0
    assert not target.exists()
    assert "no certificate written" in capsys.readouterr().out


def test_write_atomically_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    _check.write_atomically(str(target), "{}\n")
    assert target.read_text(encoding="utf-8") == "{}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_certificate_is_written_and_embedded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "cert.json"
    assert _run([_spec(tmp_path, INFEASIBLE), "--certificate", str(target), "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written["format"] == "derivative.certificate/v1"
    assert written["kind"] == "inconsistent_requirements"
    assert sorted(e["id"] for e in written["core"]) == ["A", "x.range"]
    assert doc["certificate"] == written
    from derivative.certificates import verify

    assert verify(written).valid


def test_no_warnings_gives_the_verdict_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _spec(tmp_path, LATENT)
    assert _run([spec, "--no-warnings", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] == "feasible" and doc["warnings"] == []
    assert _run([spec, "--no-warnings", "--strict"]) == 2
    assert "--no-warnings" in capsys.readouterr().err


MANY = """spec many version 1
param a: bool
param b: bool
param c: bool
param d: bool
param n: int in 0..10
requirement R1: when a, not b
requirement R2: when b, not a
requirement R3: when c, n shall be at least 20
requirement R4: when c, n > 15
requirement R5: when d, a
requirement R6: when d, b
requirement R7: when a, n shall be at most 3
requirement R8: when b, n shall be at least 7
"""


@pytest.mark.parametrize("batched", [False, True])
def test_batched_vacuity_reports_every_never_true_condition(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    batched: bool,
) -> None:
    """Several conditions settle in one model, a and b only in different ones, and c
    and d can never be true: reported in the order of the requirements, the condition
    shared by R3 and R4 once per requirement, d's latent conflict (one core for R5 and
    R6) once.  The same conditions by the small questions' pass and the batched one.

    ``c`` has two minimal conflicts, {R3, n's range} and {R4, n's range}.  The small
    questions' pass finds the first (so R3's warning is a latent conflict); the batched
    pass draws every core from one shared pool and may find the second (R3's condition
    is then ruled out by R4, and R4's is the latent conflict).  Both are exact: which
    minimal conflict a condition is shown with is the solver's choice."""
    from derivative.solver import _warnings

    if batched:
        monkeypatch.setattr(_warnings, "BATCH_MIN_MEMBERS", 0)
    assert _run([_spec(tmp_path, MANY), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    found = [(w["kind"], w["message"].split("`")[1], w["message"].split(" of ")[1].split()[0],
              sorted(w["ids"]))
             for w in doc["warnings"] if w["kind"] in ("vacuous", "latent_conflict")]
    assert [(c, s) for _, c, s, _ in found] == [("c", "R3"), ("c", "R4"), ("d", "R5")]
    assert found[2][:3] == ("latent_conflict", "d", "R5")
    assert found[2][3] in (["R1", "R5", "R6"], ["R2", "R5", "R6"], ["R5", "R6", "R7", "R8"])
    # one core for both of c's warnings (the vacuous one names its subject first)
    c_cores = {tuple(i for i in ids if k == "latent_conflict" or i != s)
               for k, _, s, ids in found[:2]}
    assert c_cores in ({("R3", "n.range")}, {("R4", "n.range")})
    if not batched:
        assert [k for k, *_ in found] == ["latent_conflict", "vacuous", "latent_conflict"]
