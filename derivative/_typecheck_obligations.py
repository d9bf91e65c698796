"""Type checks of obligations: what each kind of clause sees, and the shape of examples.

Requirements see params and consts; function and operation clauses their parameters
and consts (``result`` in ``ensures`` only); invariants consts and ``count(...)``;
examples consts only, their CALL being the owning function itself with literal or
const arguments, each of its parameter's type and, evaluated, inside its refinement.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping
from typing import Final

from derivative._ast import Call, Compare, Expr, Obligation
from derivative._eval import EvaluationError, evaluate
from derivative._typecheck_base import Ctx, Forbidden, is_bool, plural
from derivative._typecheck_decls import Declarations
from derivative._typecheck_expr import ExprChecker
from derivative._typecheck_values import coerce_value, show_value, value_fits
from derivative._typeinfo import Signature
from derivative._types import TNone, Ty, assignable, comparable
from derivative._values import UNDEFINED

_CLAUSE_WHAT: Final = {
    "requires": "a requires clause",
    "ensures": "an ensures clause",
    "raises": "the condition of raises ... when",
}


def check_obligation(d: Declarations, ob: Obligation) -> None:
    """Type-check one obligation against the resolved declarations of ``d``."""
    if ob.kind == "requirement":
        _condition(d, ob, _requirement_ctx(d, ob), "a requirement")
        return
    if ob.kind == "invariant":
        ctx = _invariant_ctx(d, ob)
        if ctx is not None:
            _condition(d, ob, ctx, "an invariant")
        return
    owner = ob.owner or ""
    sig = d.info.signatures.get(owner)
    if sig is None:
        d.error(
            f"{ob.kind} clause of unknown function or operation {owner!r}",
            ob.file,
            ob.line,
            ob.column,
        )
        return
    if ob.kind == "example":
        check_example(d, ob, sig)
        return
    ctx = _clause_ctx(d, ob, owner, sig)
    if ob.kind == "raises" and ob.exception is not None:
        d.exception_name(ob.exception, ob.file, ob.line, ob.column)
    _condition(d, ob, ctx, _CLAUSE_WHAT[ob.kind])


def _requirement_ctx(d: Declarations, ob: Obligation) -> Ctx:
    return Ctx(
        file=ob.file,
        names=d.requirement_names(),
        line=ob.line,
        column=ob.column,
        result_error="`result` is only allowed in ensures clauses (a requirement has no result)",
    )


def _invariant_ctx(d: Declarations, ob: Obligation) -> Ctx | None:
    system = d.systems.get(ob.owner or "")
    if system is None:
        d.error(f"invariant of unknown system {ob.owner!r}", ob.file, ob.line, ob.column)
        return None
    return Ctx(
        file=ob.file,
        names=d.info.const_types,
        system=system,
        count_allowed=True,
        forbidden=Forbidden(
            d.param_decls,
            "the param {name} cannot be used in an invariant",
            "params belong to the requirement set; declare {name} const",
        ),
        line=ob.line,
        column=ob.column,
        result_error="`result` is only allowed inside count(OP where ...) in an invariant",
    )


def _clause_ctx(d: Declarations, ob: Obligation, owner: str, sig: Signature) -> Ctx:
    """What a ``requires``, ``ensures`` or ``raises`` clause of ``owner`` sees."""
    names: Mapping[str, Ty] = ChainMap({n: t for n, t, _ in sig.params}, d.info.const_types)
    ctx = Ctx(
        file=ob.file,
        names=names,
        forbidden=Forbidden(
            d.param_decls,
            "the param {name} cannot be used in a function or operation clause",
            "params belong to the requirement set; pass {name} in as an argument "
            "or declare it const",
        ),
        line=ob.line,
        column=ob.column,
    )
    if ob.kind == "ensures":
        if isinstance(sig.returns, TNone):
            ctx.result_error = f"`result` has no value: {owner} returns none"
        else:
            ctx.result = sig.returns
        return ctx
    what = "operation" if "." in owner else "function"
    ctx.result_error = (
        f"`result` is only allowed in ensures clauses; a {ob.kind} clause of a {what} "
        "is decided before it returns"
    )
    return ctx


def _condition(d: Declarations, ob: Obligation, ctx: Ctx, what: str) -> None:
    n_errors = len(d.state.errors)
    t = ExprChecker(d.state, ctx).check(ob.expr)
    if len(d.state.errors) == n_errors and not is_bool(t):
        node = ob.expr
        line, col = (node.line, node.col) if node.line else (ob.line, ob.column)
        d.error(f"{what} must be a bool condition, not {t.show()}", ob.file, line, col)


# --------------------------------------------------------------------------- examples


class _Example:
    """One example being checked: its parts, its checker and where its errors point."""

    def __init__(self, d: Declarations, ob: Obligation, sig: Signature) -> None:
        self.d = d
        self.ob = ob
        self.sig = sig
        self.owner = ob.owner or ""
        self.bare = self.owner.rsplit(".", 1)[-1]
        self.value: Expr | None = None
        self.call: Expr = ob.expr
        if ob.exception is None and isinstance(ob.expr, Compare) and ob.expr.ops == ("==",):
            self.call, self.value = ob.expr.operands
        ctx = Ctx(
            file=ob.file,
            names=d.info.const_types,
            line=ob.line,
            column=ob.column,
            result_error="`result` cannot appear in an example; compare the call with "
            "the expected value",
            forbidden=Forbidden(
                d.param_decls,
                "an example cannot use the param {name}",
                "examples use literals and constants",
            ),
        )
        self.checker = ExprChecker(d.state, ctx)

    def error(self, message: str, node: Expr, hint: str | None = None) -> None:
        line, col = (node.line, node.col) if node.line else (self.ob.line, self.ob.column)
        self.d.error(message, self.ob.file, line, col, hint)

    def typed(self, node: Expr) -> Ty | None:
        """The type of ``node``, or None if checking it reported an error."""
        n_errors = len(self.d.state.errors)
        t = self.checker.check(node)
        return None if len(self.d.state.errors) > n_errors else t


def check_example(d: Declarations, ob: Obligation, sig: Signature) -> None:
    """``CALL == VALUE`` / ``CALL raises E``, CALL calling the owner (an operation by its
    bare name) with arguments of its parameters' types, VALUE of its return type."""
    if ob.exception is not None:
        d.exception_name(ob.exception, ob.file, ob.line, ob.column)
    ex = _Example(d, ob, sig)
    call = ex.call
    if not isinstance(call, Call) or (ob.exception is None and ex.value is None):
        ex.error("an example is `CALL == VALUE` or `CALL raises ExceptionName`", ob.expr)
        return
    if call.func != ex.bare:
        _wrong_callee(ex, call)
        return
    _example_args(ex, call)
    if ex.value is not None:
        _example_value(ex, ex.value)


