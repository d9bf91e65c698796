"""Names and types of ``timed`` blocks, checked before anything is unrolled.

Every ordinary expression inside a block is type-checked by the language's own checker,
over a requirement set where each signal is a param of its type and each mode a ``bool``
param, so a mistake is reported at its own place with the usual message.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from derivative._ast import BoolType, Contract, Obligation, ParamDecl
from derivative._errors import SourcePos, SpecError, SpecErrors
from derivative._timed_ast import (
    Mode,
    Signal,
    TBecomes,
    TBool,
    TCond,
    THeld,
    TimedComponent,
    TNot,
    TNow,
    TOccurred,
    TPrevious,
)
from derivative._typecheck_positions import source_pos
from derivative._walk import free_names


def leaves(c: TCond) -> Iterator[TNow]:
    if isinstance(c, TNow):
        yield c
    elif isinstance(c, TBool):
        for p in c.operands:
            yield from leaves(p)
    elif isinstance(c, TNot | TPrevious | THeld | TOccurred | TBecomes):
        yield from leaves(c.operand)


def _conds(comp: TimedComponent) -> Iterator[TCond]:
    for m in comp.modes:
        yield m.cond
    for r in comp.requirements:
        if r.trigger is not None:
            yield r.trigger.cond
        yield r.timing.response
        if r.timing.stop is not None:
            yield r.timing.stop


def _error(message: str, file: str, line: int, column: int, hint: str | None = None) -> SpecError:
    pos = source_pos(file, line, column) or SourcePos(file, line, column)
    return SpecError(message, pos, hint=hint)


def check_components(contract: Contract, components: Sequence[TimedComponent]) -> None:
    """Raise ``SpecErrors`` for every naming or typing mistake in the blocks."""
    errors: list[SpecError] = []
    taken = {d.name for d in contract.declarations}
    ids = {o.id for o in contract.obligations}
    seen_components: set[str] = set()
    for comp in components:
        if comp.name in seen_components:
            errors.append(_error(f"timed block {comp.name!r} is declared twice", comp.file,
                                 comp.line, comp.column))
        seen_components.add(comp.name)
        errors.extend(_names(comp, taken, ids))
        if not errors:
            errors.extend(_types(contract, comp))
    if errors:
        raise SpecErrors(errors)


def _names(comp: TimedComponent, taken: set[str], ids: set[str]) -> list[SpecError]:
    errors: list[SpecError] = []
    local: set[str] = set()
    items: list[Signal | Mode] = [*comp.signals, *comp.modes]
    for item in items:
        if item.name in local or item.name in taken:
            errors.append(_error(f"{item.name!r} is declared twice", item.file, item.line,
                                 item.column, "signals and modes need names of their own"))
        if "__" in item.name:
            errors.append(_error(
                f"{item.name!r}: a signal or mode name cannot contain '__'", item.file,
                item.line, item.column, "'__' separates a signal from its step when unrolled"))
        local.add(item.name)
    modes = {m.name for m in comp.modes}
    errors.extend(_mode_cycles(comp))
    for r in comp.requirements:
        if r.id in ids:
            errors.append(_error(f"identifier {r.id!r} is used twice", r.file, r.line, r.column))
        ids.add(r.id)
        if r.scope is not None and r.scope.mode not in modes:
            errors.append(_error(
                f"unknown mode {r.scope.mode!r}", r.file, r.scope.line, r.scope.column,
                "declare it in the block: `mode NAME: CONDITION`"))
        if r.scope is not None and r.scope.kind == "only_in" and (
            r.trigger is not None or r.timing.kind not in ("immediately", "always")
        ):
            errors.append(_error(
                "`only in M mode` takes a response only", r.file, r.scope.line, r.scope.column,
                "write `only in M mode, R` (R may hold only while M holds)"))
    return errors


def _mode_cycles(comp: TimedComponent) -> list[SpecError]:
    """A mode whose condition names itself, directly or through other modes, means
    nothing: each is reported once, at its declaration."""
    uses = {
        m.name: {n for leaf in leaves(m.cond) for n in free_names(leaf.expr)} for m in comp.modes
    }
    errors: list[SpecError] = []
    for m in comp.modes:
        seen: set[str] = set()
        todo = list(uses[m.name] & uses.keys())
        while todo:
            n = todo.pop()
            if n == m.name:
                errors.append(_error(
                    f"mode {m.name!r} is defined in terms of itself", m.file, m.line, m.column,
                    "a mode's condition may use other modes, but not in a cycle"))
                break
            if n not in seen:
                seen.add(n)
                todo.extend(uses[n] & uses.keys())
    return errors


def _types(contract: Contract, comp: TimedComponent) -> list[SpecError]:
    from derivative import _typecheck

    decls: list[object] = [d for d in contract.declarations if d.kind in ("enum", "const")]
    for s in comp.signals:
        decls.append(ParamDecl(name=s.name, type=s.type, file=s.file, line=s.line,
                               column=s.column))
    for m in comp.modes:
        decls.append(ParamDecl(name=m.name, type=BoolType(), file=m.file, line=m.line,
                               column=m.column))
    obligations = [
        Obligation(id=f"leaf.{n}", kind="requirement", expr=leaf.expr, file=leaf.file,
                   line=leaf.line, column=leaf.column)
        for n, leaf in enumerate(x for c in _conds(comp) for x in leaves(c))
    ]
    synthetic = Contract(name=contract.name, version=contract.version,
                         declarations=tuple(decls), obligations=tuple(obligations),
                         files=contract.files)
    try:
        _typecheck.check(synthetic)
    except SpecErrors as exc:
        return list(exc.errors)
    except SpecError as exc:
        return [exc]
    return []
