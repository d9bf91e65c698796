"""``derivative build`` end to end: every status on both sandboxes, every repair stop reason.

Each build runs the real pipeline: the solver, the posture validator, a real sandbox
(process and Docker), the engine, the ledger (a real SQLite file in a temporary state
folder), the package and its verifier. Nothing here is mocked except, for
``sandbox_unavailable``, a launcher that cannot start.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from derivative import api
from derivative._errors import SandboxUnavailable, UsageError
from derivative.forge.build import (
    BuildOptions,
    BuildReport,
    Ledger,
    SynthesisRefused,
    build,
    verify_package,
)
from derivative.forge.sandbox import Launcher, Limits

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SCHEMA = ROOT / "derivative" / "schemas" / "derivative.outcome.v1.schema.json"
SCRIPTED = EXAMPLES / "generators" / "scripted.py"
LIMITS = Limits(call_timeout=10.0, run_timeout=300.0)

pytestmark = pytest.mark.slow


class _NoSandbox(Launcher):
    """A launcher whose every start fails, as a machine without the requested isolation."""

    name = "process"

    def launch(self, staged: Any, limits: Any, transcript: Any, deadline: float) -> Any:
        raise SandboxUnavailable("this test's launcher never starts (no isolation here)")


BuildFn = Callable[..., BuildReport]


@pytest.fixture(params=["process", "docker"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "docker":
        request.getfixturevalue("docker_launcher")  # skips (fails under CI=true) without it
    return str(request.param)


@pytest.fixture
def run_build(tmp_path: Path, backend: str) -> BuildFn:
    counter = iter(range(1000))

    def go(spec: Path | list[Path], *, launcher: Launcher | None = None,
           **options: Any) -> BuildReport:
        specs = spec if isinstance(spec, list) else [spec]
        loaded = api.load(specs)
        out = tmp_path / f"build{next(counter)}"
        opts = BuildOptions(sandbox=backend, out=str(out), state=str(tmp_path / "state"),
                            limits=LIMITS, **options)
        return build(loaded.types, opts, contract_doc=api.contract_json(loaded),
                     spec_files=specs, launcher=launcher)

    return go


def _outcome(report: BuildReport) -> dict[str, Any]:
    doc = json.loads((report.folder / "outcome.json").read_text())
    jsonschema.validate(doc, json.loads(SCHEMA.read_text()))
    assert doc == report.outcome
    for name, digest in doc["evidence"].items():
        import hashlib

        assert hashlib.sha256((report.folder / name).read_bytes()).hexdigest() == digest, name
    return doc


def _chain(folder: Path) -> None:
    """Every file's ``depends_on`` names the digests of files that exist and match."""
    import hashlib

    for path in folder.glob("*.json"):
        if path.name == "outcome.json":
            continue
        doc = json.loads(path.read_text())
        for name, digest in doc.get("depends_on", {}).items():
            assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, (path, name)


# --------------------------------------------------------------------------- the statuses


def test_verified_builds_a_package_that_verifies(run_build: BuildFn, tmp_path: Path) -> None:
    report = run_build(EXAMPLES / "contracts" / "expiry.req",
                       candidate=str(EXAMPLES / "contracts" / "good"), module="contract_expiry")
    doc = _outcome(report)
    assert report.status == doc["status"] == "verified" and report.exit_code == 0
    _chain(report.folder)
    assert report.package is not None and report.package.exists()
    assert verify_package(report.package).ok
    gates = {g["gate"]: g["status"] for g in doc["gates"]}
    assert gates == {"posture": "passed", "sandbox": "passed", "import": "passed",
                     "obligations": "passed", "evidence": "reported", "coverage": "passed",
                     "own_tests": "reported", "sufficiency": "passed"}
    evidence = {g["gate"]: g["detail"] for g in doc["gates"]}["evidence"]
    assert "contract targets reached" in evidence and "candidate coverage" in evidence
    validation = json.loads((report.folder / "validation_artifact.json").read_text())
    own = validation["attempts"][0]["own_tests"]
    assert [t["status"] for t in own["results"]] == ["passed", "passed"]
    assert validation["own_tests_are_evidence"] is False
    ledger = Ledger(tmp_path / "state")
    answer = ledger.status(contract_name="contract_expiry", contract_version=1,
                           contract_sha256=doc["spec"]["sha256"],
                           candidate_sha256=doc["candidate_sha256"])
    assert answer.kind == "verified"


