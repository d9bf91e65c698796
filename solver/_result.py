"""What ``check`` answers: plain immutable records, rendered by ``_report``.

``status`` is one of three words and never a guess (docs/language.md §9): ``feasible``
(with a witness), ``infeasible_proven`` (with at least one minimal core, the first
of which a certificate is built from) or ``unknown`` (with the solver's reason for
every question it could not decide).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

from derivative._ast import Located, Obligation
from derivative._record import record
from derivative._values import Value

Status: TypeAlias = Literal["feasible", "infeasible_proven", "unknown"]
Kind: TypeAlias = Literal[
    "inconsistent_requirements",
    "unsatisfiable_precondition",
    "contradicting_example",
    "unrealizable",
]
Method: TypeAlias = Literal[
    "quantifier-free",
    "unrolled lengths",
    "candidate result terms",
    "z3 quantifier elimination",
    "z3",
    "cvc5",
]
"""How a realizability question was decided (docs/decisions.md, "How realizability is
decided"): the method that gave the answer, reported with the witness call or the core."""

METHODS: tuple[Method, ...] = (
    "quantifier-free",
    "unrolled lengths",
    "candidate result terms",
    "z3 quantifier elimination",
    "z3",
    "cvc5",
)

WarningKind: TypeAlias = Literal[
    "vacuous", "latent_conflict", "ambiguous_raises", "redundant", "unused_param"
]

KIND_ORDER: tuple[Kind, ...] = (
    "inconsistent_requirements",
    "unsatisfiable_precondition",
    "contradicting_example",
    "unrealizable",
)
"""The order in which the kinds are looked for; the first one found is certified."""


RLIMIT_SCALE_SIZE = 5_000
"""Constraints a question may assert within the base ``rlimit``; each one beyond adds
``rlimit / RLIMIT_SCALE_SIZE`` units (``_limits.scaled_rlimit``)."""


@dataclass(frozen=True, kw_only=True)
class CheckOptions:
    """How hard to try.  ``rlimit`` (Z3's deterministic resource limit, per solver call)
    decides; ``timeout`` (seconds per call) is only a safety net on a stuck machine.

    ``rlimit`` is the base: a question asserting more than ``RLIMIT_SCALE_SIZE``
    constraints gets ``rlimit * constraints // RLIMIT_SCALE_SIZE`` (``_limits``)."""

    RLIMIT_SCALE_SIZE: ClassVar[int] = RLIMIT_SCALE_SIZE
    rlimit: int = 2_000_000
    timeout: float = 60.0
    all_cores: bool = False
    redundancy: bool = False
    warnings: bool = True
    """False (``--no-warnings``): only the verdict; no warning is computed."""
    max_cores: int = 64
    """``--all-cores``: at most this many cores per independent component."""
    enumeration_work: int = 50_000_000
    """``--all-cores``: Z3 resource units the enumeration of one component may spend
    (deterministic, like ``rlimit``; the benchmark instances of ``all_cores.py`` spend
    under 20,000, at roughly a million a second)."""
    enumeration_seconds: float = 600.0
    """``--all-cores``: wall-clock safety net of the enumeration of one component;
    reaching it raises ``OperationalTimeout`` (it never decides what is listed)."""
    without: frozenset[str] = frozenset()
    """Ids of obligations to leave out (declared types' ones too, ``x.range``): the same
    check of the set without them, to ask whether a listed correction restores
    feasibility (the corrections test over the golden catalogue does)."""

    @property
    def timeout_ms(self) -> int:
        return max(1, int(self.timeout * 1000))


@record
class Core:
    """A minimal set of obligations that cannot hold together.

    ``minimality`` gives, for each member, a model under which every *other* member
    holds (name → value; ``result`` for the result): dropping any one member leaves
    the rest satisfiable, and anyone can check that by plain evaluation.
    ``minimal`` is false only if Z3 could not decide one of the deletion steps (the
    core is then still a proven conflict, just possibly not the smallest).
    """

    kind: Kind
    subject: str
    """``requirements``, a function or ``System.op``, or an example's id."""
    members: tuple[Obligation, ...]
    explanation: str
    witness_input: Mapping[str, Value] | None = None
    minimality: tuple[tuple[str, Mapping[str, Value]], ...] = ()
    minimal: bool = True
    rechecked: bool = True
    """Re-checked unsatisfiable in a fresh solver (never trusting the first answer)."""
    method: Method | None = None
    """For ``unrealizable``: how the input without an acceptable result was found."""

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.members)