def _wrong_callee(ex: _Example, call: Call) -> None:
    d = ex.d
    if call.func in d.functions or any(op.name == call.func for op in d.operations.values()):
        message = f"an example of {ex.owner} must call {ex.bare}, not {call.func}"
    else:
        message = f"an example of {ex.owner} must call {ex.bare}; {call.func!r} is unknown"
    ex.error(message, call, f"write {ex.bare}(...)")
    for a in call.args:
        ex.checker.check(a)
    if ex.value is not None:
        ex.checker.check(ex.value)


def _example_args(ex: _Example, call: Call) -> None:
    params = ex.sig.params
    if len(call.args) != len(params):
        ex.error(
            f"{ex.bare}() takes {plural(len(params), 'argument')} ({len(call.args)} given)",
            call,
            f"parameters: {', '.join(n for n, _, _ in params)}" if params else None,
        )
    for arg, (pname, pty, _) in zip(call.args, params, strict=False):
        t = ex.typed(arg)
        if t is None:
            continue
        if not assignable(pty, t):
            ex.error(f"argument {pname!r} of {ex.bare} is {pty.show()}, not {t.show()}", arg)
            continue
        try:
            v = evaluate(arg, {}, ex.d.info.const_values)
        except EvaluationError:
            continue  # a const whose own error was reported
        if v is UNDEFINED:
            ex.error(f"argument {pname!r} of {ex.bare} is undefined", arg)
        elif not value_fits(coerce_value(v, pty), pty):  # type: ignore[arg-type]
            ex.error(
                f"argument {pname!r} of {ex.bare} = {show_value(v)} is outside its type "
                f"{pty.show()}",
                arg,
            )
    for arg in call.args[len(params) :]:
        ex.checker.check(arg)


def _example_value(ex: _Example, value: Expr) -> None:
    t = ex.typed(value)
    if t is None:
        return
    returns = ex.sig.returns
    if isinstance(returns, TNone):
        ex.error(
            f"{ex.owner} returns none; its examples can only be `{ex.bare}(...) raises E`", value
        )
    elif not (assignable(returns, t) or comparable(returns, t)):
        ex.error(f"{ex.owner} returns {returns.show()}, but the example expects {t.show()}", value)
