"""What ``benchmarks/mutation.py`` mutates: correct implementations with their contracts.

Three sources, each a ``Subject`` (a name, the spec files, the implementation's file):

- the corpus: ``tests/corpus/<case>/correct.py`` against its ``spec.req`` (named ``<case>``);
- the bundled examples (``examples/README.md``): the contract-expiry core, the locked
  password-reset store and the discount generator's second (correct) attempt (named
  ``examples/<name>``);
- the blind rounds: every candidate whose ``case.json`` expects ``verified`` (named
  ``<round>/<case>``).

A mutant is a subject and a site of its implementation (``_mutation_ops``); its key is
``subject:line:change`` (with ``#2``, ``#3`` when one line has the same change twice), the
key ``EQUIVALENT`` is written in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from benchmarks._mutation_ops import Site, mutate, sites

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
EXAMPLES = ROOT / "examples"
ROUNDS = ROOT / "benchmarks" / "blind" / "rounds"


@dataclass(frozen=True)
class Subject:
    name: str
    specs: tuple[Path, ...]
    source: Path
    module: str = ""
    """The module's name, where it is not the file's (the generator's ``2.py``)."""

    @property
    def filename(self) -> str:
        """The name a mutant's file is written under."""
        return f"{self.module}.py" if self.module else self.source.name

    @property
    def group(self) -> str:
        """``corpus``, ``examples`` or the blind round's name."""
        if "/" not in self.name:
            return "corpus"
        return self.name.split("/")[0]


EXAMPLE_SUBJECTS = (
    ("examples/contracts", ("contracts/expiry.req",), "contracts/good/contract_expiry.py", ""),
    ("examples/password_policy", ("password_policy.req",), "candidates/password_policy.py",
     ""),
    ("examples/discount", ("discount.req",), "generators/script_discount/2.py", "discount"),
)


def _corpus() -> list[Subject]:
    return [Subject(c.name, (c / "spec.req",), c / "correct.py")
            for c in sorted(CORPUS.iterdir()) if (c / "correct.py").is_file()]


def _examples() -> list[Subject]:
    return [Subject(name, tuple(EXAMPLES / s for s in specs), EXAMPLES / src, module)
            for name, specs, src, module in EXAMPLE_SUBJECTS]


def _blind() -> list[Subject]:
    out: list[Subject] = []
    for case_file in sorted(ROUNDS.glob("round-*/cases/*/case.json")):
        case = json.loads(case_file.read_text(encoding="utf-8"))
        folder = case_file.parent
        for cand in case["candidates"]:
            if cand["expected"] != "verified":
                continue
            name = f"{folder.parents[1].name}/{case['id']}"
            out.append(Subject(name, tuple(folder / s for s in case["spec"]),
                               folder / cand["path"]))
    return out


@cache
def all_subjects() -> tuple[Subject, ...]:
    return (*_corpus(), *_examples(), *_blind())


def pick(only: list[str] | None = None, groups: list[str] | None = None) -> list[Subject]:
    """The subjects named in ``only`` (or whose name starts with one of them followed by
    ``/``), of the ``groups`` given (``corpus``, ``examples``, ``round-1``...); all by
    default."""
    chosen = list(all_subjects())
    if groups:
        chosen = [s for s in chosen if s.group in groups]
    if only:
        chosen = [s for s in chosen
                  if s.name in only or any(s.name.startswith(o + "/") for o in only)]
    return chosen


def subject(name: str) -> Subject:
    (found,) = [s for s in all_subjects() if s.name == name]
    return found


@dataclass(frozen=True)
class Mutant:
    subject: str
    index: int
    """The site's position in ``_mutation_ops.sites`` of the subject's source."""
    line: int
    change: str
    key: str


def mutants_of(s: Subject) -> list[Mutant]:
    """Every mutant of one subject whose text differs from the original and from every
    earlier mutant (a change that unparses to the same text is one mutant)."""
    source = s.source.read_text(encoding="utf-8")
    import ast

    seen = {ast.unparse(ast.parse(source))}
    keys: dict[str, int] = {}
    out: list[Mutant] = []
    for index, site in enumerate(sites(source)):
        text = mutate(source, site)
        if text in seen:
            continue
        seen.add(text)
        key = f"{s.name}:{site.line}:{site.change}"
        keys[key] = keys.get(key, 0) + 1
        if keys[key] > 1:
            key += f"#{keys[key]}"
        out.append(Mutant(s.name, index, site.line, site.change, key))
    return out


def original(s: Subject) -> Mutant:
    """The unchanged implementation as a pseudo-mutant (index -1): it must pass, or the
    subject's mutants prove nothing."""
    return Mutant(s.name, -1, 0, "original", f"{s.name}:0:original")


def wrong(s: Subject) -> Mutant:
    """A corpus case's ``wrong.py`` as a pseudo-mutant (index -2)."""
    return Mutant(s.name, -2, 0, "wrong.py", f"{s.name}:0:wrong.py")


def mutant_text(m: Mutant) -> str:
    s = subject(m.subject)
    if m.index == -2:
        return (s.source.parent / "wrong.py").read_text(encoding="utf-8")
    source = s.source.read_text(encoding="utf-8")
    if m.index < 0:
        return source
    site: Site = sites(source)[m.index]
    return mutate(source, site)


__all__ = [
    "Mutant",
    "Subject",
    "all_subjects",
    "mutant_text",
    "mutants_of",
    "original",
    "pick",
    "subject",
    "wrong",
]
