"""Whether a subset of a function's ensures is realizable: the oracle of ``--all-cores``.

A set S of ensures is a conflict when some valid, normal input has no result that
satisfies all of S (``∃ input ∀ result: not S``).  ``Oracle.decide`` asks exactly that
for any S, by the routes ``_realize`` takes for the whole set: quantifier-free when
there is no result or S pins ``result == E``, else quantifier elimination (pure
arithmetic), Z3's instantiation, then cvc5.  (The length cases and result terms of
``_unroll`` and ``_candidates`` decide whole functions only; a subset they alone
could decide stays ``unknown`` here, and the enumeration says it stopped.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import z3

from derivative._ast import Compare, Expr, Obligation, Result
from derivative._record import record
from derivative._types import TBool, TDate, TEnum, TInt, TReal, Ty
from derivative._values import Value
from derivative._walk import walk

from . import _cvc5
from ._context import Clauses, Ctx, Realizing
from ._question import Answer, Question
from ._result import Limit, Method
from ._terms import coerce, intrinsic_domain
from ._z3util import Unsupported, conj


@record
class Decision:
    """The oracle's answer for one subset: ``conflict`` (with the input at which no
    result satisfies it), ``realizable``, or ``unknown`` (with the reason and limits)."""

    verdict: Literal["conflict", "realizable", "unknown"]
    input: dict[str, Value] | None = None
    method: Method | None = None
    reason: str = ""
    limits: tuple[Limit, ...] = ()


class Oracle:
    """Realizability of subsets of ``cl.ensures``, in one incremental question."""

    def __init__(self, ctx: Ctx, cl: Clauses, rz: Realizing) -> None:
        self.ctx = ctx
        self.sc = rz.sc
        self.q = Question(
            f"{cl.owner.name} realizability",
            [],
            [*rz.sc.background(False, origin=True), *rz.valid, rz.no_raise],
            rz.sc.variables(False),
            ctx.options.rlimit,
            ctx.options.timeout_ms,
        )
        self.holds = {id(o): rz.enc.encode(o.expr).holds for o in cl.ensures}
        self.enc = rz.enc
        self.calls = 0
        """How many subsets were decided (for the benchmark and the docs' cost figures)."""

    def decide(self, subset: Sequence[Obligation]) -> Decision:
        """Whether some valid, normal input has no result satisfying all of ``subset``."""
        self.calls += 1
        ens = conj(*[self.holds[id(o)] for o in subset])
        sc = self.sc
        if sc.result is None:
            return self._read(self.q.check(extra=[z3.Not(ens)]), "quantifier-free")
        pin = next((p for p in (pinned(o) for o in subset) if p is not None), None)
        if pin is not None:
            try:
                t = self.enc.encode(pin)
                fixed = z3.Implies(t.defined, sc.result.value == coerce(t, sc.result.ty))
            except Unsupported as exc:
                return Decision("unknown", reason=f"cannot encode: {exc}")
            extra = [intrinsic_domain(sc.result.value, sc.result.ty), fixed, z3.Not(ens)]
            return self._read(self.q.check(extra=extra), "quantifier-free")
        r = sc.result.value
        quantified = [z3.ForAll([r], z3.Implies(intrinsic_domain(r, sc.result.ty), z3.Not(ens)))]
        types = [sc.result.ty, *(t for _, t in self.q.variables.values())]
        method: Method = "z3"
        if arithmetic(types):
            method = "z3 quantifier elimination"
            ans = self.q.check_eliminating(quantified)
            if ans.verdict == "unknown":
                second = self.q.check(extra=quantified)
                if second.verdict != "unknown":
                    ans, method = second, "z3"
        else:
            ans = self.q.check(extra=quantified)
        if ans.verdict != "unknown":
            return self._read(ans, method)
        alt = _cvc5.decide(
            [*self.q.background, *quantified],
            self.q.variables,
            self.q.limit,
            self.ctx.options.timeout_ms,
        )
        if alt.verdict == "unsat":
            return Decision("realizable", method="cvc5")
        if alt.verdict == "sat" and alt.values is not None:
            return Decision("conflict", dict(alt.values), "cvc5")
        return Decision(
            "unknown", reason=f"{ans.reason}; {alt.reason}", limits=(*ans.limits, *alt.limits)
        )

    def _read(self, ans: Answer, method: Method) -> Decision:
        if ans.verdict == "unsat":
            return Decision("realizable", method=method)
        if ans.verdict == "unknown":
            return Decision("unknown", reason=ans.reason, limits=ans.limits)
        try:
            return Decision("conflict", self.q.values(ans.model), method)
        except Unsupported as exc:
            return Decision("unknown", reason=str(exc))


def arithmetic(types: list[Ty]) -> bool:
    """Pure arithmetic (ints, reals, dates, bools, enums) is decided completely by
    quantifier elimination; everything else goes to the default solver first."""
    return all(isinstance(t, TInt | TReal | TBool | TDate | TEnum) for t in types)


def pinned(ob: Obligation) -> Expr | None:
    """``E`` when the ensures is ``result == E`` (or ``E == result``) with no ``result`` in E."""
    e = ob.expr
    if isinstance(e, Compare) and e.ops == ("==",):
        a, b = e.operands
        for side, other in ((a, b), (b, a)):
            if isinstance(side, Result) and not any(isinstance(n, Result) for n in walk(other)):
                return other
    return None
