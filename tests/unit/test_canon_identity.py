"""The fast contract identity is byte for byte the canonical JSON of the contract's meaning.

``contract_identity`` serialises each declaration and obligation once and joins the
sorted pieces itself; the definition (docs/language.md §2) is the SHA-256 of
``canonical_json(contract_meaning(contract))``.  Every spec in the repository, plus
specs with a tolerance, no declarations or many reordered obligations, must give the
same digest both ways.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from derivative import api
from derivative._canon import canonical_json, contract_identity, contract_meaning, sha256_hex
from derivative._errors import DerivativeError

ROOT = Path(__file__).resolve().parents[2]


def _loadable(path: Path) -> bool:
    try:
        api.load([path])
    except DerivativeError:  # golden specs of bad input: nothing to compare
        return False
    return True


SPECS = sorted(
    p for p in [*ROOT.glob("examples/**/*.req"), *ROOT.glob("tests/golden/**/*.req"),
                *ROOT.glob("tests/corpus/*/spec.req")]
    if _loadable(p)
)


def _slow(contract: object) -> str:
    return sha256_hex(canonical_json(contract_meaning(contract)))  # type: ignore[arg-type]


@pytest.mark.parametrize("path", SPECS, ids=[p.relative_to(ROOT).as_posix() for p in SPECS])
def test_every_repository_spec(path: Path) -> None:
    contract = api.load([path]).contract
    assert contract_identity(contract) == _slow(contract)


@pytest.mark.parametrize("seed", range(5))
def test_generated_specs_with_tolerance_and_shuffled_clauses(seed: int) -> None:
    rng = random.Random(seed)
    lines = ["spec g version 1"]
    if rng.random() < 0.5:
        lines.append("tolerance 0.001")
    lines.append("enum Colour { red, green, blue }")
    names = [f"p{i}" for i in range(rng.randint(0, 6))]
    lines += [f"param {n}: int in {rng.randint(-9, 0)}..{rng.randint(1, 9)}" for n in names]
    reqs = [f"requirement R{i}: {rng.choice(names)} <= {rng.randint(0, 9)}"
            for i in range(rng.randint(0, 8))] if names else []
    rng.shuffle(reqs)
    lines += reqs
    lines += ["function f(x: int, c: Colour) -> int", "    ensures: result == x + 1",
              "    ensures: c == Colour.red implies result > x"]
    contract = api.parse_text("\n".join(lines) + "\n", "g.req").contract
    assert contract_identity(contract) == _slow(contract)



def test_asking_again_is_answered_from_the_last_contract(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import derivative._canon as canon

    text = "spec c version 1\nparam x: int\nrequirement R1: x >= {}\n"
    paths = []
    for i, bound in enumerate((1, 2, 1)):
        path = tmp_path / f"c{i}.req"
        path.write_text(text.format(bound), encoding="utf-8")
        paths.append(path)
    a, b, a_again = (api.load([p]).contract for p in paths)
    calls: list[object] = []
    real = canon._node_json

    def counted(obj: object) -> bytes:
        calls.append(obj)
        return real(obj)

    monkeypatch.setattr(canon, "_node_json", counted)
    ida = contract_identity(a)
    serialised = len(calls)
    assert serialised > 0
    assert contract_identity(a) == ida and len(calls) == serialised  # not serialised again
    assert contract_identity(b) != ida  # another contract is hashed, not confused with a
    assert contract_identity(a_again) == ida == _slow(a_again)  # equal content, same id
    assert len(calls) == 3 * serialised  # b and a_again were each serialised
    assert contract_identity(b) == _slow(b)
