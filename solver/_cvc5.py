"""A second decision procedure for quantified questions that Z3 leaves undecided.

Realizability asks whether some valid input has no acceptable result:
``pre(x) and forall r: not post(x, r)``.  Over integers and reals Z3 decides this
completely (quantifier elimination); over strings and lists its quantifier
instantiation usually gives up, even for ``len(result) == len(s) + 1 and
endswith(result, "!")``, which cvc5's counterexample-guided instantiation
(``cegqi-all``) proves in milliseconds.  So a question Z3 answered ``unknown`` is
printed as SMT-LIB (Z3's own printer, the exact assertions Z3 saw) and handed to cvc5
with a few instantiation strategies, each under a deterministic resource limit:

- ``unsat`` is a proof that no such input exists (the function is realizable); the
  caller still builds a concrete witness with Z3 and checks it with the evaluator;
- ``sat`` comes with cvc5's values for the question's variables, read back as language
  values by type; the caller must confirm them (at a fixed input the question is
  quantifier-free, and Z3 re-decides it) before it reports anything;
- anything else stays ``unknown`` with cvc5's reason appended to Z3's, except the
  wall-clock safety net (``tlimit-per``): that raises ``OperationalTimeout``, since the
  answer would depend on the machine's speed.

Nothing here is trusted on its own: an answer from this module is always re-derived or
re-checked by the caller before it reaches a report or a certificate.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from derivative._errors import OperationalTimeout
from derivative._types import TBool, TDate, TEnum, TInt, TList, TReal, TStr, Ty
from derivative._values import EnumValue, Value

__all__ = ["Cvc5Answer", "decide"]

STRATEGIES: tuple[tuple[tuple[str, str], ...], ...] = (
    (("cegqi-all", "true"),),
    (("mbqi", "true"),),
)
"""Option sets tried in order; the first decisive answer wins.  (Enumerative
instantiation answered "incomplete" on every string question measured here.)"""

EXPLANATIONS = {
    "RESOURCEOUT": "resource limit reached",
    "INCOMPLETE": "incomplete quantifier instantiation",
}
"""cvc5's reasons for ``unknown``, as reports word them.  ``TIMEOUT`` (the wall-clock
``tlimit-per``, a safety net) is not among them: it raises ``OperationalTimeout``."""

RLIMIT_DIVISOR = 20
"""cvc5 gets ``--rlimit / 20`` of its own resource units per strategy: 100,000 at the
default, which took about a second on the string questions measured here (up to a few
seconds on harder ones), deterministically; the wall-clock ``--timeout`` is only the
safety net, as for Z3."""


@dataclass(frozen=True)
class Cvc5Answer:
    verdict: str
    """``sat``, ``unsat`` or ``unknown``."""
    values: dict[str, Value] | None = None
    reason: str = ""


def decide(
    assertions: Sequence[z3.ExprRef],
    variables: Mapping[str, tuple[Any, Ty]],
    rlimit: int,
    timeout_ms: int,
) -> Cvc5Answer:
    """cvc5's answer for the conjunction of ``assertions`` (see the module docstring)."""
    try:
        import cvc5
    except ImportError:  # pragma: no cover - cvc5 is a dependency
        return Cvc5Answer("unknown", reason="cvc5 is not installed")
    printer = z3.Solver(ctx=assertions[0].ctx) if assertions else z3.Solver()
    for a in assertions:
        printer.add(a)
    script = "(set-logic ALL)\n" + printer.to_smt2()
    reasons: list[str] = []
    for options in STRATEGIES:
        answer = _run(cvc5, script, options, variables, rlimit, timeout_ms)
        if answer.verdict != "unknown":
            return answer
        reasons.append(answer.reason)
    return Cvc5Answer("unknown", reason="cvc5: " + "; ".join(dict.fromkeys(reasons)))


def _run(
    cvc5: Any,
    script: str,
    options: tuple[tuple[str, str], ...],
    variables: Mapping[str, tuple[Any, Ty]],
    rlimit: int,
    timeout_ms: int,
) -> Cvc5Answer:
    try:
        # cvc5 >= 1.2 wants a term manager; older releases make their own.
        manager = getattr(cvc5, "TermManager", None)
        solver = cvc5.Solver(manager()) if manager is not None else cvc5.Solver()
        solver.setOption("produce-models", "true")
        solver.setOption("seed", "0")
        solver.setOption("rlimit-per", str(max(1, rlimit // RLIMIT_DIVISOR)))
        solver.setOption("tlimit-per", str(max(1, timeout_ms)))
        for key, value in options:
            solver.setOption(key, value)
        parser = cvc5.InputParser(solver)
        parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, script, "question")
        symbols = parser.getSymbolManager()
        result = None
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            if str(command).startswith("(check-sat"):
                result = solver.checkSat()
            else:
                command.invoke(solver, symbols)
    except Exception as exc:  # a construct cvc5 does not take, a bad option
        return Cvc5Answer("unknown", reason=f"{type(exc).__name__}: {exc}"[:300])
    if result is None:
        return Cvc5Answer("unknown", reason="no check-sat in the script")
    if result.isUnsat():
        return Cvc5Answer("unsat")
    if not result.isSat():
        why = str(result.getUnknownExplanation()).rsplit(".", 1)[-1]
        if why == "TIMEOUT":  # the safety net, not the resource limit: no answer at all
            raise OperationalTimeout(
                f"cvc5 ran into its wall-clock safety limit of {timeout_ms / 1000:g} s before "
                "its deterministic resource limit (the machine is overloaded or cvc5 hangs); "
                "raise --timeout or run it again"
            )
        return Cvc5Answer("unknown", reason=EXPLANATIONS.get(why, why.lower()))
    values: dict[str, Value] = {}
    try:
        declared = {t.getSymbol(): t for t in symbols.getDeclaredTerms() if t.hasSymbol()}
        for name, (term, ty) in variables.items():
            symbol = str(term)
            found = declared.get(symbol) or declared.get(symbol.strip("|"))
            if found is None:
                return Cvc5Answer("unknown", reason=f"cvc5's model does not name {name}")
            values[name] = _value(solver.getValue(found), ty)
    except Exception as exc:  # an API this cvc5 lacks, a value of no known shape
        return Cvc5Answer("unknown", reason=f"cvc5's model cannot be read: {exc}"[:300])
    return Cvc5Answer("sat", values)


def _value(term: Any, ty: Ty) -> Value:
    """A cvc5 model value as the language's runtime value of type ``ty``."""
    if isinstance(ty, TBool) and term.isBooleanValue():
        return bool(term.getBooleanValue())
    if isinstance(ty, TInt) and term.isIntegerValue():
        return int(term.getIntegerValue())
    if isinstance(ty, TReal) and term.isRealValue():
        return Fraction(term.getRealValue())
    if isinstance(ty, TStr) and term.isStringValue():
        return str(term.getStringValue())
    if isinstance(ty, TDate) and term.isIntegerValue():
        return _dt.date.fromordinal(int(term.getIntegerValue()))
    if isinstance(ty, TEnum):
        # Constants are named ``Enum.member`` (``Enum!2.member`` when names clash).
        member = str(term).strip("|").rsplit(".", 1)[-1]
        if member in ty.members:
            return EnumValue(ty.name, member)
    if isinstance(ty, TList) and term.isSequenceValue():
        return tuple(_value(t, ty.elem) for t in term.getSequenceValue())
    raise ValueError(f"cannot read {term} as {ty.show()}")
