"""From drafts to timed blocks: names, types, directions and modes of each component.

The steps run per component, each one setting aside (as not translated, with the reason)
the drafts it cannot place, so that what is written always type-checks as far as the
importer can tell:

1. every condition is written once, which finds what has no counterpart (an unknown
   function, a power with a variable exponent);
2. each scope's mode is found: a FRET ``Mode`` variable (its ``modeRequirement``), a
   boolean variable of the mode's name, or a Hanfor scope condition;
3. with declarations (FRET's ``variables``), each name read must be declared, with a
   type its use fits;
4. without, types are inferred: ``bool`` for a name used only as a condition, ``real``
   beside a decimal literal, ``int`` otherwise; a name both a condition and a number
   refuses the requirements that use it as a condition; a name compared with ``=`` to
   another takes its type;
5. every condition must then be a well-typed ``bool`` (``true < x`` is refused);
6. a name that a response reads is an ``output``, any other an ``input`` (declared
   directions win).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ._expr import ATOM, render
from ._exprtypes import check_type, uses
from ._model import Declared, Draft, ImportResult, Names, NotTranslated, Translated
from ._tree import Name, Node, Untranslatable, names_in
from ._writer import Block, Requirement, Signal, render_spec

__all__ = ["assemble"]

Item = Draft | NotTranslated


@dataclass
class _Place:
    """The working state of one component."""

    name: str
    drafts: list[Draft]
    declared: Mapping[str, Declared] | None
    refused: list[NotTranslated] = field(default_factory=list)
    modes: dict[int, tuple[str, Node]] = field(default_factory=dict)
    """id(draft) -> (wanted mode name, its condition)."""

    def refuse(self, draft: Draft, reason: str) -> None:
        self.drafts.remove(draft)
        self.refused.append(NotTranslated(draft.source_id, reason))


def _conditions(d: Draft) -> list[Node]:
    out = [d.response]
    if d.trigger is not None:
        out.append(d.trigger[1])
    if d.stop is not None:
        out.append(d.stop)
    if d.scope is not None and d.scope.condition is not None:
        out.append(d.scope.condition)
    return out


def _mode_of(d: Draft, declared: Mapping[str, Declared] | None) -> tuple[str, Node] | None:
    """The mode a draft's scope needs: (the name it wants, its condition)."""
    if d.scope is None:
        return None
    if d.scope.condition is not None:
        return "scope", d.scope.condition
    mode = d.scope.mode or ""
    if declared is None:
        return f"{mode}_mode", Name(mode)
    var = declared.get(mode)
    if var is None:
        raise Untranslatable(f"the mode {mode} is neither a Mode variable nor a boolean "
                             "variable of the export")
    if var.mode_condition is not None:
        return mode, var.mode_condition
    if var.refused is not None:
        raise Untranslatable(var.refused)
    if var.type not in (None, "bool"):
        raise Untranslatable(f"the mode {mode} names a variable of type {var.type}, not a "
                             "boolean")
    return f"{mode}_mode", Name(mode)


def _uses_of(p: _Place, d: Draft) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for node in _conditions(d):
        found.extend(uses(node))
    if id(d) in p.modes:
        found.extend(uses(p.modes[id(d)][1]))
    for name in dict.fromkeys(n for n, _ in found):
        var = (p.declared or {}).get(name)
        if var is not None and var.mode_condition is not None and var.direction == "mode":
            found.extend(uses(var.mode_condition))
    return found


def _fits(use: str, type_: str) -> bool:
    return (use == "bool") == (type_ == "bool")


def _check_declared(p: _Place, d: Draft) -> None:
    assert p.declared is not None
    for name, use in _uses_of(p, d):
        var = p.declared.get(name)
        if var is None:
            raise Untranslatable(f"{name} is not among the export's variables")
        if var.refused is not None:
            raise Untranslatable(var.refused)
        if var.direction == "mode":  # a mode by condition, read as a condition
            if use != "bool":
                raise Untranslatable(f"the mode {name} is used as a number")
            continue
        if var.type is not None and not use.startswith("=") and not _fits(use, var.type):
            raise Untranslatable(f"{name} is declared {var.type} but used as "
                                 f"{'a condition' if use == 'bool' else 'a number'}")


