"""The replay: a sample of the judged calls again, in a run shaped differently.

A candidate that behaves one way when it is judged and another way otherwise defeats any
amount of testing, so the judged run must not be recognisable, and what it saw must
survive a second look.  The sandbox already shows the candidate at an ordinary checkout
path drawn per staging (``forge/sandbox``: ``ordinary_layout``); here a sample of the
calls of a run that passed is made again in a *fresh* sandbox, staged at another such
path, in a fresh process, in another order, and the answers are compared:

- a function's call must give the same answer (the same value, or an exception of the same
  classes): the language's functions are functions, so a different answer for the same
  input is nondeterminism (the clock, randomness, state kept between calls, or knowing
  where it runs), and the run is ``failed`` with both observations;
- a system's recorded history (a fresh instance and the same operations in the same order)
  must return or raise alike at each step, with the same exception classes; returned
  values are not compared, because an operation may rightly answer differently each time
  (a fresh token, an id) and the contract judged those values in the first run.

What it cannot catch: a candidate that recognises *every* judged run alike (it can read
the id it runs under, the host name, an empty ``/tmp``, the absent network) and behaves
well in all of them.  The default policy keeps those facts out of reach (no ``os``, no
``socket``, no ``__file__``); under a non-enforcing policy nothing does, which is one
reason such evidence is never ``verified``.  Interleaving explorations are not replayed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from ..testing import Outcome, describe, describe_outcome

REPLAY_CALLS = 24
"""Function calls replayed at most (a reservoir sample of the judged ones)."""

REPLAY_HISTORIES = 6
"""System histories (instance life cycles) replayed at most."""

MAX_STEPS = 40
"""Operations of one history kept for the replay; a longer history is cut there."""


@dataclass
class History:
    """One instance of a system and what each operation on it gave."""

    system: str
    steps: list[tuple[str, tuple[object, ...], Outcome]] = field(default_factory=list)


@dataclass
class Recording:
    """What the judged run asked and got, sampled as it goes (the host's own record)."""

    seed: int
    seen_calls: int = 0
    seen_histories: int = 0
    calls: list[tuple[str, tuple[object, ...], Outcome]] = field(default_factory=list)
    histories: list[History] = field(default_factory=list)
    live: dict[object, History] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def call(self, name: str, args: tuple[object, ...], outcome: Outcome) -> None:
        if not _replayable(outcome):
            return
        self.seen_calls += 1
        slot = _reservoir(self._rng, self.seen_calls, REPLAY_CALLS)
        if slot is not None:
            entry = (name, args, outcome)
            if slot == len(self.calls):
                self.calls.append(entry)
            else:
                self.calls[slot] = entry

    def instance(self, key: object, system: str) -> None:
        """A new instance: sampled now, so its history is kept (or not) as a whole."""
        self.seen_histories += 1
        slot = _reservoir(self._rng, self.seen_histories, REPLAY_HISTORIES)
        if slot is None:
            return
        history = History(system)
        if slot == len(self.histories):
            self.histories.append(history)
        else:
            self.histories[slot] = history
        self.live[key] = history

    def method(self, key: object, op: str, args: tuple[object, ...], outcome: Outcome) -> None:
        history = self.live.get(key)
        if history is None or len(history.steps) >= MAX_STEPS:
            return
        if not _replayable(outcome):
            self.live.pop(key, None)  # a timeout or a crash: the rest is not comparable
            return
        history.steps.append((op, args, outcome))


def _reservoir(rng: random.Random, seen: int, size: int) -> int | None:
    """Algorithm R: the slot the ``seen``-th item takes in a sample of ``size``, or None."""
    if seen <= size:
        return seen - 1
    pick = rng.randrange(seen)
    return pick if pick < size else None


def _replayable(outcome: Outcome) -> bool:
    """Only what the candidate did: a sandbox's own failure (a timeout, a crash) is not."""
    raised = outcome.raised
    return raised is None or not raised.name.startswith("Sandbox")


def _key(value: object) -> object:
    """What two answers must share to be the same answer."""
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_key(v) for v in value))
    type_name = getattr(value, "type_name", None)
    if type_name is not None and hasattr(value, "repr"):
        return ("opaque", type_name)  # a repr may hold an address; the type may not differ
    return (type(value).__name__, value)


def same(first: Outcome, second: Outcome, *, values: bool) -> bool:
    """Whether two outcomes agree (``values``: returned values are compared too)."""
    if (first.raised is None) != (second.raised is None):
        return False
    if first.raised is not None and second.raised is not None:
        a, b = first.raised, second.raised
        return (a.names, a.modules, a.builtin) == (b.names, b.modules, b.builtin)
    return not values or _key(first.value) == _key(second.value)


@dataclass(frozen=True)
class Mismatch:
    """One replayed call whose answer differs from the judged run's."""

    what: str
    judged: str
    replayed: str

    def to_json(self) -> dict[str, str]:
        return {"call": self.what, "judged": self.judged, "replayed": self.replayed}

    def sentence(self) -> str:
        return f"{self.what} {self.judged} when judged and {self.replayed} in the replay"


def _call_text(name: str, args: tuple[object, ...]) -> str:
    return f"{name}({', '.join(describe(a, 60) for a in args)})"


def replay(recording: Recording, caller: Any) -> tuple[int, int, list[Mismatch]]:
    """Make the sampled calls through ``caller`` (a fresh sandbox's), histories and calls
    interleaved in a shuffled order; (calls made, histories made, mismatches)."""
    rng = random.Random(recording.seed ^ 0x5EED)
    jobs: list[tuple[str, int]] = [("call", i) for i in range(len(recording.calls))]
    jobs += [("history", i) for i, h in enumerate(recording.histories) if h.steps]
    rng.shuffle(jobs)
    mismatches: list[Mismatch] = []
    calls = histories = 0
    for kind, index in jobs:
        if kind == "call":
            name, args, judged = recording.calls[index]
            again = caller.call(name, list(args))
            calls += 1
            if not same(judged, again, values=True):
                mismatches.append(Mismatch(_call_text(name, args), describe_outcome(judged),
                                           describe_outcome(again)))
        else:
            histories += 1
            found = _replay_history(recording.histories[index], caller)
            if found is not None:
                mismatches.append(found)
    return calls, histories, mismatches


def _replay_history(history: History, caller: Any) -> Mismatch | None:
    handle = caller.new_instance(history.system)
    if isinstance(handle, Outcome):
        return Mismatch(f"{history.system}()", "made an instance",
                        describe_outcome(handle))
    done: list[str] = []
    for op, args, judged in history.steps:
        again = caller.method(handle, op, list(args))
        done.append(_call_text(op, args))
        if not same(judged, again, values=False):
            return Mismatch(f"{history.system}(): " + "; ".join(done[-4:]),
                            describe_outcome(judged), describe_outcome(again))
    return None
