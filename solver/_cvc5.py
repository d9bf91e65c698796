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

import re
import typing
from collections.abc import Mapping, Sequence
from typing import Any

import z3

from derivative._errors import OperationalTimeout
from derivative._record import record
from derivative._types import Ty
from derivative._values import Value

from . import _cvc5_process
from ._limits import CVC5_RLIMIT_DIVISOR, cvc5_limit, reached
from ._result import Limit

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

RLIMIT_DIVISOR = CVC5_RLIMIT_DIVISOR
"""cvc5 gets the question's Z3 rlimit / 20 of its own resource units per strategy
(``_limits.cvc5_limit``): 100,000 at the default ``--rlimit`` of a question within the
base, which took about a second on the string questions measured here (up to a few
seconds on harder ones), deterministically; the wall-clock ``--timeout`` is only the
safety net, as for Z3."""


@record
class Cvc5Answer:
    verdict: str
    """``sat``, ``unsat`` or ``unknown``."""
    values: dict[str, Value] | None = None
    reason: str = ""
    limits: tuple[Limit, ...] = ()
    """For ``unknown``: cvc5's resource limit, when that is what stopped it."""


def decide(
    assertions: Sequence[z3.ExprRef],
    variables: Mapping[str, tuple[Any, Ty]],
    rlimit: int | Limit,
    timeout_ms: int,
) -> Cvc5Answer:
    """cvc5's answer for the conjunction of ``assertions`` (see the module docstring),
    asked in the cvc5 child process (``_cvc5_process``: a crash is an ``unknown``).

    ``rlimit``: the question's Z3 limit (``Question.limit``, or a bare number of units);
    cvc5 gets a twentieth of it per strategy."""
    z3_limit = (
        rlimit
        if isinstance(rlimit, Limit)
        else Limit("rlimit", rlimit, "--rlimit", f"--rlimit {rlimit:,}")
    )
    limit = cvc5_limit(z3_limit)
    printer = z3.Solver(ctx=assertions[0].ctx) if assertions else z3.Solver()
    for a in assertions:
        printer.add(a)
    script = "(set-logic ALL)\n" + printer.to_smt2()
    if "(lambda " in script:
        # seq.map / seq.foldl of a list comprehension over a list of unknown length:
        # z3's own operations, which cvc5 does not read
        return Cvc5Answer("unknown", reason="cvc5: not asked (a comprehension over a list "
                          "of unknown length is z3's seq.map/seq.foldl)")
    script = _plain_recursive_calls(script)
    reasons: list[str] = []
    limits: tuple[Limit, ...] = ()
    for options in STRATEGIES:
        answer = _run(script, options, variables, limit, timeout_ms)
        if answer.verdict != "unknown":
            return answer
        reasons.append(answer.reason)
        limits = limits or answer.limits
    return Cvc5Answer("unknown", reason="cvc5: " + "; ".join(dict.fromkeys(reasons)), limits=limits)


_INDEXED_CALL = re.compile(r"\(_ (\|[^|]*\||[^\s()|]+) 0\)")


def _plain_recursive_calls(script: str) -> str:
    """Z3 prints a call of a recursive function (``sum``, ``sorted``, the text built-ins'
    definitions) as the indexed ``(_ f 0)``, which cvc5 does not read: spell it ``f``.
    Only the functions the script defines with ``define-funs-rec`` are touched, never an
    indexed operator of the theories (``(_ re.^ 0)``)."""
    if "(define-funs-rec" not in script:
        return script
    head = script[script.index("(define-funs-rec"):]
    defined = set(re.findall(r"\(\s*(\|[^|]*\||[^\s()|]+) \(\(", head))
    return _INDEXED_CALL.sub(
        lambda m: m.group(1) if m.group(1) in defined else m.group(0), script
    )


def _run(
    script: str,
    options: tuple[tuple[str, str], ...],
    variables: Mapping[str, tuple[Any, Ty]],
    limit: Limit,
    timeout_ms: int,
) -> Cvc5Answer:
    symbols = {name: str(term).strip("|") for name, (term, _) in variables.items()}
    reply = _cvc5_process.ask(
        script,
        options=[
            ("produce-models", "true"),
            ("seed", "0"),
            ("rlimit-per", str(limit.value)),
            ("tlimit-per", str(max(1, timeout_ms))),
            *options,
        ],
        symbols=list(symbols.values()),
        timeout_ms=timeout_ms,
    )
    if reply.timeout:  # the safety net, not the resource limit: no answer at all
        raise OperationalTimeout(
            f"cvc5 ran into its wall-clock safety limit of {timeout_ms / 1000:g} s before "
            "its deterministic resource limit (the machine is overloaded or cvc5 hangs); "
            "raise --timeout or run it again"
        )
    if reply.verdict in ("crashed", "error"):
        return Cvc5Answer("unknown", reason=reply.why)
    if reply.verdict == "unsat":
        return Cvc5Answer("unsat")
    if reply.verdict != "sat":
        why = reply.why.rsplit(".", 1)[-1]
        if why == "RESOURCEOUT":
            return Cvc5Answer("unknown", reason=reached(limit), limits=(limit,))
        return Cvc5Answer("unknown", reason=EXPLANATIONS.get(why, why.lower()))
    values: dict[str, Value] = {}
    try:
        for name, (_, ty) in variables.items():
            wire = reply.values.get(symbols[name])
            if wire is None:
                return Cvc5Answer("unknown", reason=f"cvc5's model does not name {name}")
            values[name] = typing.cast(Value, _cvc5_process.value_of(wire, ty))
    except (ValueError, TypeError, IndexError) as exc:
        return Cvc5Answer("unknown", reason=f"cvc5's model cannot be read: {exc}"[:300])
    return Cvc5Answer("sat", values)
