"""``parse(to_source(e)) == e`` for random well-formed expression trees.

The trees are syntactic (not necessarily well-typed): every node kind the parser
can produce, in every position the grammar allows, so that each precedence level,
associativity and the quantifier's right-extending body meet each other.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from derivative import _ast as A
from derivative._printer import to_source
from derivative.grammar import RESERVED, parse_text

NAMES = st.sampled_from(["x", "y", "n", "xs", "s", "date", "all", "k_1", "Int"]).filter(
    lambda n: n not in RESERVED
)
FUNCS = st.sampled_from(
    ["len", "f", "max", "matches", "min", "product", "reversed", "split", "chr"]
)


def _real(whole: int, frac: str) -> A.RealLit:
    frac = frac.rstrip("0") or "0"
    return A.RealLit(value=f"{whole}.{frac}")


LEAVES: st.SearchStrategy[Any] = st.one_of(
    st.builds(lambda v: A.IntLit(value=v), st.integers(0, 10**20)),
    st.builds(_real, st.integers(0, 999), st.text("0123456789", min_size=1, max_size=4)),
    st.builds(
        lambda v: A.StrLit(value=v),
        st.text(st.characters(max_codepoint=0x2FFFF, exclude_categories=["Cs"]), max_size=6),
    ),
    st.builds(lambda v: A.BoolLit(value=v), st.booleans()),
    st.builds(lambda d: A.DateLit(value=d.isoformat()), st.dates()),
    st.builds(lambda v: A.Name(id=v), NAMES),
    st.just(A.Result()),
    st.builds(lambda e, m: A.EnumMember(enum=e, member=m), st.sampled_from(["E", "Outcome"]),
              st.sampled_from(["ok", "a"])),
)

CMP_OPS = st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in"])


def _compare(ops: list[str], first: Any, rest: list[tuple[Any, Any]]) -> A.Compare:
    operands = [first]
    for op, (plain, rng) in zip(ops, rest, strict=True):
        operands.append(rng if op in ("in", "not in") and rng is not None else plain)
    return A.Compare(ops=tuple(ops), operands=tuple(operands))


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    ranges = st.builds(lambda lo, hi: A.Range(lo=lo, hi=hi), children, children)
    return st.one_of(
        st.builds(lambda op, e: A.Unary(op=op, operand=e), st.sampled_from(["not", "-"]),
                  children),
        # Built as the parser builds them (``make_binop``/``make_boolop``): runs of
        # + * and or of two to four operands, one canonical form.
        st.builds(lambda op, xs: A.make_binop(op, xs), st.sampled_from(["+", "*"]),
                  st.lists(children, min_size=2, max_size=4)),
        st.builds(lambda op, a, b: A.make_binop(op, (a, b)),
                  st.sampled_from(["-", "/", "//", "%", "**"]), children, children),
        st.builds(lambda op, xs: A.make_boolop(op, xs), st.sampled_from(["and", "or"]),
                  st.lists(children, min_size=2, max_size=4)),
        st.builds(lambda op, a, b: A.make_boolop(op, (a, b)),
                  st.sampled_from(["implies", "iff"]), children, children),
        st.integers(1, 3).flatmap(
            lambda n: st.builds(
                _compare,
                st.lists(CMP_OPS, min_size=n, max_size=n),
                children,
                st.lists(st.tuples(children, st.none() | ranges), min_size=n, max_size=n),
            )
        ),
        st.builds(lambda c, t, e: A.IfExpr(cond=c, then=t, orelse=e), children, children,
                  children),
        st.builds(
            lambda q, v, lo, hi, b: A.Quantifier(quantifier=q, var=v, lo=lo, hi=hi, body=b),
            st.sampled_from(["forall", "exists"]), NAMES, children, children, children,
        ),
        st.builds(lambda f, args: A.Call(func=f, args=tuple(args)), FUNCS,
                  st.lists(children, max_size=3)),
        st.builds(lambda b, i: A.Index(base=b, index=i), children, children),
        st.builds(lambda f, b, v, it: A.Generator(func=f, body=b, var=v, iterable=it),
                  st.sampled_from(["all", "any"]), children, NAMES, children),
        st.builds(lambda op, w, p: A.Count(op=op, where=w, per=p),
                  st.sampled_from(["reset", "issue"]), st.none() | children,
                  st.none() | st.sampled_from(["token", "user"])),
        st.builds(lambda items: A.ListLit(items=tuple(items)), st.lists(children, max_size=3)),
        st.builds(lambda b, lo, hi: A.Slice(base=b, lo=lo, hi=hi), children,
                  st.none() | children, st.none() | children),
        st.builds(lambda b, v, it, c: A.ListComp(body=b, var=v, iterable=it, cond=c),
                  children, NAMES, children, st.none() | children),
    )


EXPRS = st.recursive(LEAVES, _extend, max_leaves=12)


def parse_expr(src: str) -> Any:
    return parse_text(f"spec s version 1\nrequirement R: {src}\n").obligations[0].expr


@settings(max_examples=300)
@given(EXPRS)
def test_print_then_parse_is_identity(e: Any) -> None:
    src = to_source(e)
    assert parse_expr(src).model_dump() == e.model_dump(), src


@settings(max_examples=100)
@given(EXPRS)
def test_printing_is_a_fixed_point(e: Any) -> None:
    src = to_source(e)
    assert to_source(parse_expr(src)) == src
