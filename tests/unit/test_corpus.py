"""The corpus: every correct implementation passes, every subtly wrong one is caught.

``tests/corpus/<case>/`` holds a spec (``spec.req``), a correct implementation
(``correct.py``) and a subtly wrong one (``wrong.py``) whose second line names the
obligations that must fail (``# expect-fail: ID, ID``).  The bugs are the ones that
matter in practice: off-by-one at a boundary, rounding of negatives, a missing or
wrong ``raises``, the empty string, date and list edges, enum mistakes, a result of the
wrong type, and a check-then-set race in a TokenStore that only the interleaving
explorer can see (``single_use``, docs/language.md §1) while the locked store passes.

The engine runs with a small example budget: the wrong implementations must be caught
by the solver-chosen inputs (boundaries, triggers) and the explorer, deterministically,
not by luck of the random draws.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from derivative.api import load
from derivative.forge.testing import (
    Engine,
    EngineOptions,
    InProcessCaller,
    constants_of,
    hints_of,
    load_target,
)

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "spec.req").is_file())
EXPECT = re.compile(r"^# expect-fail: (.+)$", re.MULTILINE)
WRONG_CASES = CASES



def _run(case: str, impl: str):  # type: ignore[no-untyped-def]
    folder = CORPUS / case
    info = load([folder / "spec.req"]).types
    module = load_target(str(folder / impl))
    engine = Engine(
        info,
        InProcessCaller.for_contract(module, info),
        EngineOptions(examples=20, sequences=8, steps=10,
                      hints=hints_of([(folder / impl).read_bytes()]),
                      constants=constants_of([(folder / impl).read_bytes()])),
    )
    return engine.run()


def test_the_corpus_is_big_enough() -> None:
    assert len(CASES) >= 25
    for case in CASES:
        folder = CORPUS / case
        assert (folder / "correct.py").is_file() and (folder / "wrong.py").is_file(), case
        assert EXPECT.search((folder / "wrong.py").read_text(encoding="utf-8")), case


@pytest.mark.parametrize("case", CASES)
def test_correct_implementation_passes(case: str) -> None:
    evidence = _run(case, "correct.py")
    bad = [o.explain() for o in evidence.obligations if o.status not in ("passed", "vacuous")]
    assert not bad, "\n".join(bad)
    assert evidence.status == "passed"


@pytest.mark.parametrize("case", WRONG_CASES)
def test_wrong_implementation_is_caught(case: str) -> None:
    text = (CORPUS / case / "wrong.py").read_text(encoding="utf-8")
    match = EXPECT.search(text)
    assert match is not None
    expected = [e.strip() for e in match.group(1).split(",")]
    evidence = _run(case, "wrong.py")
    assert evidence.status == "failed"
    failed = {o.id for o in evidence.obligations if o.status == "failed"}
    for want in expected:
        # An id may name a whole group: "clamp.ensures" covers clamp.ensures.<6hex>.
        assert any(f == want or f.startswith(want + ".") for f in failed), (want, failed)
