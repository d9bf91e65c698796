"""Hanfor's specification patterns and their timed forms.

The names, the sentences and the order of the slots (``R``, ``S``, ``T``, ``U``, ``V``:
conditions and durations in the order the sentence names them) are those of Hanfor's
pattern catalogue; the old names Hanfor still migrates (``BoundedResponse``,
``MinDuration``, ...) are accepted too.  Hanfor defines each pattern by Duration Calculus
counter-traces over dense time; the timed form reads one time unit as one step and a
duration ``T`` as ``T`` elapsed steps (docs/importers.md, "Limits of the translation").

A pattern either builds a timed body from its slots or carries the reason it has none:
``eventually`` (liveness), a past that reaches back without bound, counting, or two
obligations in one sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

from derivative._record import record

from ._expr import parse
from ._tree import BECOMES, Bin, Bool, Call, Node, Num, Un, Untranslatable

__all__ = ["PATTERNS", "Body", "Pattern", "Slots", "by_name"]

Body = tuple[tuple[str, Node] | None, str, Node, int | None]
"""(trigger, timing, response, steps) of a timed body."""

_SLOT = r'"(?P<{}>[^"]*)"'


class Slots:
    """The slot values of one formalisation, read as a pattern needs them."""

    def __init__(self, pattern: Pattern, values: Mapping[str, str]) -> None:
        self.pattern = pattern
        self.values = values

    def _text(self, slot: str) -> str:
        text = self.values.get(slot, "").strip()
        if not text:
            raise Untranslatable(f"the pattern {self.pattern.name} needs {slot}, which is "
                                 "empty")
        return text

    def cond(self, slot: str) -> Node:
        return parse(self._text(slot))

    def steps(self, slot: str) -> int:
        text = self._text(slot)
        if not re.fullmatch(r"\d+", text):
            raise Untranslatable(f"the duration {text!r} is not a whole number of steps")
        return int(text)


@record
class Pattern:
    name: str
    sentence: str
    """Hanfor's sentence, slots written ``{R}``."""
    build: Callable[[Slots], Body] | None = None
    refused: str | None = None
    """Why it has no timed counterpart (when ``build`` is None)."""
    old_names: tuple[str, ...] = ()
    past: bool = False
    """Whether the timed form looks back (``has held for``, ``becomes true``, a delay from
    the start): Hanfor counts from the start of the scope, the timed layer from the start
    of the run, which agree for ``Globally`` and ``Before`` only."""

    def regex(self) -> re.Pattern[str]:
        """The sentence as a regular expression: a slot is a quoted string (the same
        string where the sentence names a slot twice), white space is any white space,
        and commas are optional."""
        seen: set[str] = set()
        out = []
        for part in re.split(r"(\{\w\})", self.sentence):
            if re.fullmatch(r"\{\w\}", part):
                slot = part[1]
                out.append(f'"(?P={slot})"' if slot in seen else _SLOT.format(slot))
                seen.add(slot)
            else:
                out.append(re.escape(part).replace(r"\ ", r"\s+").replace(",", ",?"))
        return re.compile("".join(out) + r"\s*\.?\s*", re.IGNORECASE)

    def body(self, slots: Mapping[str, str], scope: str) -> Body:
        if self.build is None:
            raise Untranslatable(f"{self.name}: {self.refused}")
        if self.past and _key(scope) not in ("", "globally", "global", "before"):
            raise Untranslatable(f"{self.name} in the scope {scope}: its past counts from the "
                                 "start of the scope in Hanfor, from the start of the run in "
                                 "the timed layer")
        return self.build(Slots(self, slots))


def _becomes(n: Node) -> Node:
    return Call(BECOMES, (n,))


def _held(n: Node, steps: int) -> Node:
    return Call("persisted", (Num(str(steps)), n))


def _previously(n: Node) -> Node:
    return Call("preBool", (Bool(False), n))


_LIVENESS = "S eventually: a liveness property, which the timed layer does not have"
_PAST = "an unbounded past (the timed layer looks back a bounded number of steps only)"
_TWO = "two obligations in one sentence, which no single timed form states"

