"""Question 3, ``contradicting_example``: can an example hold together with its function's clauses?

Asked at the example's input: the inputs are variables that the example pins to its
arguments, so a requires or raises clause alone stays satisfiable and every core
contains the example.  A result example needs every raises condition false and the
ensures true with the call standing for ``result``; a raises example needs a raises
clause of a related exception to hold.
"""

from __future__ import annotations

import z3

from derivative._ast import Call, Compare, Obligation
from derivative._builtins import is_builtin
from derivative._eval import EvaluationLimitError
from derivative._values import Value, _Undefined
from derivative._walk import free_names as names_of_expr
from derivative._walk import walk

from ._context import CallScope, Clauses, Ctx
from ._cores import add_cores
from ._decode import from_model
from ._encode import Encoder
from ._exceptions import is_subclass
from ._question import Answer, CoreResult, Question, names_of
from ._scope import Owner
from ._terms import Term, coerce, var
from ._wording import named, series, values_text
from ._z3util import Unsupported, Z, conj, ctx, disj, true


def _call_args(ex: Obligation) -> Call | None:
    """The call of the owner in an example (``f(args) == V`` or ``f(args) raises E``)."""
    calls = [n for n in walk(ex.expr) if isinstance(n, Call) and not is_builtin(n.func)]
    if len(calls) != 1:
        return None
    return calls[0]


def example(ctx: Ctx, cl: Clauses, ex: Obligation) -> bool:
    """Question 3 for one example; False if it found a conflict or could not decide."""
    # Z3 objects stay in the locals and closures they had before the split
    # (``_context``: frame layout matters).
    owner = cl.owner
    call = _call_args(ex)
    if call is None or call.func not in owner.call_names or len(call.args) != len(owner.params):
        ctx.unknown(ex.id, [ex], "the example does not call its function exactly once")
        return False
    const_enc = ctx.encoder({})
    # The inputs are variables and the example pins them to its arguments: so a requires
    # or raises clause alone is satisfiable, and the example is always part of a core.
    inputs = {name: var(name, ty) for name, ty, _ in owner.params}
    try:
        arg_terms = [const_enc.encode(a) for a in call.args]
        pinned = [
            inputs[name].value == coerce(t, ty)
            for (name, ty, _), t in zip(owner.params, arg_terms, strict=True)
        ]
        arg_values = {
            name: Term(coerce(t, ty), true(), ty)
            for (name, ty, _), t in zip(owner.params, arg_terms, strict=True)
        }
    except Unsupported as exc:
        ctx.unknown(ex.id, [ex], f"cannot encode the example's arguments: {exc}")
        return False
    args_defined = conj(*[t.defined for t in arg_terms], *pinned)
    result = var("result", owner.returns) if owner.has_result else None
    scope = CallScope(inputs, result)
    enc = ctx.encoder(scope.env)

    def hook(node: Call, args: list[Term]) -> Term | None:
        return _call_term(node, owner, result, args_defined)

    ex_enc = ctx.encoder({}, hook)
    raises_example = ex.exception is not None
    try:
        witness = {n: _const_value(t) for n, t in arg_values.items()}
    except Unsupported as exc:
        ctx.unknown(ex.id, [ex], f"cannot evaluate the example's arguments: {exc}")
        return False
    raises_for: dict[str, Z] = {}

    def build(ob: Obligation) -> Z:
        return _formula(ctx, cl, ex, ob, raises_example, enc, ex_enc, args_defined, raises_for)

    obligations = [ex, *cl.requires]
    if not raises_example:
        obligations += [*cl.raises, *cl.ensures]
    everything = frozenset(scope.variables())

    def names(ob: Obligation) -> frozenset[str]:
        # The example pins every input (and reads the result): it shares them all.
        return everything if ob is ex else names_of(ob)

    q = ctx.question(ex.id, obligations, build, scope.background(), scope.variables(), names)
    if not any(m.ob is ex for m in q.members):
        ctx.unknown(ex.id, [ex], q.unencodable[0][1] if q.unencodable else "cannot encode")
        return False
    ans = q.check()
    if ans.verdict != "unsat":
        if (
            (ans.verdict != "sat" or q.unencodable)
            and not raises_example
            and _holds_when_evaluated(ctx, cl, ex, call, witness)
        ):
            return True
        return _not_conflicting(ctx, ex, q, ans, obligations)
    # The example must take part: clauses that conflict at its input on their own are
    # a precondition or realizability problem, found (and certified) by those questions.
    ensures_ids = {o.id for o in cl.ensures}
    at_input = [args_defined]
    ens_only = [m for m in q.members if m.ob.id in ensures_ids]
    call_ok = [m for m in q.members if m.ob is not ex and m.ob.id not in ensures_ids]
    if (
        q.check(ens_only, at_input).verdict == "unsat"
        and q.check(call_ok, at_input).verdict == "sat"
    ):
        return True

    def explain(r: CoreResult) -> str:
        return _explain(r, ex, owner, witness, raises_example)

    add_cores(
        ctx,
        q,
        "contradicting_example",
        owner.name,
        explain,
        witness_input=witness,
        require=ex,
        at_input=at_input,
    )
    return False