@record
class Correction:
    """Relaxing (dropping) these obligations restores consistency: a minimal correction set."""

    subject: str
    members: tuple[Obligation, ...]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.members)


@record
class Finding:
    """A warning: not a failure (``--strict`` turns latent conflicts and ambiguity into one)."""

    kind: WarningKind
    members: tuple[Obligation, ...]
    message: str
    input: Mapping[str, Value] | None = None
    names: tuple[str, ...] = ()
    """For ``unused_param``: the parameter (it has no obligation to name)."""
    declarations: tuple[Located, ...] = ()
    """For ``unused_param``: the param's declaration, so that a report can point at it
    (the warning has no member obligation to take a ``file:line`` from)."""

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(m.id for m in self.members) + self.names


@record
class Limit:
    """A deterministic limit that stopped a question before it was decided.

    Every ``unknown`` caused by a limit carries one (``Unknown.limits``), so that a report
    can say which limit was reached and the flag that raises it (``_limits``)."""

    name: str
    """``rlimit`` (Z3's resource units per solver call), ``cvc5 rlimit`` (cvc5's, per
    strategy), ``max cores`` or ``enumeration work`` (``--all-cores``)."""
    value: int
    """The limit in force when it was reached (for ``rlimit``: after scaling)."""
    flag: str
    """The command-line flag that raises it."""
    detail: str = ""
    """How the value came about (``--rlimit 2,000,000 scaled by ...``)."""


@record
class Unknown:
    """A question the solver could not decide, and its reason.

    ``hard``: for an undecided realizability question, the clauses that make it hard
    (those that bring a quantifier over the result, or a conversion or non-linear
    operation on it), so that the author knows what to simplify or bound.

    ``limits``: the limits it ran into (empty when the reason is not a limit, such as an
    expression that cannot be encoded or Z3's incomplete quantifier instantiation).
    """

    question: str
    ids: tuple[str, ...]
    reason: str
    hard: tuple[str, ...] = ()
    limits: tuple[Limit, ...] = ()


@record
class CallWitness:
    """An input satisfying a function's requires and a result satisfying its clauses.

    ``raises`` names the exception when every valid input must raise (then there is
    no result).
    """

    input: Mapping[str, Value]
    result: Value | None
    raises: str | None = None
    method: Method | None = None
    """How realizability (every valid input has an acceptable result) was decided."""


@record
class Witness:
    params: Mapping[str, Value]
    functions: Mapping[str, CallWitness]
    systems: Mapping[str, Mapping[str, CallWitness]]


@record
class CheckResult:
    """The whole answer of ``check`` for one requirement set."""

    status: Status
    reason: str
    witness: Witness | None = None
    cores: tuple[Core, ...] = ()
    corrections: tuple[Correction, ...] = ()
    warnings: tuple[Finding, ...] = ()
    unknowns: tuple[Unknown, ...] = ()
    certificate: Any = None
    """The certificate model (``derivative.certificates``) for the first core, if built."""
    obligations: tuple[Obligation, ...] = field(default=(), repr=False)
    """Every obligation checked, the synthetic type obligations included."""

    @property
    def strict_findings(self) -> tuple[Finding, ...]:
        """Warnings that ``--strict`` makes fail (exit 1)."""
        return tuple(w for w in self.warnings if w.kind in ("latent_conflict", "ambiguous_raises"))