def _infer(p: _Place) -> dict[str, str]:
    """The type of every name the drafts read (declared types kept)."""
    kinds: dict[str, set[str]] = {}
    edges: list[tuple[str, str]] = []
    for d in p.drafts:
        for name, use in _uses_of(p, d):
            kinds.setdefault(name, set())
            if use.startswith("="):
                edges.append((name, use[1:]))
            else:
                kinds[name].add(use)
    fixed = {n: v.type for n, v in (p.declared or {}).items() if v.type is not None}
    for n, v in (p.declared or {}).items():
        if v.direction == "mode":
            fixed[n] = "bool"
    for n, t in fixed.items():
        if n in kinds:
            kinds[n] = {"bool" if t == "bool" else "int"}
    changed = True
    while changed:
        changed = False
        for a, b in edges:
            if a not in fixed and not kinds[b] <= kinds[a]:
                kinds[a] |= kinds[b]
                changed = True
    types: dict[str, str] = {}
    for n, k in kinds.items():
        inferred = "real" if "real" in k else "int" if "int" in k or not k else "bool"
        types[n] = fixed.get(n, inferred)
    return types


def _refuse_clashes(p: _Place, types: Mapping[str, str]) -> None:
    for d in list(p.drafts):
        for name, use in _uses_of(p, d):
            other = use[1:] if use.startswith("=") else None
            if other is not None and _fits("bool" if types[other] == "bool" else "int",
                                           types[name]):
                continue
            if other is None and _fits(use, types[name]):
                continue
            p.refuse(d, f"{name} is used both as a condition and as a number")
            break


def _refuse_ill_typed(p: _Place, types: Mapping[str, str]) -> bool:
    """Refuse the drafts whose conditions are not well-typed bools; whether any was."""
    refused = False
    for d in list(p.drafts):
        nodes = _conditions(d) + ([p.modes[id(d)][1]] if id(d) in p.modes else [])
        try:
            for node in nodes:
                check_type(node, types)
        except Untranslatable as why:
            p.refuse(d, f"not well typed: {why.reason}")
            refused = True
    return refused


def _signals(p: _Place, types: Mapping[str, str]) -> tuple[list[Signal], dict[str, str]]:
    outputs: set[str] = set()
    order: list[str] = []
    for d in p.drafts:
        outputs.update(names_in(d.response))
        for name, _ in _uses_of(p, d):
            if name not in order:
                order.append(name)
    names = Names()
    renamed: dict[str, str] = {}
    found: list[Signal] = []
    for name in order:
        var = (p.declared or {}).get(name)
        if var is not None and var.direction == "mode":
            continue  # a mode, not a signal
        direction = var.direction if var is not None and var.direction != "infer" else (
            "output" if name in outputs else "input")
        renamed[name] = names.take(name)
        found.append(Signal(direction, renamed[name], types[name], name))
    found.sort(key=lambda s: s.direction != "input")
    return found, renamed


def _modes(p: _Place, renamed: dict[str, str]) -> tuple[list[tuple[str, str]], dict[int, str]]:
    names = Names()
    names.taken.update(renamed.values())
    declared_modes: dict[tuple[str, str], str] = {}
    by_draft: dict[int, str] = {}
    pure = [n for n, v in (p.declared or {}).items() if v.direction == "mode"]
    for d in p.drafts:
        wanted: list[tuple[int | None, str, Node]] = []
        if id(d) in p.modes:
            wanted.append((id(d), *p.modes[id(d)]))
        for n in pure:
            if any(n in names_in(c) for c in _conditions(d)):
                var = (p.declared or {})[n]
                assert var.mode_condition is not None
                wanted.append((None, n, var.mode_condition))
        for key, want, cond in wanted:
            text = render(cond, renamed)
            if (want, text) not in declared_modes:
                declared_modes[(want, text)] = names.take(want)
                if want in pure:
                    renamed[want] = declared_modes[(want, text)]
            if key is not None:
                by_draft[key] = declared_modes[(want, text)]
    modes = [(name, text) for (_, text), name in declared_modes.items()]
    return modes, by_draft


