"""Timed requirements unrolled over K steps into ordinary expressions of the language.

Signal ``x`` at step ``t`` becomes the param ``x__t``; a timed requirement becomes one
boolean expression over those params (``unroll``), and a component becomes an ordinary
``Contract`` (``contract_at``) that the untimed checker decides, certifies and
explains like any other: the questions, cores, certificates and both solvers' re-checks
are the ones every requirement set gets.

Semantics (docs/language.md §14): finite traces of K steps with weak ends.  An
obligation that reaches past the last step, or past the end of its scope's interval, is
not broken there.  Everything is a safety property: a trace of K steps that breaks no
requirement is a prefix every longer run could start with, and a conflict within K
steps is a conflict of every longer run.

The forms that look ahead over an unbounded stretch (``always``, ``until``, ``before``)
are unrolled as right-nested chains shared by every trigger step (``A(s) = stop(s) or
(R(s) and A(s+1))``), so a requirement costs O(K) nodes per trigger, not O(K^2).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from derivative._ast import (
    BoolLit,
    Contract,
    Expr,
    ExprNode,
    Name,
    Obligation,
    ParamDecl,
    Unary,
    make_boolop,
)
from derivative._timed_ast import (
    Mode,
    TBecomes,
    TBool,
    TCond,
    THeld,
    TimedComponent,
    TimedReq,
    TNot,
    TNow,
    TOccurred,
    TPrevious,
)

TRUE: Expr = BoolLit(value=True)
FALSE: Expr = BoolLit(value=False)


def step_name(signal: str, t: int) -> str:
    """The param that holds ``signal`` at step ``t``."""
    return f"{signal}__{t}"


def _and(*parts: Expr) -> Expr:
    kept = [p for p in parts if p != TRUE]
    if any(p == FALSE for p in kept):
        return FALSE
    if not kept:
        return TRUE
    return kept[0] if len(kept) == 1 else make_boolop("and", kept)


def _or(*parts: Expr) -> Expr:
    kept = [p for p in parts if p != FALSE]
    if any(p == TRUE for p in kept):
        return TRUE
    if not kept:
        return FALSE
    return kept[0] if len(kept) == 1 else make_boolop("or", kept)


def _not(e: Expr) -> Expr:
    if e == TRUE:
        return FALSE
    if e == FALSE:
        return TRUE
    return Unary(op="not", operand=e)


def _implies(a: Expr, b: Expr) -> Expr:
    return _or(_not(a), b)


def _rename(e: Expr, names: Mapping[str, Callable[[], Expr]], bound: frozenset[str]) -> Expr:
    """``e`` with each free name of ``names`` replaced (a signal by its step's param, a mode
    by its condition at that step)."""
    if isinstance(e, Name):
        if e.id in names and e.id not in bound:
            return names[e.id]()
        return e
    inner_bound = bound
    var = getattr(e, "var", None)
    if isinstance(var, str):
        inner_bound = bound | {var}
    changed: dict[str, object] = {}
    for key, value in e.__dict__.items():
        if isinstance(value, ExprNode):
            # a binder's range/iterable is read outside its variable
            scope = bound if key in ("lo", "hi", "iterable") else inner_bound
            new = _rename(value, names, scope)  # type: ignore[arg-type]
            if new is not value:
                changed[key] = new
        elif isinstance(value, tuple) and value and isinstance(value[0], ExprNode):
            items = tuple(_rename(v, names, inner_bound) for v in value)
            if any(a is not b for a, b in zip(items, value, strict=True)):
                changed[key] = items
    if not changed:
        return e
    return type(e)(**{**e.__dict__, **changed})


def _const(e: Expr) -> Callable[[], Expr]:
    return lambda: e


@dataclass
class Unroller:
    """Reads a component's conditions at steps 0..depth-1."""

    component: TimedComponent
    depth: int
    _modes: dict[str, Mode] = field(init=False)
    _memo: dict[tuple[int, int], Expr] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._modes = {m.name: m for m in self.component.modes}

    # ---------------------------------------------------------------- conditions

    def names_at(self, t: int) -> dict[str, Callable[[], Expr]]:
        out: dict[str, Callable[[], Expr]] = {}
        for s in self.component.signals:
            out[s.name] = _const(Name(id=step_name(s.name, t)))
        for m in self.component.modes:
            out[m.name] = self._mode_at(m, t)
        return out

    def _mode_at(self, m: Mode, t: int) -> Callable[[], Expr]:
        return lambda: self.at(m.cond, t)

    def at(self, c: TCond, t: int) -> Expr:
        """Condition ``c`` read at step ``t`` (0 <= t < depth)."""
        key = (id(c), t)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        out = self._at(c, t)
        self._memo[key] = out
        return out

    def _at(self, c: TCond, t: int) -> Expr:
        if isinstance(c, TNow):
            return _rename(c.expr, self.names_at(t), frozenset())
        if isinstance(c, TNot):
            return _not(self.at(c.operand, t))
        if isinstance(c, TBool):
            parts = [self.at(p, t) for p in c.operands]
            return _and(*parts) if c.op == "and" else _or(*parts)
        if isinstance(c, TPrevious):
            return FALSE if t == 0 else self.at(c.operand, t - 1)
        if isinstance(c, THeld):
            if t < c.steps:
                return FALSE
            return _and(*(self.at(c.operand, s) for s in range(t - c.steps, t + 1)))
        if isinstance(c, TOccurred):
            return _or(*(self.at(c.operand, s) for s in range(max(0, t - c.steps), t + 1)))
        assert isinstance(c, TBecomes)
        if t == 0:
            return FALSE
        now, before = self.at(c.operand, t), self.at(c.operand, t - 1)
        return _and(now, _not(before)) if c.value else _and(_not(now), before)

    # ---------------------------------------------------------------- requirements

    def requirement(self, r: TimedReq) -> Expr:
        """The requirement over all K steps: every trigger step's obligation."""
        return _Req(self, r).unrolled()


