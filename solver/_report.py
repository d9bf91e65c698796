"""Renderers of a ``CheckResult``: the text report and ``derivative.check/v1`` JSON.

The text report is for the requirement author: every obligation is named by id,
``file:line``, its quoted text and ``source`` tag, and its expression, and each
conflict says in plain words why it conflicts.  It stays readable at any size: every
list in it (conflicts, their members, corrections, witness values and calls, undecided
questions and their ids, warnings and their members) shows at most ``SHOWN`` items and
counts the rest ("... and 164,862 more"), and a line of prose longer than ``LINE_LIMIT``
characters is cut the same way; the JSON document always lists everything.

The JSON document is exactly the one of docs/cli.md (more fields may be added, none
renamed).  The SARIF log is ``_sarif.py``'s.

Values are JSON-safe by the rules every derivative document follows
(``derivative._values.value_json``, numbers by ``derivative._numbers``): integers,
strings and booleans as themselves, dates ``"YYYY-MM-DD"``, reals as exact decimal
strings (``"p/q"`` where no finite decimal exists), enum members by name, lists as
arrays.
"""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from derivative._ast import Obligation
from derivative._numbers import number_source
from derivative._printer import to_source
from derivative._values import DictValue, EnumValue, TupleValue, Value, value_json

from ._result import CallWitness, CheckResult, Core, Finding, Witness

CHECK_FORMAT = "derivative.check/v1"

SHOWN = 20
"""The most items of one list a text report shows; the rest are counted (``--json``
lists them all)."""
LINE_LIMIT = 2_000
"""The longest line of prose (an explanation naming a thousand members) a text report
prints whole."""


# --------------------------------------------------------------------------- values


