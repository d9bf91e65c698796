"""Helper definitions a script includes when its expressions need them.

SMT-LIB's ``div``/``mod`` are Euclidean, so Python's ``//`` and ``%`` are helpers that
flip signs for a negative divisor; ``sum``, ``product``, ``min``/``max`` of a list,
``occurrences``, ``sorted`` and ``reversed`` are recursive functions (``define-fun-rec``)
over the sequence by index.
"""

from __future__ import annotations

from typing import Final

from ._smt_syntax import EncodingError
from ._smt_text_aux import TEXT_AUX_ORDER, text_aux_definitions

# --------------------------------------------------------------------------- helpers (aux)

_PY_DIV: Final = (
    "(define-fun |py.div| ((a Int) (b Int)) Int (ite (> b 0) (div a b) (div (- a) (- b))))"
)
_PY_MOD: Final = (
    "(define-fun |py.mod| ((a Int) (b Int)) Int (ite (> b 0) (mod a b) (- (mod (- a) (- b)))))"
)
_PY_RDIV: Final = "(define-fun |py.rdiv| ((a Real) (b Real)) Real (to_real (to_int (/ a b))))"
_PY_RMOD: Final = (
    "(define-fun |py.rmod| ((a Real) (b Real)) Real (- a (* b (to_real (to_int (/ a b))))))"
)


def sort_tag(sort: str) -> str:
    """A sort as part of a helper's name: ``Int``, ``(Seq Int)`` -> ``Seq.Int``."""
    return (
        sort.replace("(", "").replace(")", "").replace(" ", ".").replace("|", "").replace("'", "")
    )


def le_term(sort: str, a: str, b: str) -> str:
    return f"(str.<= {a} {b})" if sort == "String" else f"(<= {a} {b})"


def lt_term(sort: str, a: str, b: str) -> str:
    return f"(str.< {a} {b})" if sort == "String" else f"(< {a} {b})"


def aux_definitions(key: tuple[str, str]) -> list[str]:
    """The definitions a helper needs (itself last), for one element sort.

    The recursive helpers walk the sequence by index (``xs``, ``i``) rather than by
    ``seq.extract``: solvers unfold them far more cheaply that way.
    """
    kind, sort = key
    tag = sort_tag(sort)
    seq = f"(Seq {sort})"
    if kind == "div":
        return [_PY_DIV]
    if kind == "mod":
        return [_PY_MOD]
    if kind == "rdiv":
        return [_PY_RDIV]
    if kind == "rmod":
        return [_PY_RMOD]
    done = "(>= i (seq.len xs))"
    head = "(seq.nth xs i)"
    nxt = "(+ i 1)"
    if kind == "sum":
        zero = "0.0" if sort == "Real" else "0"
        return [
            f"(define-fun-rec |py.sum.{tag}| ((xs {seq}) (i Int)) {sort} "
            f"(ite {done} {zero} (+ {head} (|py.sum.{tag}| xs {nxt}))))"
        ]
    if kind == "product":
        one = "1.0" if sort == "Real" else "1"
        return [
            f"(define-fun-rec |py.product.{tag}| ((xs {seq}) (i Int)) {sort} "
            f"(ite {done} {one} (* {head} (|py.product.{tag}| xs {nxt}))))"
        ]
    if kind == "reversed":
        return [
            f"(define-fun-rec |py.reversed.{tag}| ((xs {seq}) (i Int)) {seq} "
            f"(ite {done} (as seq.empty {seq}) "
            f"(seq.++ (|py.reversed.{tag}| xs {nxt}) (seq.unit {head}))))"
        ]
    if kind in ("max", "min"):
        better = lt_term(sort, "m", head) if kind == "max" else lt_term(sort, head, "m")
        return [
            f"(define-fun-rec |py.{kind}.{tag}| ((xs {seq}) (i Int)) {sort} "
            f"(ite (>= {nxt} (seq.len xs)) {head} "
            f"(let ((m (|py.{kind}.{tag}| xs {nxt}))) (ite {better} {head} m))))"
        ]
    if kind == "occ":
        return [
            f"(define-fun-rec |py.occurrences.{tag}| ((xs {seq}) (x {sort}) (i Int)) Int "
            f"(ite {done} 0 (+ (ite (= {head} x) 1 0) (|py.occurrences.{tag}| xs x {nxt}))))"
        ]
    if kind == "sorted":
        return [
            f"(define-fun-rec |py.insert.{tag}| ((x {sort}) (xs {seq}) (i Int)) {seq} "
            f"(ite {done} (seq.unit x) "
            f"(ite {le_term(sort, 'x', head)} "
            f"(seq.++ (seq.unit x) (seq.extract xs i (- (seq.len xs) i))) "
            f"(seq.++ (seq.unit {head}) (|py.insert.{tag}| x xs {nxt})))))",
            f"(define-fun-rec |py.sorted.{tag}| ((xs {seq}) (i Int)) {seq} "
            f"(ite {done} (as seq.empty {seq}) "
            f"(|py.insert.{tag}| {head} (|py.sorted.{tag}| xs {nxt}) 0)))",
        ]
    if kind in TEXT_AUX_ORDER:
        return text_aux_definitions(kind, sort)
    raise EncodingError(f"unknown helper {kind}")


AUX_ORDER: Final = (
    *("div", "mod", "rdiv", "rmod", "sum", "product", "max", "min", "occ", "sorted", "reversed"),
    *TEXT_AUX_ORDER,
)
