"""Renderers of a ``CheckResult``: the text report and ``derivative.check/v1`` JSON.

The text report is for the requirement author: every obligation is named by id,
``file:line``, its quoted text and ``source`` tag, and its expression, and each
conflict says in plain words why it conflicts.  The JSON document is exactly the
one of docs/cli.md (more fields may be added, none renamed).  The SARIF log is
``_sarif.py``'s.

Values are JSON-safe by the rules every derivative document follows
(``derivative._values.value_json``, numbers by ``derivative._numbers``): integers,
strings and booleans as themselves, dates ``"YYYY-MM-DD"``, reals as exact decimal
strings (``"p/q"`` where no finite decimal exists), enum members by name, lists as
arrays.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from derivative._ast import Obligation
from derivative._numbers import number_source
from derivative._printer import to_source
from derivative._values import EnumValue, Value, value_json

from ._result import CallWitness, CheckResult, Core, Finding

CHECK_FORMAT = "derivative.check/v1"


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


def _describe(ob: Obligation, indent: str = "    ") -> list[str]:
    head = f"{indent}{ob.id}  {_where(ob)}"
    source = ob.tags.get("source")
    if source:
        head += f"  [source: {source}]"
    if ob.text:
        head += f'  "{ob.text}"'
    return [head, f"{indent}    {clause_text(ob)}"]


def _inputs(values: Mapping[str, Value]) -> str:
    return ", ".join(f"{k} = {value_text(v)}" for k, v in values.items()) or "(no parameters)"


def render_text(result: CheckResult) -> str:
    """The human report (ends with a newline)."""
    lines: list[str] = [f"status: {result.status}", f"reason: {result.reason}"]
    if result.cores:
        lines.append("")
        lines.append("conflicts (minimal: dropping any one member removes the conflict):")
        for i, core in enumerate(result.cores, 1):
            label = core.kind.replace("_", " ")
            lines.append(f"  {i}. {label} in {core.subject}")
            if core.witness_input is not None:
                lines.append(f"     at input: {_inputs(core.witness_input)}")
            for m in core.members:
                lines.extend(_describe(m, "     "))
            lines.append(f"     why: {core.explanation}")
            if core.method is not None:
                lines.append(f"     decided by: {core.method}")
            if not core.minimal:
                lines.append("     note: Z3 could not confirm this core is the smallest one")
    if result.corrections:
        lines.append("")
        lines.append("to restore consistency, relax one of these sets:")
        for c in result.corrections:
            lines.append(f"  - {' + '.join(c.ids)}  ({c.subject})")
    if result.witness is not None:
        w = result.witness
        lines.append("")
        lines.append("witness:")
        if w.params:
            lines.append(f"  params: {_inputs(w.params)}")
        for name, cw in w.functions.items():
            lines.append(_call_line(name, cw))
        for system, ops in w.systems.items():
            for op, cw in ops.items():
                lines.append(_call_line(f"{system}.{op}", cw))
    if result.unknowns:
        lines.append("")
        lines.append("undecided questions (never reported as feasible or infeasible):")
        for u in result.unknowns:
            ids = f" [{', '.join(u.ids)}]" if u.ids else ""
            lines.append(f"  - {u.question}{ids}: {u.reason}")
    if result.warnings:
        lines.append("")
        lines.append("warnings:")
        for w_ in result.warnings:
            lines.append(f"  {w_.kind}: {w_.message}")
            for m in w_.members:
                lines.extend(_describe(m, "      "))
    return "\n".join(lines) + "\n"


def _call_line(name: str, cw: CallWitness) -> str:
    by = f"  [realizable: {cw.method}]" if cw.method is not None else ""
    if cw.raises is not None:
        return f"  {name}({_inputs(cw.input)}) raises {cw.raises}{by}"
    shown = "(returns nothing)" if cw.result is None else value_text(cw.result)
    return f"  {name}({_inputs(cw.input)}) -> {shown}{by}"
