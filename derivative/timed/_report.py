"""The timed part of ``check``'s report: text for people, JSON for tools."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from derivative._values import Value, value_json

from ._check import TimedResult

_MAX_ROWS = 60


def _shown(v: Value) -> str:
    if isinstance(v, bool):
        return "T" if v else "F"
    text = value_json(v)
    return str(text.get("member", text)) if isinstance(text, dict) else str(text)


def _table(trace: Sequence[Mapping[str, Value]]) -> list[str]:
    if not trace:
        return []
    names = list(dict.fromkeys(n for step in trace for n in step))
    if not names:
        return []
    width = max(len(n) for n in names)
    rows = trace[:_MAX_ROWS]
    cells = [[_shown(step[n]) if n in step else "-" for step in rows] for n in names]
    col = max(max(len(c) for c in row) for row in cells)
    col = max(col, len(str(len(rows) - 1)))
    steps = " ".join(str(t).rjust(col) for t in range(len(rows)))
    out = ["    " + "step".ljust(width) + " " + steps]
    for n, row in zip(names, cells, strict=True):
        out.append("    " + n.ljust(width) + " " + " ".join(c.rjust(col) for c in row))
    if any("-" in row for row in cells):
        out.append("    (-: any value, no requirement reads it)")
    if len(trace) > _MAX_ROWS:
        out.append(f"    ... {len(trace) - _MAX_ROWS} more steps (--json has them all)")
    return out


def render_text(results: Sequence[TimedResult]) -> str:
    lines: list[str] = []
    for r in results:
        head = {
            "no_conflict": f"no conflict up to depth {r.depth}",
            "infeasible_proven": f"conflict ({r.kind})",
            "unknown": "unknown",
        }[r.status]
        lines.append(f"timed {r.component}: {head}")
        lines.append(f"  {r.explanation}")
        if r.core:
            lines.append("  minimal conflict: " + ", ".join(r.core))
        if r.trace:
            what = {"inconsistent": "longest run the conflict allows",
                    "unrealizable": "input trace no outputs can answer",
                    None: "a run that breaks nothing"}.get(r.kind, "trace")
            lines.append(f"  {what}:")
            lines.extend(_table(r.trace))
    return "\n".join(lines) + ("\n" if lines else "")


def result_json(r: TimedResult) -> dict[str, Any]:
    return {
        "component": r.component,
        "depth": r.depth,
        "status": r.status,
        "kind": r.kind,
        "explanation": r.explanation,
        "core": list(r.core),
        "trace": [{n: value_json(v) for n, v in step.items()} for step in r.trace],
    }