def _holds_when_evaluated(
    ctx: Ctx, cl: Clauses, ex: Obligation, call: Call, witness: dict[str, Value]
) -> bool:
    """Whether the example holds by plain evaluation: a concrete question is concrete.

    ``f(args) == V`` with every argument and ``V`` closed fixes the input and the result,
    so the reference evaluator decides every clause there; when each requires and ensures
    is true and each raises condition false, ``result = V`` is a witness and the question
    is answered, whatever the solver made of it (quantifiers over concrete lists ran Z3 into
    its resource limit). A false or undefined clause decides nothing here: a conflict is
    only ever reported with the solver's core and certificate.
    """
    expr = ex.expr
    if not isinstance(expr, Compare) or expr.ops != ("==",) or len(expr.operands) != 2:
        return False
    left, right = expr.operands
    other = right if left is call else left if right is call else None
    if other is None or names_of_expr(other) - set(ctx.evaluator.consts):
        return False
    try:
        expected = ctx.evaluator.eval(other, {})
        if isinstance(expected, _Undefined):
            return False
        env = {**witness, "result": expected}
        return all(
            ctx.evaluator.holds(o.expr, env) is True for o in (*cl.requires, *cl.ensures)
        ) and all(ctx.evaluator.holds(o.expr, env) is False for o in cl.raises)
    except (EvaluationLimitError, ArithmeticError, ValueError):
        return False


def _call_term(node: Call, owner: Owner, result: Term | None, args_defined: Z) -> Term | None:
    """The example's call of its function stands for ``result`` (defined at its input)."""
    if node.func in owner.call_names and result is not None:
        return Term(result.value, args_defined, result.ty)
    return None


def _formula(
    ctx: Ctx,
    cl: Clauses,
    ex: Obligation,
    ob: Obligation,
    raises_example: bool,
    enc: Encoder,
    ex_enc: Encoder,
    args_defined: Z,
    raises_for: dict[str, Z],
) -> Z:
    """What ``ob`` asserts in the question of the example ``ex``."""
    if ob is ex:
        if raises_example:
            related = [
                enc.encode(r.expr).holds
                for r in cl.raises
                if r.exception is not None
                and ex.exception is not None
                and (
                    is_subclass(r.exception, ex.exception, ctx.exceptions)
                    or is_subclass(ex.exception, r.exception, ctx.exceptions)
                )
            ]
            return conj(args_defined, disj(*related))
        return conj(args_defined, ex_enc.encode(ob.expr).holds)
    if ob.kind == "raises":
        # A result example returns normally: every raises condition must be false.
        raises_for[ob.id] = enc.encode(ob.expr).holds
        return z3.Not(raises_for[ob.id])
    return enc.encode(ob.expr).holds


def _not_conflicting(
    ctx: Ctx, ex: Obligation, q: Question, ans: Answer, obligations: list[Obligation]
) -> bool:
    """A sat or undecided example question: True if the example holds (nothing left out)."""
    if ans.verdict == "sat":
        if q.unencodable:
            ctx.unknown(ex.id, [o for o, _ in q.unencodable], q.unencodable[0][1])
            return False
        return True
    ctx.unknown(ex.id, obligations, ans.reason, limits=ans.limits)
    return False


def _explain(
    r: CoreResult, ex: Obligation, owner: Owner, witness: dict[str, Value], raises_example: bool
) -> str:
    """The explanation of an example's core."""
    at = values_text(witness)
    others = [m.ob for m in r.members if m.ob is not ex]
    if ex not in [m.ob for m in r.members]:
        return (
            f"At the input {at}, {series([named(o) for o in others])} cannot all hold "
            f"(the example {ex.id} is not even needed)."
        )
    if raises_example and not others:
        return (
            f"The example {named(ex)} says the call raises {ex.exception}, but at the "
            f"input {at} no raises clause of {owner.name} for {ex.exception} (or a related "
            "exception) holds, so the call must return normally."
        )
    if not others:
        return (
            f"The example {named(ex)} cannot hold on its own: its call or its expected "
            "value is undefined."
        )
    parts = []
    for o in others:
        if o.kind == "raises":
            parts.append(f"{named(o)}, which holds there, so the call must raise")
        elif o.kind == "requires":
            parts.append(f"{named(o)}, which makes that input invalid")
        else:
            parts.append(named(o))
    return f"At the input {at}, the example {named(ex)} contradicts {series(parts)}."


def _const_value(t: Term) -> Value:
    """The value of a closed (constant) term."""
    s = z3.Solver(ctx=ctx())
    out = z3.FreshConst(t.value.sort(), "arg")
    s.add(out == t.value)
    if s.check() != z3.sat:
        raise Unsupported("the example's arguments have no value")
    return from_model(s.model(), out, t.ty)
