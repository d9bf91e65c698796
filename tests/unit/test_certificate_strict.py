"""Certificates are read strictly, and nothing they record about themselves is trusted.

A certificate is checked by anyone, so anyone may also hand the checker a forged one:
a key written twice, numbers or nesting no reader survives, a string where a number
belongs, an explanation that says something else than the core, a proof or recorded
solver answers that were never produced.  Each is bad input (exit 2) or a rejection
with its reason (exit 1), never a crash (exit 70).  The files the tool writes for others
to check are readable as the umask allows, not ``0600``.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from derivative.certificates import verify
from derivative.certificates._model import payload_sha256
from derivative.cli import main

CONFLICT = """\
spec tries version 2
param max_attempts: int
requirement R1 "at least three tries": max_attempts >= 3
requirement R2: max_attempts shall be at most 2
"""

RAISES = """\
spec ages version 1
function check_age(x: int) -> int
    raises ValueError V1 when x < 0
    ensures E1: result == x
    example X1: check_age(5) raises ValueError
"""


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two certificates written by ``check --certificate``: a linear conflict of two
    requirements, and an example that raises where no raises clause allows it."""
    folder = tmp_path_factory.mktemp("strict")
    out: dict[str, Path] = {}
    for name, text in (("conflict", CONFLICT), ("raises", RAISES)):
        spec = folder / f"{name}.req"
        spec.write_text(text, encoding="utf-8")
        cert = folder / f"{name}.json"
        assert main(["check", str(spec), "--certificate", str(cert)]) == 3
        out[name] = cert
        out[f"{name}_spec"] = spec
    return out


