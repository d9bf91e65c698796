"""The cvc5 child process: reads questions as JSON lines, answers each as a JSON line.

Run by path (``python -I solver/_cvc5_child.py``), never imported by the project: it uses
only the standard library and cvc5, so that a segmentation fault inside cvc5 (it has
crashed on quantified string questions) kills this process and not ``check``, ``run`` or
``build``. ``_cvc5_process`` starts it, restarts it after a crash, and turns a crash into
an ``unknown`` answer.

A request: ``{"script": SMT-LIB text, "options": [[key, value], ...], "logic": "ALL" or
null, "symbols": [name, ...]}``; every ``check-sat`` in the script is skipped and one
check is made after all its commands. The answer: ``{"verdict": "sat"|"unsat"|"unknown",
"why": cvc5's unknown explanation, "values": {name: wire value}}`` where a wire value is
``["b", bool]``, ``["i", decimal text]``, ``["q", "n/d"]``, ``["s", text]``, ``["seq",
[values]]`` or ``["t", the term printed]``; or ``{"error": text}`` for a script cvc5 does
not take.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from typing import Any


def encode(term: Any) -> list[Any]:
    """A model value as wire data, by the term's own kind (the parent reads it by type)."""
    if term.isBooleanValue():
        return ["b", bool(term.getBooleanValue())]
    if term.isIntegerValue():
        return ["i", str(term.getIntegerValue())]
    if term.isRealValue():
        value = Fraction(term.getRealValue())
        return ["q", f"{value.numerator}/{value.denominator}"]
    if term.isStringValue():
        return ["s", str(term.getStringValue())]
    if term.isSequenceValue():
        return ["seq", [encode(t) for t in term.getSequenceValue()]]
    return ["t", str(term)]


def answer(cvc5: Any, request: dict[str, Any]) -> dict[str, Any]:
    """One question decided (see the module docstring)."""
    manager = getattr(cvc5, "TermManager", None)
    tm = manager() if manager is not None else None
    solver = cvc5.Solver(tm) if tm is not None else cvc5.Solver()
    for key, value in request.get("options", []):
        solver.setOption(str(key), str(value))
    if request.get("logic"):
        solver.setLogic(str(request["logic"]))
    symbols = cvc5.SymbolManager(tm) if tm is not None else cvc5.SymbolManager(solver)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, str(request["script"]), "question")
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        if not str(command).startswith("(check-sat"):
            command.invoke(solver, symbols)
    result = solver.checkSat()
    if result.isUnsat():
        return {"verdict": "unsat"}
    if not result.isSat():
        return {"verdict": "unknown", "why": str(result.getUnknownExplanation())}
    declared: dict[str, Any] = {}
    for t in symbols.getDeclaredTerms():
        name = t.getSymbol() if t.hasSymbol() else str(t)
        declared[name.strip("|")] = t
    values = {}
    for name in request.get("symbols", []):
        found = declared.get(str(name).strip("|"))
        if found is not None:
            values[name] = encode(solver.getValue(found))
    return {"verdict": "sat", "values": values}


def main() -> None:
    import cvc5

    for line in sys.stdin:
        try:
            reply = answer(cvc5, json.loads(line))
        except Exception as exc:  # a construct cvc5 does not take, a bad option
            reply = {"error": f"{type(exc).__name__}: {exc}"[:300]}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