def test_a_boundary_bug_is_validation_failed_with_no_package(run_build: BuildFn) -> None:
    report = run_build(EXAMPLES / "contracts" / "expiry.req",
                       candidate=str(EXAMPLES / "contracts" / "wrong"), module="contract_expiry")
    doc = _outcome(report)
    assert doc["status"] == "validation_failed" and report.exit_code == 1
    assert report.package is None and not list(report.folder.glob("*.whl"))
    assert "E1" in doc["reason"]
    validation = json.loads((report.folder / "validation_artifact.json").read_text())
    failing = validation["attempts"][0]["validation"]["counterexamples"]
    assert any(c["obligation"] == "E1" and c["input"] for c in failing)
    # the candidate's own tests pass, and that changes nothing
    assert all(t["status"] == "passed" for t in validation["attempts"][0]["own_tests"]["results"])


def test_an_infeasible_contract_never_reads_the_candidate(run_build: BuildFn) -> None:
    report = run_build([EXAMPLES / "limits" / "feature.req", EXAMPLES / "limits" / "policy.req"],
                       candidate=str(EXAMPLES / "candidates" / "password_policy.py"))
    doc = _outcome(report)
    assert doc["status"] == "infeasible_proven" and report.exit_code == 3
    assert (report.folder / "certificate.json").exists()
    assert not (report.folder / "candidates").exists()
    assert doc["candidate_sha256"] is None and doc["attempts"] == 0


def test_no_sandbox_is_sandbox_unavailable(run_build: BuildFn) -> None:
    report = run_build(EXAMPLES / "discount.req", synth=True, launcher=_NoSandbox())
    doc = _outcome(report)
    assert doc["status"] == "sandbox_unavailable" and report.exit_code == 4
    assert report.package is None


def test_a_refused_posture_is_sandbox_policy_violation(run_build: BuildFn,
                                                       tmp_path: Path) -> None:
    cand = tmp_path / "discount.py"
    cand.write_text(textwrap.dedent("""\
        def discounted(price_cents, percent):
            open("/etc/passwd").read()
            return price_cents - price_cents * percent // 100
    """))
    report = run_build(EXAMPLES / "discount.req", candidate=str(cand))
    doc = _outcome(report)
    assert doc["status"] == "sandbox_policy_violation" and report.exit_code == 5
    assert {g["gate"]: g["status"] for g in doc["gates"]}["posture"] == "refused"


def test_a_non_enforcing_policy_is_never_verified(run_build: BuildFn) -> None:
    report = run_build(EXAMPLES / "discount.req", synth=True, policy="permissive")
    doc = _outcome(report)
    assert doc["status"] == "validation_failed"
    assert "does not enforce" in doc["reason"] and doc["enforced"] is False
    assert report.package is None


def test_synth_builds_the_discount_example(run_build: BuildFn) -> None:
    report = run_build(EXAMPLES / "discount.req", synth=True)
    assert _outcome(report)["status"] == "verified"
    assert report.package is not None and verify_package(report.package).ok


# --------------------------------------------------------------------------- repair


def _script(tmp_path: Path, *attempts: str) -> Path:
    folder = tmp_path / f"script{len(list(tmp_path.glob('script*')))}"
    folder.mkdir()
    for i, source in enumerate(attempts, 1):
        (folder / f"{i}.py").write_text(textwrap.dedent(source))
    return folder


GOOD = """\
def discounted(price_cents, percent):
    return price_cents - price_cents * percent // 100
"""
ROUNDS_UP = """\
def discounted(price_cents, percent):
    return price_cents - (price_cents * percent + 99) // 100
"""
OFF_BY_ONE = """\
def discounted(price_cents, percent):
    return price_cents - price_cents * percent // 100 - (1 if percent == 50 else 0)
"""
SPEC_ONE = """\
spec discount version 1
function discounted(price_cents: int, percent: int) -> int
    requires: price_cents >= 0
    requires: percent shall be between 0 and 50
    ensures: result == price_cents - price_cents * percent // 100
"""