def value_text(v: object) -> str:
    """A value as the language writes it (for messages)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        from derivative._printer import quote

        return quote(v)
    if isinstance(v, int | Fraction | float):
        return number_source(v)
    if isinstance(v, _dt.date):
        return f'date("{v.isoformat()}")'
    if isinstance(v, EnumValue):
        return str(v)
    if isinstance(v, tuple | list):
        return "[" + ", ".join(value_text(x) for x in v) + "]"
    if v is None:
        return "none"
    if isinstance(v, TupleValue):
        inner = ", ".join(value_text(x) for x in v.items)
        return "(" + inner + ("," if len(v.items) == 1 else "") + ")"
    if isinstance(v, DictValue):
        return "{" + ", ".join(f"{value_text(k)}: {value_text(x)}" for k, x in v.entries) + "}"
    return str(v)


def _values(m: Mapping[str, Value] | None) -> dict[str, Any] | None:
    return None if m is None else {k: value_json(v) for k, v in m.items()}


# --------------------------------------------------------------------------- JSON


def clause_text(ob: Obligation) -> str:
    """The obligation as written in the language (``raises E when C`` for raises)."""
    if ob.kind == "raises":
        return f"raises {ob.exception} when {to_source(ob.expr)}"
    if ob.kind == "example" and ob.exception is not None:
        return f"{to_source(ob.expr)} raises {ob.exception}"
    return to_source(ob.expr)


def _member_json(ob: Obligation) -> dict[str, Any]:
    return {
        "id": ob.id,
        "kind": ob.kind,
        "owner": ob.owner,
        "file": ob.file,
        "line": ob.line,
        "text": ob.text,
        "tags": dict(ob.tags),
        "expr": clause_text(ob),
    }


def _call_json(cw: CallWitness) -> dict[str, Any]:
    return {
        "input": _values(cw.input),
        "result": value_json(cw.result),
        "raises": cw.raises,
        "method": cw.method,
    }


def _core_json(core: Core) -> dict[str, Any]:
    return {
        "ids": list(core.ids),
        "explanation": core.explanation,
        "kind": core.kind,
        "subject": core.subject,
        "members": [_member_json(m) for m in core.members],
        "witness_input": _values(core.witness_input),
        "minimal": core.minimal,
        "method": core.method,
    }


def _warning_json(w: Finding) -> dict[str, Any]:
    return {
        "kind": w.kind,
        "ids": list(w.ids),
        "message": w.message,
        "input": _values(w.input),
    }


def render_json(result: CheckResult) -> dict[str, Any]:
    """The ``derivative.check/v1`` document (docs/cli.md), as plain JSON data."""
    witness = None
    if result.witness is not None:
        w = result.witness
        witness = {
            "params": _values(w.params),
            "functions": {k: _call_json(v) for k, v in w.functions.items()},
            "systems": {
                s: {op: _call_json(cw) for op, cw in ops.items()} for s, ops in w.systems.items()
            },
        }
    certificate = result.certificate
    if certificate is not None and hasattr(certificate, "to_json"):
        certificate = certificate.to_json()
    doc = {
        "format": CHECK_FORMAT,
        "status": result.status,
        "witness": witness,
        "certificate": certificate,
        "cores": [_core_json(c) for c in result.cores],
        "corrections": [{"ids": list(c.ids), "subject": c.subject} for c in result.corrections],
        "warnings": [_warning_json(w) for w in result.warnings],
        "unknowns": [
            {
                "question": u.question,
                "ids": list(u.ids),
                "reason": u.reason,
                "hard": list(u.hard),
                "limits": [
                    {"name": x.name, "value": x.value, "flag": x.flag, "detail": x.detail}
                    for x in u.limits
                ],
            }
            for u in result.unknowns
        ],
        "reason": result.reason,
    }
    # Plain data, not validated per run (pydantic and the schema cost more than a small
    # check): the golden catalogue validates every report against ``CheckDocument`` and
    # holds the validated form equal to this one.
    return doc


# --------------------------------------------------------------------------- text


def _where(ob: Obligation) -> str:
    return f"{ob.file}:{ob.line}" if ob.file else f"line {ob.line}"


def _more(n: int, what: str = "more") -> str:
    return f"... and {n:,} {what} (--json lists them all)"


def _listed(items: Sequence[str], sep: str = ", ") -> str:
    """``items`` joined, the first ``SHOWN`` of them, with a count of the rest."""
    if len(items) <= SHOWN:
        return sep.join(items)
    return sep.join(items[:SHOWN]) + f"{sep}... and {len(items) - SHOWN:,} more"


def _clip(text: str) -> str:
    """``text`` whole up to ``LINE_LIMIT`` characters; else cut there, with a count."""
    if len(text) <= LINE_LIMIT:
        return text
    return (
        f"{text[:LINE_LIMIT]} ... ({len(text) - LINE_LIMIT:,} more characters; --json has it all)"
    )


def _rest(items: Sequence[object], lines: list[str], indent: str, what: str) -> None:
    if len(items) > SHOWN:
        lines.append(f"{indent}{_more(len(items) - SHOWN, what)}")


def _describe(ob: Obligation, indent: str = "    ") -> list[str]:
    head = f"{indent}{ob.id}  {_where(ob)}"
    source = ob.tags.get("source")
    if source:
        head += f"  [source: {source}]"
    if ob.text:
        head += f'  "{ob.text}"'
    return [_clip(head), f"{indent}    {_clip(clause_text(ob))}"]


def _members(members: Sequence[Obligation], indent: str) -> list[str]:
    """Each of the first ``SHOWN`` members described, and a count of the rest."""
    lines = [line for m in members[:SHOWN] for line in _describe(m, indent)]
    _rest(members, lines, indent, "more members")
    return lines


def _inputs(values: Mapping[str, Value]) -> str:
    return _listed([f"{k} = {value_text(v)}" for k, v in values.items()]) or "(no parameters)"


def render_text(result: CheckResult) -> str:
    """The human report (ends with a newline); long lists are cut (``SHOWN``)."""
    lines: list[str] = [f"status: {result.status}", f"reason: {_clip(result.reason)}"]
    if result.cores:
        lines.append("")
        lines.append("conflicts (minimal: dropping any one member removes the conflict):")
        lines.extend(_cores_text(result.cores))
    if result.corrections:
        lines.append("")
        lines.append("to restore consistency, relax one of these sets:")
        for c in result.corrections[:SHOWN]:
            lines.append(f"  - {_listed(c.ids, ' + ')}  ({c.subject})")
        _rest(result.corrections, lines, "  ", "more sets")
    if result.witness is not None:
        lines.append("")
        lines.append("witness:")
        lines.extend(_witness_text(result.witness))
    if result.unknowns:
        lines.append("")
        lines.append("undecided questions (never reported as feasible or infeasible):")
        for u in result.unknowns[:SHOWN]:
            ids = f" [{_listed(u.ids)}]" if u.ids else ""
            lines.append(f"  - {u.question}{ids}: {_clip(u.reason)}")
        _rest(result.unknowns, lines, "  ", "more undecided questions")
    if result.warnings:
        lines.append("")
        lines.append("warnings:")
        lines.extend(_warnings_text(result.warnings))
    return "\n".join(lines) + "\n"


def _cores_text(cores: Sequence[Core]) -> list[str]:
    lines: list[str] = []
    for i, core in enumerate(cores[:SHOWN], 1):
        label = core.kind.replace("_", " ")
        lines.append(f"  {i}. {label} in {core.subject}")
        if core.witness_input is not None:
            lines.append(f"     at input: {_inputs(core.witness_input)}")
        lines.extend(_members(core.members, "     "))
        lines.append(f"     why: {_clip(core.explanation)}")
        if core.method is not None:
            lines.append(f"     decided by: {core.method}")
        if not core.minimal:
            lines.append(
                "     note: Z3 could not confirm this core is the smallest one "
                "within the resource limit (raise --rlimit to try harder)"
            )
    _rest(cores, lines, "  ", "more conflicts")
    return lines


def _witness_text(w: Witness) -> list[str]:
    lines: list[str] = []
    if w.params:
        lines.append(f"  params: {_inputs(w.params)}")
    # a function always returns a value (a result None is the value none)
    calls = [_call_line(name, cw, function=True) for name, cw in w.functions.items()]
    calls += [
        _call_line(f"{system}.{op}", cw)
        for system, ops in w.systems.items()
        for op, cw in ops.items()
    ]
    lines.extend(calls[:SHOWN])
    _rest(calls, lines, "  ", "more calls")
    return lines


def _warnings_text(warnings: Sequence[Finding]) -> list[str]:
    """The first ``SHOWN`` warnings, then how many more of each kind."""
    lines: list[str] = []
    for w in warnings[:SHOWN]:
        lines.append(f"  {w.kind}: {_clip(w.message)}")
        lines.extend(_members(w.members, "      "))
    hidden = Counter(w.kind for w in warnings[SHOWN:])
    if hidden:
        kinds = ", ".join(f"{n:,} {kind}" for kind, n in hidden.items())
        lines.append(f"  {_more(sum(hidden.values()), f'more warnings: {kinds}')}")
    return lines


def _call_line(name: str, cw: CallWitness, function: bool = False) -> str:
    by = f"  [realizable: {cw.method}]" if cw.method is not None else ""
    if cw.raises is not None:
        return f"  {name}({_inputs(cw.input)}) raises {cw.raises}{by}"
    nothing = cw.result is None and not function
    shown = "(returns nothing)" if nothing else value_text(cw.result)
    return f"  {name}({_inputs(cw.input)}) -> {shown}{by}"