def _cond(node: Node, renamed: Mapping[str, str]) -> str:
    """A condition inside a timed body: bracketed when it is an ``implies`` or ``iff``."""
    return render(node, renamed, need=5)


_TIMING = {
    "always": "always {r}", "never": "never {r}", "immediately": "immediately {r}",
    "next": "at the next step {r}", "within": "within {n} steps {r}",
    "for": "for {n} steps {r}", "after": "after {n} steps {r}",
    "until": "until {c}, {r}", "before": "before {c}, {r}",
}


def _body(d: Draft, renamed: Mapping[str, str], mode: str | None) -> str:
    parts: list[str] = []
    if d.scope is not None:
        parts.append(f"{d.scope.kind} {mode} mode")
    if d.trigger is not None:
        parts.append(f"{d.trigger[0]} {_cond(d.trigger[1], renamed)}")
    stop = _cond(d.stop, renamed) if d.stop is not None else ""
    parts.append(_TIMING[d.timing].format(r=_cond(d.response, renamed), n=d.steps, c=stop))
    return ", ".join(parts)


def _settle(p: _Place) -> tuple[list[Signal], list[tuple[str, str]], dict[int, str],
                                dict[str, str]]:
    for d in list(p.drafts):
        try:
            for node in _conditions(d):
                render(node, {}, need=ATOM)
            mode = _mode_of(d, p.declared)
            if mode is not None:
                render(mode[1], {}, need=ATOM)
                p.modes[id(d)] = mode
            if p.declared is not None:
                _check_declared(p, d)
        except Untranslatable as why:
            p.refuse(d, why.reason)
    _refuse_clashes(p, _infer(p))
    types = _infer(p)
    while _refuse_ill_typed(p, types):  # a refusal can change what the rest infers
        types = _infer(p)
    signals, renamed = _signals(p, types)
    modes, by_draft = _modes(p, renamed)
    return signals, modes, by_draft, renamed


def _component(p: _Place, ids: Names) -> Block | None:
    signals, modes, by_draft, renamed = _settle(p)
    if not p.drafts:
        return None
    reqs = []
    for d in p.drafts:
        body = _body(d, renamed, by_draft.get(id(d)))
        reqs.append(Requirement(ids.take(d.source_id, prefix="R"), d.tags, d.text, body))
    return Block(ids.take(p.name, prefix="c"), p.name, tuple(signals), tuple(modes),
                 tuple(reqs))


def _components(items: Iterable[Item]) -> dict[str, list[Draft]]:
    groups: dict[str, list[Draft]] = {}
    for item in items:
        if isinstance(item, Draft):
            groups.setdefault(item.component, []).append(item)
    return groups


def assemble(
    *,
    kind: str,
    source: str,
    name: str,
    description: str,
    items: Sequence[Item],
    declared: Mapping[str, Declared] | None,
    skipped: Sequence[NotTranslated] = (),
) -> ImportResult:
    """The ``.req`` text and the account of an import, from the drafts of every row."""
    order = {id(item): i for i, item in enumerate(items)}
    by_source = {item.source_id: order[id(item)] for item in items}
    refused = [item for item in items if isinstance(item, NotTranslated)]
    ids = Names()
    blocks: list[Block] = []
    translated: list[Translated] = []
    for component, drafts in _components(items).items():
        place = _Place(component, list(drafts), declared)
        block = _component(place, ids)
        refused.extend(place.refused)
        if block is not None:
            blocks.append(block)
            for req, d in zip(block.requirements, place.drafts, strict=True):
                translated.append(Translated(req.id, d.source_id))
    refused.sort(key=lambda r: by_source.get(r.source_id, 0))
    text = render_spec(name=identifier_of(name), description=description, blocks=blocks,
                       untranslated=refused, skipped=skipped)
    return ImportResult(source=source, kind=kind, text=text, translated=tuple(translated),
                        untranslated=tuple(refused), skipped=tuple(skipped))


def identifier_of(name: str) -> str:
    """The spec's name as an identifier."""
    return Names().take(name, prefix="spec")