def _generator(script: Path, *extra: str) -> tuple[str, ...]:
    return (sys.executable, str(SCRIPTED), str(script), *extra)


@pytest.fixture
def one_function_spec(tmp_path: Path) -> Path:
    spec = tmp_path / "discount.req"
    spec.write_text(SPEC_ONE)
    return spec


def test_repair_turns_a_wrong_first_attempt_into_verified(
        run_build: BuildFn, tmp_path: Path, one_function_spec: Path) -> None:
    script = _script(tmp_path, ROUNDS_UP, GOOD)
    report = run_build(one_function_spec, generator=_generator(script))
    doc = _outcome(report)
    assert doc["status"] == "verified" and doc["stop_reason"] == "verified"
    assert doc["attempts"] == 2
    code = json.loads((report.folder / "code_artifact.json").read_text())
    assert [a["number"] for a in code["attempts"]] == [1, 2]
    assert code["attempts"][1]["parent"] == 1


@pytest.mark.parametrize(("attempts", "reason", "status"), [
    ((ROUNDS_UP, ROUNDS_UP), "stalled", "validation_failed"),
    ((ROUNDS_UP, ROUNDS_UP.replace("99", "98")), "repeated_failure", "validation_failed"),
    ((ROUNDS_UP, OFF_BY_ONE, ROUNDS_UP.replace("99", "97")), "budget", "validation_failed"),
])
def test_repair_stops_for_each_reason(run_build: BuildFn, tmp_path: Path,
                                      one_function_spec: Path, attempts: tuple[str, ...],
                                      reason: str, status: str) -> None:
    script = _script(tmp_path, *attempts)
    report = run_build(one_function_spec, generator=_generator(script), max_repairs=1
                       if reason == "budget" else 3)
    doc = _outcome(report)
    assert doc["stop_reason"] == reason, doc
    assert doc["status"] == status and report.package is None


def test_a_failing_generator_is_a_stop_reason(run_build: BuildFn, tmp_path: Path,
                                              one_function_spec: Path) -> None:
    report = run_build(one_function_spec, generator=(sys.executable, "-c", "raise SystemExit(3)"))
    doc = _outcome(report)
    assert doc["stop_reason"] == "generator_failed" and doc["status"] == "validation_failed"


# --------------------------------------------------------------------------- bad input


def test_bad_input_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    loaded = api.load([EXAMPLES / "password_policy.req"])
    out = tmp_path / "never"
    with pytest.raises(SynthesisRefused):
        build(loaded.types, BuildOptions(synth=True, out=str(out), state=str(tmp_path / "s")),
              contract_doc=api.contract_json(loaded))
    with pytest.raises(UsageError):
        build(loaded.types, BuildOptions(out=str(out), state=str(tmp_path / "s")),
              contract_doc=api.contract_json(loaded))
    with pytest.raises(UsageError):
        build(loaded.types, BuildOptions(candidate=str(tmp_path / "missing.py"), out=str(out),
                                         state=str(tmp_path / "s")),
              contract_doc=api.contract_json(loaded))
    assert not out.exists()


def test_an_occupied_build_folder_is_refused(tmp_path: Path) -> None:
    loaded = api.load([EXAMPLES / "discount.req"])
    out = tmp_path / "taken"
    out.mkdir()
    (out / "something").write_text("x")
    with pytest.raises(UsageError, match="not empty"):
        build(loaded.types, BuildOptions(synth=True, out=str(out), state=str(tmp_path / "s")),
              contract_doc=api.contract_json(loaded))
    shutil.rmtree(out)


def test_the_certificate_of_an_infeasible_build_verifies(tmp_path: Path) -> None:
    from derivative.certificates import verify

    specs = [EXAMPLES / "limits" / "feature.req", EXAMPLES / "limits" / "policy.req"]
    loaded = api.load(specs)
    report = build(loaded.types, BuildOptions(candidate=str(EXAMPLES / "candidates" /
                                                            "password_policy.py"),
                                              out=str(tmp_path / "b"), state=str(tmp_path / "s")),
                   contract_doc=api.contract_json(loaded), spec_files=specs)
    assert report.status == "infeasible_proven"
    result = verify(json.loads((report.folder / "certificate.json").read_text()))
    assert result.valid, result
