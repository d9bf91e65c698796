"""``derivative import fret``: NASA FRET's requirement export to timed requirements.

FRET exports a JSON array of requirements, or an object with ``requirements`` and
``variables``.  Each requirement's ``semantics`` holds what FRET read from its structured
English: a scope (``scope.type`` and ``scope_mode``), a condition (``regular_condition``
with its ``qualifier_word``), a timing (with ``duration`` or ``stop_condition``) and a
response (``post_condition``).  Each field maps to one part of a timed body
(docs/importers.md has the table); what has no counterpart (``eventually``, FRET's default
timing, is liveness; FRET's ``after`` scope and ``onlyAfter``; unknown functions) is listed
with the reason.  The timing ``after N`` becomes ``after N+1 steps``: FRET's response is
false at the trigger and the N points after it, the timed one at N points in all.

A file that is not such an export (not JSON, a requirement without ``reqid``, a field of
the wrong type) is bad input: ``BadExport``, exit 2.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from ._assemble import assemble
from ._expr import parse
from ._input import BadExport, read_json
from ._model import Declared, Draft, ImportOptions, ImportResult, NotTranslated, ScopeRef
from ._tree import Node, Un, Untranslatable, calls_in

__all__ = ["import_fret"]

_SCOPES = {"in": "in", "notin": "not in", "onlyIn": "only in", "before": "before"}
_PLAIN_TIMINGS = {"immediately", "next", "always", "never"}
_DURATION_TIMINGS = {"within", "for", "after"}
_STOP_TIMINGS = {"until", "before"}

_BOUNDED = {f"{s}int{b}": (-(1 << (b - 1)), (1 << (b - 1)) - 1) for s in ("", "s")
            for b in (8, 16, 32, 64)}
_BOUNDED.update({f"uint{b}": (0, (1 << b) - 1) for b in (8, 16, 32, 64)})
_TYPES = {"boolean": "bool", "bool": "bool", "integer": "int", "int": "int",
          "unsigned integer": "int", "single": "real", "double": "real", "real": "real",
          "float": "real"}
_DIRECTIONS = {"input": "input", "inport": "input", "output": "output", "outport": "output",
               "internal": "output"}


def _field(obj: Mapping[str, Any], key: str, where: str, *, required: bool = False,
           kind: type = str) -> Any:
    value = obj.get(key)
    if value is None:
        if required:
            raise BadExport(f"{where}: the field {key!r} is missing")
        return None
    if not isinstance(value, kind):
        raise BadExport(f"{where}: the field {key!r} is a {type(value).__name__}, "
                        f"not a {kind.__name__}")
    return value


def _scope(sem: Mapping[str, Any], where: str) -> ScopeRef | None:
    scope = _field(sem, "scope", where, kind=dict) or {"type": "null"}
    kind = _field(scope, "type", f"{where}: scope", required=True)
    if kind in ("null", "globally"):
        return None
    if kind == "after":
        raise Untranslatable("FRET's after scope starts when the first M interval ends; the "
                             "timed 'after M mode' starts the step after M first holds (they "
                             "differ whenever M holds longer than one step)")
    if kind not in _SCOPES:
        raise Untranslatable(f"the scope {kind!r} has no timed counterpart")
    if scope.get("exclusive") or scope.get("required"):
        raise Untranslatable(f"a strict or required {kind!r} scope has no timed counterpart")
    mode = _field(sem, "scope_mode", where, required=True).strip()
    if re.fullmatch(r"[A-Za-z_]\w*", mode):
        return ScopeRef(kind=_SCOPES[kind], mode=mode)
    return ScopeRef(kind=_SCOPES[kind], condition=parse(mode))


def _trigger(sem: Mapping[str, Any], where: str) -> tuple[str, Node] | None:
    condition = _field(sem, "condition", where) or "null"
    if condition == "null":
        return None
    if condition not in ("regular", "holding", "noTrigger"):
        raise Untranslatable(f"the condition kind {condition!r} has no timed counterpart")
    word = (_field(sem, "qualifier_word", where) or "").strip().lower()
    text = _field(sem, "regular_condition", where)
    if text is None:
        text = _field(sem, "pre_condition", where, required=True)
        node = parse(text)
        if word == "unless":
            node = Un("not", node)
    else:
        node = parse(text)
    level = condition in ("holding", "noTrigger") or word == "whenever"
    return ("when" if level else "upon"), node


def _duration(sem: Mapping[str, Any], where: str) -> int:
    raw = sem.get("duration")
    if isinstance(raw, list) and raw:
        raw = raw[0]
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise BadExport(f"{where}: the field 'duration' is missing or not a list of "
                        "numbers")
    text = str(raw).strip()
    if not re.fullmatch(r"\d+", text):
        raise Untranslatable(f"the duration {text!r} is not a whole number of steps")
    return int(text)


def _timing(sem: Mapping[str, Any], where: str) -> tuple[str, int | None, Node | None]:
    timing = _field(sem, "timing", where, required=True)
    if timing in _PLAIN_TIMINGS:
        return timing, None, None
    if timing == "after":  # FRET: false at t..t+N, true at t+N+1
        return timing, _duration(sem, where) + 1, None
    if timing in _DURATION_TIMINGS:
        return timing, _duration(sem, where), None
    if timing in _STOP_TIMINGS:
        return timing, None, parse(_field(sem, "stop_condition", where, required=True))
    if timing == "eventually":
        raise Untranslatable("eventually: a liveness property, which the timed layer does "
                             "not have (every timed form is refuted in finitely many steps)")
    if timing == "null":
        raise Untranslatable("no timing: FRET reads it as eventually, a liveness property, "
                             "which the timed layer does not have")
    if timing == "finally":
        raise Untranslatable("finally: at the last step of the interval, which a run cut "
                             "at any length does not have")
    raise Untranslatable(f"the timing {timing!r} has no timed counterpart")


def _only_in(sem: Mapping[str, Any], where: str) -> tuple[str, int | None, Node | None]:
    """The timing of an ``only in`` scope: FRET reads ``only in M, shall [eventually] R``
    as ``always (R implies M)``, the timed layer's ``only in M mode, always R``; its other
    timings say something else outside M (``always`` there: R fails at some point of each
    interval outside M)."""
    timing = _field(sem, "timing", where, required=True)
    if (_field(sem, "condition", where) or "null") != "null":
        raise Untranslatable("an 'only in' scope with a condition has no timed counterpart")
    if timing not in ("eventually", "null"):
        raise Untranslatable(f"an 'only in' scope with the timing {timing!r} has no timed "
                             "counterpart (only 'eventually' or none: R only in M)")
    return "always", None, None


def _scoped_past(scope: ScopeRef | None, nodes: tuple[Node | None, ...]) -> None:
    """FRET's ``persisted`` and ``occurred`` look back only over the current scope interval
    (its formulas stop at the interval's left end); the timed past forms look back over
    the run.  The two agree in the whole run and in a ``before`` scope, which both start at
    step 0, and nowhere else."""
    if scope is None or scope.kind == "before":
        return
    used = set().union(*(calls_in(n) for n in nodes if n is not None))
    for fn in sorted(used & {"persisted", "occurred"}):
        raise Untranslatable(f"{fn} inside an '{scope.kind}' scope: FRET counts only the "
                             "steps of the current scope interval, the timed layer counts "
                             "from the start of the run")


def _tags(req: Mapping[str, Any], reqid: str, where: str) -> tuple[tuple[str, str], ...]:
    tags = [("fret", reqid)]
    for key, tag in (("parent_reqid", "parent"), ("rationale", "rationale")):
        value = _field(req, key, where)
        if value and value.strip():
            tags.append((tag, value.strip()))
    return tuple(tags)


def _draft(req: Mapping[str, Any], reqid: str, where: str) -> Draft | NotTranslated:
    sem = _field(req, "semantics", where, kind=dict)
    if not sem:
        return NotTranslated(reqid, "not formalised in FRET (the export has no semantics "
                             "for it)")
    if str(sem.get("type", "nasa")).lower() == "freeform":
        return NotTranslated(reqid, "a free-form requirement: FRET has no structured "
                             "reading of it")
    component = (_field(sem, "component_name", where) or _field(req, "component_name", where)
                 or "system")
    text = _field(req, "fulltext", where) or ""
    try:
        scope = _scope(sem, where)
        trigger = _trigger(sem, where)
        only_in = scope is not None and scope.kind == "only in"
        timing, steps, stop = (_only_in if only_in else _timing)(sem, where)
        if (_field(sem, "response", where) or "satisfaction") != "satisfaction":
            raise Untranslatable(f"the response {sem['response']!r} has no timed counterpart")
        response = parse(_field(sem, "post_condition", where, required=True))
        _scoped_past(scope, (response, stop, trigger[1] if trigger else None))
    except Untranslatable as why:
        return NotTranslated(reqid, why.reason)
    return Draft(source_id=reqid, component=component, text=" ".join(text.split()),
                 tags=_tags(req, reqid, where), scope=scope, trigger=trigger, timing=timing,
                 response=response, steps=steps, stop=stop)


def _type(var: Mapping[str, Any], name: str, where: str) -> tuple[str | None, str | None]:
    """(the language's type or None to infer it, why it is refused or None).  A variable
    FRET took from a Simulink model has its ``dataType`` as a list of one name."""
    raw = var.get("dataType")
    if isinstance(raw, list) and len(raw) == 1:
        raw = raw[0]
    data = (_field({"dataType": raw}, "dataType", where) or "").strip()
    low = data.lower()
    if not low:
        return None, None
    if low in _TYPES:
        return _TYPES[low], None
    if low in _BOUNDED:
        lo, hi = _BOUNDED[low]
        return f"int in {lo}..{hi}", None
    return None, f"{name} has the data type {data!r}, which has no counterpart"


def _variable(var: Any, where: str) -> Declared:
    if not isinstance(var, dict):
        raise BadExport(f"{where}: a variable is a {type(var).__name__}, not an object")
    name = _field(var, "variable_name", where, required=True)
    role = (_field(var, "idType", where) or _field(var, "portType", where) or "").strip()
    type_, refused = _type(var, name, where)
    if role.lower() == "mode":
        text = _field(var, "modeRequirement", where) or ""
        if not text.strip():
            return Declared(name=name, direction="input", type="bool")
        try:
            condition = parse(text)
        except Untranslatable as why:
            return Declared(name=name, direction="mode", refused=f"the mode {name}: "
                            f"{why.reason}")
        return Declared(name=name, direction="mode", mode_condition=condition,
                        mode_text=text)
    if role.lower() == "function":
        refused = f"{name} is a function of the export, which has no counterpart"
    direction = _DIRECTIONS.get(role.lower(), "infer")
    return Declared(name=name, direction=direction, type=type_, refused=refused)


def _split(doc: Any, source: str) -> tuple[list[Any], list[Any] | None]:
    if isinstance(doc, list):
        return doc, None
    if isinstance(doc, dict):
        reqs = _field(doc, "requirements", source, required=True, kind=list)
        variables = _field(doc, "variables", source, kind=list)
        return reqs, variables
    raise BadExport(f"{source}: a FRET export is a list of requirements or an object with "
                    f"'requirements', not a {type(doc).__name__}")


_VARIABLE_FIELDS = ("variable_name", "dataType", "idType", "portType")


def _declarations(variables: list[Any] | None, source: str) -> dict[str, Declared] | None:
    """The variables by name (the first of a name counts).  An entry with none of the
    fields of a variable (FRET also keeps the record of a model import there) is not one."""
    if variables is None:
        return None
    declared: dict[str, Declared] = {}
    for i, var in enumerate(variables):
        if isinstance(var, dict) and not any(k in var for k in _VARIABLE_FIELDS):
            continue
        d = _variable(var, f"{source}: variables[{i}]")
        declared.setdefault(d.name, d)
    return declared


def import_fret(text: str, *, source: str, options: ImportOptions | None = None
                ) -> ImportResult:
    """Translate a FRET export (its JSON text; ``source`` names it in messages)."""
    options = options or ImportOptions()
    reqs, variables = _split(read_json(text, source), source)
    declared = _declarations(variables, source)
    items: list[Draft | NotTranslated] = []
    project = None
    for i, req in enumerate(reqs):
        where = f"{source}: requirements[{i}]"
        if not isinstance(req, dict):
            raise BadExport(f"{where}: a requirement is a {type(req).__name__}, not an object")
        reqid = _field(req, "reqid", where, required=True)
        project = project or _field(req, "project", where)
        items.append(_draft(req, reqid, f"{where} ({reqid})"))
    stem = os.path.splitext(os.path.basename(source))[0]
    return assemble(
        kind="fret", source=source, name=options.name or project or stem or "imported",
        description=f"Imported from the FRET export {os.path.basename(source)} by "
        "derivative import fret.",
        items=items, declared=declared,
    )