PATTERNS: Final = (
    Pattern("Universality", "it is always the case that {R} holds",
            lambda s: (None, "always", s.cond("R"), None)),
    Pattern("Absence", "it is never the case that {R} holds",
            lambda s: (None, "never", s.cond("R"), None)),
    Pattern("Initialization", "it is always the case that initially {R} holds",
            lambda s: (None, "immediately", s.cond("R"), None)),
    Pattern("Invariance", "it is always the case that if {R} holds, then {S} holds as well",
            lambda s: (("when", s.cond("R")), "immediately", s.cond("S"), None),
            old_names=("Invariant",)),
    Pattern("Persistence", "it is always the case that if {R} holds, then it holds "
            "persistently", lambda s: (("when", s.cond("R")), "always", s.cond("R"), None)),
    Pattern("ResponseDelay", "it is always the case that if {R} holds, then {S} holds after "
            "at most {T} time units",
            lambda s: (("when", s.cond("R")), "within", s.cond("S"), s.steps("T")),
            old_names=("BoundedResponse",)),
    Pattern("EdgeResponseDelay", "it is always the case that once {R} becomes satisfied, "
            "{S} holds after at most {T} time units",
            lambda s: (("when", _becomes(s.cond("R"))), "within", s.cond("S"), s.steps("T")),
            past=True, old_names=("EdgeResponsePatternDelayed",)),
    Pattern("InvarianceBoundL2", "it is always the case that if {R} holds, then {S} holds "
            "for at least {T} time units",
            lambda s: (("when", s.cond("R")), "for", s.cond("S"), s.steps("T")),
            old_names=("BoundedInvariance",)),
    Pattern("EdgeResponseBoundL2", "it is always the case that once {R} becomes satisfied, "
            "{S} holds for at least {T} time units",
            lambda s: (("when", _becomes(s.cond("R"))), "for", s.cond("S"), s.steps("T")),
            past=True, old_names=("BndEdgeResponsePattern",)),
    Pattern("DurationBoundL", "it is always the case that once {R} becomes satisfied, it "
            "holds for at least {S} time units",
            lambda s: (("when", _becomes(s.cond("R"))), "for", s.cond("R"), s.steps("S")),
            past=True, old_names=("MinDuration",)),
    Pattern("DurationBoundU", "it is always the case that once {R} becomes satisfied, it "
            "holds for less than {S} time units",
            lambda s: (("when", s.cond("R")), "within", Un("not", s.cond("R")),
                       s.steps("S")),
            old_names=("MaxDuration",)),
    Pattern("ReccurrenceBound", "it is always the case that {R} holds at least every {S} "
            "time units",
            lambda s: (("when", Un("not", s.cond("R"))), "within", s.cond("R"),
                       s.steps("S")),
            old_names=("BoundedRecurrence",)),
    Pattern("ResponseBoundL1", "it is always the case that if {R} holds for at least {S} "
            "time units, then {T} holds afterwards",
            lambda s: (("when", _held(s.cond("R"), s.steps("S"))), "next", s.cond("T"),
                       None),
            past=True, old_names=("TimeConstrainedInvariant",)),
    Pattern("ResponseBoundL12", "it is always the case that if {R} holds for at least {S} "
            "time units, then {T} holds afterwards for at least {U} time units",
            lambda s: (("when", _previously(_held(s.cond("R"), s.steps("S")))), "for",
                       s.cond("T"), s.steps("U")),
            past=True, old_names=("TimeConstrainedMinDuration",)),
    Pattern("ResponseDelayBoundL1", "it is always the case that if {R} holds for at least "
            "{S} time units, then {T} holds after at most {U} time units",
            lambda s: (("when", _held(s.cond("R"), s.steps("S"))), "within", s.cond("T"),
                       s.steps("U")),
            past=True),
    Pattern("BndEntryConditionPattern", "it is always the case that after {R} holds for at "
            "least {S} time units, then {T} holds",
            lambda s: (("when", _held(s.cond("R"), s.steps("S"))), "immediately",
                       s.cond("T"), None),
            past=True),
    Pattern("TriggerResponseBoundL1", "it is always the case that after {R} holds for at "
            "least {S} time units and {T} holds, then {U} holds",
            lambda s: (("when", _and(_held(s.cond("R"), s.steps("S")), s.cond("T"))),
                       "immediately", s.cond("U"), None),
            past=True, old_names=("BndTriggeredEntryConditionPattern",)),
    Pattern("TriggerResponseDelayBoundL1", "it is always the case that after {R} holds for "
            "at least {S} time units and {T} holds, then {U} holds after at most {V} time "
            "units",
            lambda s: (("when", _and(_held(s.cond("R"), s.steps("S")), s.cond("T"))),
                       "within", s.cond("U"), s.steps("V")),
            past=True, old_names=("BndTriggeredEntryConditionPatternDelayed",)),
    Pattern("UniversalityDelay", "it is always the case that {R} holds after at most {S} "
            "time units",
            lambda s: (("when", _held(Bool(True), s.steps("S"))), "immediately", s.cond("R"),
                       None),
            past=True),
    Pattern("Existence", "{R} eventually holds", refused="R eventually: a liveness "
            "property, which the timed layer does not have"),
    Pattern("Response", "it is always the case that if {R} holds then {S} eventually holds",
            refused=_LIVENESS),
    Pattern("ResponseChain12", "it is always the case that if {R} holds, then {S} "
            "eventually holds and is succeeded by {T}", refused=_LIVENESS),
    Pattern("ResponseChain21", "it is always the case that if {R} holds and is succeeded "
            "by {S}, then {T} eventually holds after {S}", refused=_LIVENESS),
    Pattern("ConstrainedChain", "it is always the case that if {R} holds, then {S} "
            "eventually holds and is succeeded by {T} where {U} does not hold between {S} "
            "and {T}", refused=_LIVENESS),
    Pattern("Precedence", "it is always the case that if {R} holds, then {S} previously "
            "held", refused="S at some earlier step, " + _PAST),
    Pattern("PrecedenceChain12", "it is always the case that if {R} holds and is succeeded "
            "by {S}, then {T} previously held", refused=_PAST),
    Pattern("PrecedenceChain21", "it is always the case that if {R} holds, then {S} "
            "previously held and was preceded by {T}", refused=_PAST),
    Pattern("ExistenceBoundU", "transitions to states in which {R} holds occur at most "
            "twice", refused="counting occurrences has no counterpart",
            old_names=("BoundedExistence",)),
    Pattern("ResponseDelayBoundL2", "it is always the case that if {R} holds, then {S} "
            "holds after at most {T} time units for at least {U} time units", refused=_TWO,
            old_names=("ConstrainedTimedExistence",)),
    Pattern("EdgeResponseDelayBoundL2", "it is always the case that once {R} becomes "
            "satisfied, {S} holds after at most {T} time units for at least {U} time units",
            refused=_TWO, old_names=("BndEdgeResponsePatternDelayed",)),
    Pattern("ConditionalResponseBoundL1", "it is always the case that if {R} holds, then "
            "{S} holds as well after at most {T} time units", refused=_TWO,
            old_names=("InvarianceDelay",)),
    Pattern("EdgeResponseBoundU1", "it is always the case that once {R} becomes satisfied "
            "and holds for at most {S} time units, then {T} holds afterwards",
            refused="a response to a condition that held for at most S units has no "
            "timed form", old_names=("BndEdgeResponsePatternTU",)),
    Pattern("Toggle1", "it is always the case that if {R} holds then {S} toggles {T}",
            refused="toggling has no counterpart"),
    Pattern("NotFormalizable", "no pattern set", refused="Hanfor marks it as not "
            "formalisable"),
    Pattern("Toggle2", "it is always the case that if {R} holds then {S} toggles {T} at "
            "most {U} time units later", refused="toggling has no counterpart"),
)
"""Every pattern read (docs/importers.md has the table of their timed forms)."""


def _and(a: Node, b: Node) -> Node:
    return Bin("and", a, b)


def _key(text: str) -> str:
    return re.sub(r"[\s_\-]", "", text).lower()


_BY_NAME: Final = {_key(n): p for p in PATTERNS for n in (p.name, *p.old_names)}


def by_name(name: str) -> Pattern | None:
    """The pattern of a name (Hanfor's, or one of its old names), in any case."""
    return _BY_NAME.get(_key(name))