class _Req:
    """One requirement's scope, triggers and timing over the steps."""

    def __init__(self, u: Unroller, r: TimedReq) -> None:
        self.u = u
        self.r = r
        self.k = u.depth
        self._chains: dict[tuple[str, int], Expr] = {}

    def applies(self, t: int) -> Expr:
        """The scope holds at step ``t``."""
        s = self.r.scope
        if s is None or s.kind == "only_in":
            return TRUE
        mode = self.u._modes[s.mode].cond
        if s.kind == "in":
            return self.u.at(mode, t)
        if s.kind == "not_in":
            return _not(self.u.at(mode, t))
        if s.kind == "before":
            return _not(_or(*(self.u.at(mode, x) for x in range(t + 1))))
        return _or(*(self.u.at(mode, x) for x in range(t)))  # after

    def cont(self, s: int) -> Expr:
        """The scope's interval, holding at ``s - 1``, still holds at ``s``."""
        scope = self.r.scope
        if scope is None or scope.kind in ("after", "only_in"):
            return TRUE
        return self.applies(s)

    def trigger(self, t: int) -> Expr:
        tr = self.r.trigger
        here = self.applies(t)
        first = TRUE if t == 0 else _not(self.applies(t - 1))
        if tr is None:
            return _and(here, first)
        c = self.u.at(tr.cond, t)
        if tr.kind == "when":
            return _and(here, c)
        edge = TRUE if t == 0 else _not(self.u.at(tr.cond, t - 1))
        return _and(here, c, _or(edge, first))

    def resp(self, s: int) -> Expr:
        return self.u.at(self.r.timing.response, s)

    def stop(self, s: int) -> Expr:
        assert self.r.timing.stop is not None
        return self.u.at(self.r.timing.stop, s)

    def chain(self, kind: str, s: int) -> Expr:
        """The unbounded look-ahead from step ``s`` on (shared by every trigger)."""
        if s >= self.k:
            return TRUE
        key = (kind, s)
        hit = self._chains.get(key)
        if hit is not None:
            return hit
        nxt = self.chain(kind, s + 1)
        if kind == "always":
            body = _and(self.resp(s), nxt)
        elif kind == "never":
            body = _and(_not(self.resp(s)), nxt)
        elif kind == "until":
            body = _or(self.stop(s), _and(self.resp(s), nxt))
        else:  # before
            body = _and(_not(self.stop(s)), _or(self.resp(s), nxt))
        out = _or(_not(self.cont(s)), body)
        self._chains[key] = out
        return out

    def bounded(self, t: int, last: int, step: Callable[[int, Expr], Expr]) -> Expr:
        """A chain over [t+1, last] that is TRUE past the trace end."""
        out: Expr = TRUE
        for s in range(min(last, self.k - 1), t, -1):
            out = _or(_not(self.cont(s)), step(s, out))
        return out

    def obligation(self, t: int) -> Expr:
        tm = self.r.timing
        k = tm.kind
        n = tm.steps or 0
        if k == "immediately":
            return self.resp(t)
        if k in ("always", "never"):
            here = self.resp(t) if k == "always" else _not(self.resp(t))
            return _and(here, self.chain(k, t + 1))
        if k == "until":
            return _or(self.stop(t), _and(self.resp(t), self.chain(k, t + 1)))
        if k == "before":
            return _and(_not(self.stop(t)), _or(self.resp(t), self.chain(k, t + 1)))
        if k == "next":
            return TRUE if t + 1 >= self.k else _or(_not(self.cont(t + 1)), self.resp(t + 1))
        if k == "for":
            rest = self.bounded(t, t + n, lambda s, nxt: _and(self.resp(s), nxt))
            return _and(self.resp(t), rest)
        if k == "within":
            if t + n >= self.k:
                return TRUE  # the deadline lies past the trace: not broken within it
            last: Expr = FALSE
            for s in range(t + n, t, -1):
                last = _or(_not(self.cont(s)), self.resp(s), last)
            return _or(self.resp(t), last)
        assert k == "after"
        if n == 0:
            return self.resp(t)
        if t + n >= self.k:
            tail: Expr = TRUE
        else:
            tail = _or(_not(self.cont(t + n)), self.resp(t + n))
        for s in range(min(t + n - 1, self.k - 1), t, -1):
            tail = _or(_not(self.cont(s)), _and(_not(self.resp(s)), tail))
        return _and(_not(self.resp(t)), tail)

    def unrolled(self) -> Expr:
        scope = self.r.scope
        if scope is not None and scope.kind == "only_in":
            mode = self.u._modes[scope.mode].cond
            return _and(*(_implies(self.resp(t), self.u.at(mode, t)) for t in range(self.k)))
        return _and(*(_implies(self.trigger(t), self.obligation(t)) for t in range(self.k)))