def _doc(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def _rehash(doc: dict[str, Any]) -> dict[str, Any]:
    doc["sha256"] = payload_sha256(doc)
    return doc


def _verify_file(folder: Path, text: str, *argv: str) -> int:
    path = folder / "forged.json"
    path.write_text(text, encoding="utf-8")
    return main(["certificate", "verify", str(path), *argv])


# --------------------------------------------------------------------------- the JSON


def test_a_key_written_twice_is_refused(
    made: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A forged first ``core`` beside the real last one: a person reads the first, Python
    keeps the last, so the file has no one meaning."""
    text = made["conflict"].read_text(encoding="utf-8")
    forged = text.replace(
        '"core": [',
        '"core": [{"id": "R9", "file": "x.req", "line": 1, "text": null, "tags": {}, '
        '"expr": "false"}],\n  "core": [',
        1,
    )
    assert main(["certificate", "verify", str(made["conflict"])]) == 0
    capsys.readouterr()
    assert _verify_file(tmp_path, forged) == 2
    err = capsys.readouterr().err
    assert "the key 'core' appears twice in one object" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace('"version": 2', '"version": 1' + "0" * 5000, 1),
         "an integer of 5001 digits (at most 4000 are read)"),
        (lambda t: "[" * 100_000 + "]" * 100_000, "nested deeper than the 64 levels read"),
        (lambda t: t.replace('"witness_input": null',
                             '"witness_input": ' + "[" * 100_000 + "]" * 100_000, 1),
         "nested deeper than the 64 levels read"),
        (lambda t: t.replace('"line": ', '"line": NaN, "x": ', 1), "NaN is not a JSON number"),
    ],
    ids=["long-integer", "deep-document", "deep-field", "nan"],
)
def test_what_no_reader_survives_is_bad_input(
    made: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    edit: Any, message: str,
) -> None:
    assert _verify_file(tmp_path, edit(made["conflict"].read_text(encoding="utf-8"))) == 2
    err = capsys.readouterr().err
    assert message in err and "internal error" not in err


def _deep(levels: int) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(levels):
        child: list[Any] = []
        node.append(child)
        node = child
    return root


def test_a_parsed_document_is_held_to_the_same_rules(made: dict[str, Path]) -> None:
    """A dict from an API caller never went through the strict reader."""
    doc = _doc(made["conflict"])
    doc["minimality"][0]["model"]["max_attempts"] = _deep(100_000)
    verdict = verify(doc, solvers=())
    assert verdict.reasons == ["not a certificate's JSON: nested deeper than the 64 levels read"]
    doc = _doc(made["conflict"])
    doc["spec"]["version"] = 10**5000
    verdict = verify(doc, solvers=())
    assert not verdict.valid and "more than 4000 digits" in verdict.reasons[0]


@pytest.mark.parametrize(
    ("path", "value", "reason"),
    [
        (("farkas", 0, "multiplier"), "1/" + "3" * 5000, "farkas row 1: a number of 5000 digits"),
        (("farkas", 0, "row", "bound"), "-0." + "1" * 5000, "farkas row 1: a number of 5001"),
        (("core", 0, "expr"), "not " * 100_000 + "true",
         "core member R1: an expression nested more than 100 levels deep"),
        # a long sum is one flat node: it is read, and the forged member is caught because
        # the recorded script is not its encoding
        (("core", 1, "expr"), " + ".join(["max_attempts"] * 100_000) + " <= 2",
         "the smtlib script is not the encoding of the core"),
    ],
    ids=["long-fraction", "long-decimal", "deep-not", "long-sum"],
)
def test_numbers_and_expressions_no_reader_survives_are_reasons(
    made: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    path: tuple[Any, ...], value: str, reason: str,
) -> None:
    doc = _doc(made["conflict"])
    node: Any = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    assert _verify_file(tmp_path, json.dumps(_rehash(doc))) == 1
    out = capsys.readouterr()
    assert reason in out.out and "internal error" not in out.err


def test_a_number_written_as_a_string_is_refused(made: dict[str, Path]) -> None:
    """``"version": "2"`` is not the integer the schema says (the model is strict)."""
    doc = _doc(made["conflict"])
    doc["spec"]["version"] = "2"
    verdict = verify(_rehash(doc), solvers=())
    assert not verdict.valid
    assert "spec.version: Input should be a valid integer" in verdict.reasons
    doc = _doc(made["conflict"])
    doc["core"][0]["line"] = True
    reasons = verify(_rehash(doc), solvers=()).reasons
    assert "core.0.line: Input should be a valid integer" in reasons


# --------------------------------------------------------------------------- the explanation


def test_the_explanation_is_recomputed_from_the_core(made: dict[str, Path]) -> None:
    doc = _doc(made["conflict"])
    assert verify(doc, solvers=()).valid
    genuine = doc["explanation"]
    for forged in (
        "Nothing conflicts here.",
        genuine.replace("cannot both hold", "can both hold"),
        genuine.replace("gives 0 <= -1", "gives 0 <= -7"),
        genuine.replace('R1 "at least three tries"', "R1"),
    ):
        doc["explanation"] = forged
        verdict = verify(_rehash(doc), solvers=())
        assert not verdict.valid
        assert verdict.reasons[0].startswith(
            "the explanation does not say what the core says: expected 'R1 \"at least three"
        ), verdict.reasons


def test_an_exception_name_is_held_to_the_spec(made: dict[str, Path]) -> None:
    """Only the spec knows a raises example's exception: without it any name is read as
    the one the example may have named; with it the name must be the spec's."""
    doc = _doc(made["raises"])
    assert "check_age(5) raises ValueError, which needs x < 0" in doc["explanation"]
    spec = [str(made["raises_spec"])]
    assert verify(doc, spec, solvers=()).valid
    doc["explanation"] = doc["explanation"].replace("raises ValueError", "raises KeyError")
    _rehash(doc)
    assert verify(doc, solvers=()).valid
    verdict = verify(doc, spec, solvers=())
    assert verdict.reasons == [
        "the explanation is not the one the spec's core gives: expected "
        + repr(_doc(made["raises"])["explanation"])
    ]
    doc["explanation"] = _doc(made["raises"])["explanation"].replace("x < 0", "x < 9")
    verdict = verify(_rehash(doc), solvers=())
    assert not verdict.valid and "the explanation does not say what the core says" in (
        verdict.reasons[0]
    )


# --------------------------------------------------------------------------- records and proof


def test_a_proof_is_reproduced_or_reported_unchecked(made: dict[str, Path]) -> None:
    doc = _doc(made["conflict"])
    assert doc["proof"] is not None
    here = verify(doc)
    assert here.valid and here.proof == "reproduced"
    assert any("proof is the one cvc5" in n and "does not count toward validity" in n
               for n in here.notes)
    unchecked = verify(doc, solvers=())
    assert unchecked.valid and unchecked.proof == "unchecked"
    assert unchecked.to_json()["proof"] == "unchecked"
    assert any("proof was not checked" in n for n in unchecked.notes)
    doc["proof"]["text"] = "(a proof of anything)"
    verdict = verify(_rehash(doc))
    assert not verdict.valid
    assert any(r.startswith("the alethe proof is not the one cvc5") for r in verdict.reasons)


def test_a_proof_never_counts_toward_validity(made: dict[str, Path]) -> None:
    """Without a Farkas certificate and without a solver here, a proof proves nothing."""
    doc = _doc(made["conflict"])
    doc["farkas"] = None
    doc["explanation"] = doc["explanation"].split(" Adding ")[0]
    verdict = verify(_rehash(doc), solvers=())
    assert verdict.proof == "unchecked"
    assert verdict.reasons == [
        "no solver confirmed that the script is unsatisfiable and there is no valid Farkas "
        "certificate"
    ]


def test_recorded_checks_are_re_derived(made: dict[str, Path]) -> None:
    doc = _doc(made["conflict"])
    z3 = doc["checks"][0]
    assert z3["solver"] == "z3" and z3["result"] == "unsat"
    z3["result"] = "unknown"
    verdict = verify(_rehash(doc))
    assert not verdict.valid
    assert verdict.reasons == [
        f"the certificate records z3 {z3['version']} answering unknown, but z3 "
        f"{z3['version']} answers unsat for the same script"
    ]
    z3["result"], z3["version"] = "unsat", "0.0.1"
    verdict = verify(_rehash(doc))
    assert verdict.valid
    assert "recorded: z3 0.0.1 answering unsat; not re-derived" in " ".join(verdict.notes)
    doc["checks"].append(dict(doc["checks"][0]))
    assert "the certificate records z3 twice" in verify(_rehash(doc), solvers=()).reasons
    doc["checks"] = [{"solver": "mathsat", "version": "5", "result": "unsat"}]
    assert verify(_rehash(doc), solvers=()).reasons == [
        "the certificate records a check by 'mathsat', which is not one of the solvers "
        "(z3, cvc5)"
    ]


# --------------------------------------------------------------------------- file modes


@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_certificate_is_written_with_the_umask(
    made: dict[str, Path], tmp_path: Path, umask: None, capsys: pytest.CaptureFixture[str]
) -> None:
    cert = tmp_path / "cert.json"
    assert main(["check", str(made["conflict_spec"]), "--certificate", str(cert)]) == 3
    assert _mode(cert) == 0o640
    from derivative.certificates import Certificate

    model = Certificate.model_validate(_doc(cert))
    assert _mode(model.write(tmp_path / "again.json")) == 0o640
    os.umask(0o002)
    assert _mode(model.write(tmp_path / "shared.json")) == 0o664
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.json", "cert.json", "shared.json"]


def test_a_generated_test_module_is_written_with_the_umask(
    made: dict[str, Path], tmp_path: Path, umask: None, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "ok.req"
    spec.write_text("spec ok version 1\nfunction f(x: int) -> int\n    ensures E1: result == x\n",
                    encoding="utf-8")
    out = tmp_path / "test_f.py"
    assert main(["tests", str(spec), "--target", "impl.py", "-o", str(out)]) == 0
    assert _mode(out) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ok.req", "test_f.py"]



