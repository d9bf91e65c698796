"""Helper definitions for ``**`` and the text built-ins in SMT-LIB (``_smt_text``).

Each is a ``define-fun`` or ``define-fun-rec`` that z3 and cvc5 both read, walking a
string or a sequence by index as the list helpers of ``_smt_aux`` do.  Case mapping and
white space are ASCII only (docs/language.md §7.5): ``A``-``Z`` are codes 65-90,
``a``-``z`` 97-122, and ``strip`` removes the six characters of ``_SPACE``.
"""

from __future__ import annotations

from typing import Final

from ._smt_syntax import EncodingError, string_literal

TEXT_AUX_ORDER: Final = ("pow", "case", "strip", "split", "join")
"""Kinds of text helpers, in the order a script defines them."""

_SPACE: Final = " \t\n\r\x0b\x0c"


def _case(name: str, lo: int, hi: int, shift: int) -> list[str]:
    char = (
        f"(define-fun |py.{name}.char| ((c String)) String (let ((k (str.to_code c))) "
        f"(ite (and (<= {lo} k) (<= k {hi})) (str.from_code (+ k {shift})) c)))"
    )
    walk = (
        f"(define-fun-rec |py.{name}| ((s String) (i Int)) String "
        f'(ite (>= i (str.len s)) "" '
        f"(str.++ (|py.{name}.char| (str.at s i)) (|py.{name}| s (+ i 1)))))"
    )
    return [char, walk]


def _strip() -> list[str]:
    tests = " ".join(f"(= c {string_literal(ch)})" for ch in _SPACE)
    return [
        f"(define-fun |py.space| ((c String)) Bool (or {tests}))",
        "(define-fun-rec |py.lstrip| ((s String) (i Int)) Int "
        "(ite (and (< i (str.len s)) (|py.space| (str.at s i))) (|py.lstrip| s (+ i 1)) i))",
        "(define-fun-rec |py.rstrip| ((s String) (j Int)) Int "
        "(ite (and (> j 0) (|py.space| (str.at s (- j 1)))) (|py.rstrip| s (- j 1)) j))",
        "(define-fun |py.strip| ((s String)) String "
        "(let ((lo (|py.lstrip| s 0)) (hi (|py.rstrip| s (str.len s)))) "
        '(ite (< lo hi) (str.substr s lo (- hi lo)) "")))',
    ]


def text_aux_definitions(kind: str, sort: str) -> list[str]:
    """The definitions of one text helper (itself last)."""
    if kind == "pow":
        one = "1.0" if sort == "Real" else "1"
        return [
            f"(define-fun-rec |py.pow.{sort}| ((a {sort}) (n Int)) {sort} "
            f"(ite (<= n 0) {one} (* a (|py.pow.{sort}| a (- n 1)))))"
        ]
    if kind == "case":
        return _case("lower", 65, 90, 32) if sort == "lower" else _case("upper", 97, 122, -32)
    if kind == "strip":
        return _strip()
    if kind == "split":
        # From position i: the piece up to the next separator, then the rest; an empty
        # separator is undefined (the caller's guard), answered by [] so as not to loop.
        return [
            "(define-fun-rec |py.split| ((s String) (sep String) (i Int)) (Seq String) "
            "(let ((j (str.indexof s sep i))) "
            "(ite (= (str.len sep) 0) (as seq.empty (Seq String)) "
            "(ite (< j 0) (seq.unit (str.substr s i (- (str.len s) i))) "
            "(seq.++ (seq.unit (str.substr s i (- j i))) "
            "(|py.split| s sep (+ j (str.len sep))))))))"
        ]
    if kind == "join":
        return [
            "(define-fun-rec |py.join| ((sep String) (xs (Seq String)) (i Int)) String "
            '(ite (>= i (seq.len xs)) "" '
            "(ite (= i (- (seq.len xs) 1)) (seq.nth xs i) "
            "(str.++ (seq.nth xs i) sep (|py.join| sep xs (+ i 1))))))"
        ]
    raise EncodingError(f"unknown helper {kind}")
