"""White-box seeds: what the candidate's source does to strings, read as text on the host.

The candidate's files are parsed with ``ast`` (never imported or run here). A call of a
case-mapping method (``lower``, ``upper``, ``casefold``, ...) says that letter case is
where this code may differ from the contract; ``strip``/``split`` say whitespace;
``isdigit``/``int`` say digits beyond ASCII. Each hint turns every explicit input (the
solver's and the examples') into variants that differ exactly there: the case of the
whole string or of one end, the two ends made a case-folding pair (``a...A``), a space
or newline at either end, the digits written in another script. A variant is used only
when it is a valid input. The hints only ever add inputs, so a candidate gains nothing by
hiding what it calls.

Blind round 2 (benchmarks/README.md): `code.lower() == code[::-1].lower()` against a
case-sensitive palindrome contract passed every input; its witness is ``"aA"``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from derivative._types import TInt, TStr, Ty, base

__all__ = ["HINTS", "Constants", "constants_of", "hints_of", "variants"]

HINTS: Final = ("case", "space", "digits")
_CASE: Final = frozenset({"lower", "upper", "casefold", "swapcase", "capitalize", "title",
                          "islower", "isupper", "istitle"})
_SPACE: Final = frozenset({"strip", "lstrip", "rstrip", "split", "rsplit", "splitlines",
                           "isspace"})
_DIGITS: Final = frozenset({"isdigit", "isdecimal", "isnumeric", "isalnum", "int", "float"})
_OTHER_DIGITS: Final = ("\u0660", "\uff10")  # Arabic-Indic and fullwidth zero
MAX_VARIANTS: Final = 200


def hints_of(sources: Iterable[bytes]) -> frozenset[str]:
    """The hints of the candidate's Python files (unparsable text gives none)."""
    found: set[str] = set()
    for data in sources:
        try:
            tree = ast.parse(data.decode("utf-8", "replace"))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.attr if isinstance(node.func, ast.Attribute) else \
                node.func.id if isinstance(node.func, ast.Name) else ""
            if name in _CASE:
                found.add("case")
            elif name in _SPACE:
                found.add("space")
            elif name in _DIGITS:
                found.add("digits")
    return frozenset(found)


@dataclass(frozen=True)
class Constants:
    """The literals of the candidate's source, read as text: integers (each tried with one
    either side, where the code compares with it or counts from it) and short strings
    (each alone, its first character, and explicit strings rewritten in its characters)."""

    ints: tuple[int, ...] = ()
    texts: tuple[str, ...] = ()


MAX_CONSTANTS: Final = 32
"""Literals kept per kind, at most (first found first): each adds a few explicit inputs."""


def constants_of(sources: Iterable[bytes]) -> Constants:
    """The integer and string literals of the candidate's Python files (docstrings aside),
    small ones only: ``|n| <= 10**12``, strings of 1 to 64 characters."""
    ints: dict[int, None] = {}
    texts: dict[str, None] = {}
    for data in sources:
        try:
            tree = ast.parse(data.decode("utf-8", "replace"))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                                        ast.ClassDef))
                      and n.body and isinstance(n.body[0], ast.Expr)
                      and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or id(node) in docstrings:
                continue
            v = node.value
            if isinstance(v, int) and not isinstance(v, bool) and abs(v) <= 10**12:
                ints.setdefault(v)
            elif isinstance(v, str) and 1 <= len(v) <= 64:
                texts.setdefault(v)
    return Constants(tuple(ints)[:MAX_CONSTANTS], tuple(texts)[:MAX_CONSTANTS])


def _from_constants(value: object, ty: Ty, constants: Constants) -> list[object]:
    """What the literals make of one explicit value (see ``Constants``)."""
    out: list[object] = []
    if isinstance(ty, TInt) and isinstance(value, int) and not isinstance(value, bool):
        out = [c + d for c in constants.ints for d in (0, -1, 1)]
    elif isinstance(ty, TStr) and isinstance(value, str):
        for t in constants.texts:
            out += [t, t[0], t[0] * 2]
            if value:
                out.append("".join(t[i % len(t)] for i in range(len(value))))
    return [v for v in dict.fromkeys(out) if v != value]


def _of_text(s: str, hints: frozenset[str]) -> list[str]:
    out: list[str] = []
    if "case" in hints and any(c.isalpha() for c in s):
        out += [s.swapcase(), s[0].swapcase() + s[1:], s[:-1] + s[-1].swapcase()]
    if "case" in hints and len(s) >= 2:
        # a case-folding pair at the two ends: equal only to code that folds case
        out += ["a" + s[1:-1] + "A", "A" + s[1:-1] + "a"]
    if "space" in hints:
        out += [" " + s, s + " ", s + "\n", "\t" + s]
    if "digits" in hints and any("0" <= c <= "9" for c in s):
        for zero in _OTHER_DIGITS:
            out.append("".join(chr(ord(zero) + ord(c) - 48) if "0" <= c <= "9" else c
                               for c in s))
    return [v for v in dict.fromkeys(out) if v != s]


def variants(inputs: Sequence[Mapping[str, object]], params: Mapping[str, Ty],
             hints: frozenset[str], admits: Callable[[Mapping[str, object]], bool],
             constants: Constants = Constants(),
             ) -> list[dict[str, object]]:
    """Valid variants of ``inputs`` for the hints and the source's literals (each parameter
    varied alone), at most ``MAX_VARIANTS`` of each, none equal to an input."""
    seen = {repr(sorted(i.items())) for i in inputs}
    out: list[dict[str, object]] = []

    def add(inp: Mapping[str, object], name: str, value: object, limit: int) -> bool:
        candidate = {**inp, name: value}
        key = repr(sorted(candidate.items()))
        if key not in seen and admits(candidate):
            seen.add(key)
            out.append(candidate)
        return len(out) >= limit

    for inp in inputs if hints else ():
        for name, ty in params.items():
            value = inp.get(name)
            if not isinstance(ty, TStr) or not isinstance(value, str) or not value:
                continue
            for text in _of_text(value, hints):
                if add(inp, name, text, MAX_VARIANTS):
                    return out
    limit = len(out) + MAX_VARIANTS
    for inp in inputs if constants.ints or constants.texts else ():
        for name, ty in params.items():
            for v in _from_constants(inp.get(name), base(ty), constants):
                if add(inp, name, v, limit):
                    return out
    return out
