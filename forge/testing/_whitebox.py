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
from typing import Final

from derivative._types import TStr, Ty

__all__ = ["HINTS", "hints_of", "variants"]

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
             ) -> list[dict[str, object]]:
    """Valid variants of ``inputs`` for the hints (each string parameter varied alone),
    at most ``MAX_VARIANTS``, none equal to an input."""
    if not hints:
        return []
    seen = {repr(sorted(i.items())) for i in inputs}
    out: list[dict[str, object]] = []
    for inp in inputs:
        for name, ty in params.items():
            value = inp.get(name)
            if not isinstance(ty, TStr) or not isinstance(value, str) or not value:
                continue
            for text in _of_text(value, hints):
                candidate = {**inp, name: text}
                key = repr(sorted(candidate.items()))
                if key in seen or not admits(candidate):
                    continue
                seen.add(key)
                out.append(candidate)
                if len(out) >= MAX_VARIANTS:
                    return out
    return out