def contract_at(
    contract: Contract, component: TimedComponent, depth: int,
    fixed: Mapping[str, Expr] | None = None,
) -> Contract:
    """The untimed requirement set ``SPEC.BLOCK@DEPTH`` of ``component`` over ``depth``
    steps (the name tells a certificate's verifier what to unroll again): a param per
    signal and step, the spec's enums and consts, one requirement per timed requirement
    (same id, text and tags), and, for each name of ``fixed``, a requirement
    ``input.<name>`` pinning that param to its value (an input trace)."""
    u = Unroller(component, depth)
    decls: list[object] = [d for d in contract.declarations if d.kind in ("enum", "const")]
    for t in range(depth):
        for s in component.signals:
            decls.append(ParamDecl(name=step_name(s.name, t), type=s.type, file=s.file,
                                   line=s.line, column=s.column))
    obligations = [
        Obligation(id=r.id, kind="requirement", expr=u.requirement(r), tags=r.tags,
                   text=r.text, file=r.file, line=r.line, column=r.column)
        for r in component.requirements
    ]
    for name, value in (fixed or {}).items():
        obligations.append(Obligation(
            id=f"input.{name}", kind="requirement",
            expr=make_boolop("iff", (Name(id=name), value))
            if isinstance(value, BoolLit) else _equal(name, value),
        ))
    return Contract(
        name=f"{contract.name}.{component.name}@{depth}", version=contract.version,
        description=contract.description, tolerance=contract.tolerance, files=contract.files,
        declarations=tuple(decls),
        obligations=tuple(obligations),
    )


def _equal(name: str, value: Expr) -> Expr:
    from derivative._ast import Compare

    return Compare(ops=("==",), operands=(Name(id=name), value))
