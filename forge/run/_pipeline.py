"""``derivative run``: judge an untrusted candidate against a contract, behind a sandbox.

The order is the pipeline's (docs/build.md), and each step can end the run with
its own status before anything later happens:

1. the contract must be consistent: an infeasible one is ``infeasible_proven`` (there
   is nothing to meet, so the candidate is not read at all);
2. the static posture of the candidate is checked under the policy: a refusal is
   ``sandbox_policy_violation``, and the candidate never runs;
3. one sandbox is started (``auto`` / ``docker`` / ``process``): when the requested
   isolation cannot be had, ``sandbox_unavailable``, and nothing was judged;
4. every obligation of every function and system is run through the test engine
   (``forge/testing/_engine.py``), each call crossing the channel: generation, shrinking and
   judging stay on the host;
5. the verdict comes from the evidence only: ``passed`` when every obligation passed
   or was proved vacuous, ``failed`` on a counterexample or an unexercised obligation,
   and ``sandbox_policy_violation`` when the candidate was caught writing into the
   channel or the runtime guard refused what it did (a forbidden act at run time: the
   session's answers cannot be trusted);
6. a pass is replayed: a sample of its calls is made again in a fresh sandbox staged at
   another ordinary-looking path, in another order (``_replay.py``); a different answer
   makes the run ``failed`` ("nondeterministic") with both observations.

What produced the candidate never certifies it: the receipts are written by the host
that watched each sandbox start, and a ``passed`` without receipts is impossible by
construction (checked here, because a verdict without receipts would be a bug).

A ``permissive`` policy (or any policy that reports instead of refusing) is allowed for
code the user trusts, but the candidate then shares an interpreter with the worker with
nothing to stop it rewriting the worker; the document says so in ``warnings`` and the
build pipeline must never count such evidence as verification.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import settings

from derivative._errors import SandboxUnavailable, UsageError, exit_code_for
from derivative._typecheck import TypeInfo

from ..posture import DEFAULT_POLICY, PostureVerdict, validate_path
from ..sandbox import BackendName, Launcher, Limits, RunReceipt, Sandbox, open_sandbox
from ..testing import Constants, Engine, EngineOptions, RunEvidence, constants_of, hints_of
from ._caller import SandboxCaller
from ._candidate import refuse_unreadable
from ._coverage import CoverageLedger, collect, map_candidate
from ._coverage_text import coverage_lines, coverage_phrase
from ._document import RunDocument, RunStatus
from ._early import EarlySandbox
from ._replay import Recording, replay

__all__ = ["RunOptions", "RunReport", "judge_candidate", "run_candidate"]

NON_ENFORCING_WARNING = (
    "policy {policy} reports without refusing: the candidate shares an interpreter with "
    "the worker and nothing stopped it rewriting the worker, so these answers are only as "
    "trustworthy as the code itself; use the default policy for code you do not trust"
)
WEAK_ISOLATION_WARNING = (
    "the sandbox could not give every isolation feature: {missing} (see `derivative "
    "sandbox doctor`)"
)


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """What ``derivative run`` was asked for (its flags; their defaults are these)."""

    candidate: str
    """The implementation: a ``.py`` file, a package folder, or a folder with ``module``."""
    module: str | None = None
    """The module to import from a candidate folder."""
    sandbox: BackendName = "auto"
    """Where the candidate runs: Docker when the engine and image are there, else the
    process sandbox (``auto``); ``docker`` never falls back."""
    policy: str = DEFAULT_POLICY
    """The posture policy: a shipped name or the path of a policy file."""
    examples: int = EngineOptions.examples
    """Generated inputs per function or operation, on top of the solver's inputs."""
    seed: int | None = None
    """A Hypothesis seed; None: derandomised (the same inputs every run)."""
    limits: Limits = field(default_factory=Limits)
    """Call and run time limits and the sandbox's resource limits."""
    image: str | None = None
    """The Docker image (None: ``forge.sandbox.DEFAULT_TAG``); never pulled."""
    verbose: bool = False
    """Interleavings in the report name the bytecode instructions (``EngineOptions``)."""
    coverage: bool = True
    """Measure which of the candidate's lines and branches the judged inputs ran (inside
    the sandbox; checked on the host, ``_coverage.py``), and keep generating inputs for a
    function while that still grows, up to ``max_examples``."""
    max_examples: int = EngineOptions.max_examples
    """Generated inputs per function at most while coverage still grows."""


@dataclass
class RunReport:
    """The outcome of one ``derivative run`` and everything needed to explain it."""

    status: RunStatus
    reason: str
    spec: dict[str, Any]
    options: RunOptions
    posture: PostureVerdict | None = None
    evidence: RunEvidence | None = None
    sandbox: dict[str, Any] | None = None
    candidate_sha256: str | None = None
    receipts: list[RunReceipt] = field(default_factory=list)
    unknowns: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    replay: dict[str, Any] | None = None
    hints: list[str] = field(default_factory=list)
    """White-box hints the engine used (``_whitebox``)."""
    coverage: CoverageLedger | None = None
    """What the judged inputs ran of the candidate (None: not measured)."""

    @property
    def exit_code(self) -> int:
        """The status's exit code (docs/cli.md, "Exit codes", ``derivative._errors.ExitCode``)."""
        return exit_code_for(self.status)

    def document(self) -> RunDocument:
        """The ``derivative.run/v1`` document, validated by its model."""
        obligations = [o.to_json() for o in self.evidence.obligations] if self.evidence else []
        data: dict[str, Any] = {
            "status": self.status,
            "reason": self.reason,
            "spec": self.spec,
            "candidate": {
                "path": self.options.candidate,
                "module": self.options.module,
                "sha256": self.candidate_sha256,
            },
            "sandbox": self.sandbox,
            "posture": self.posture,
            "enforcing": None if self.posture is None else self.posture.enforced,
            "obligations": obligations,
            "unknowns": self.unknowns,
            "warnings": self.warnings,
            "receipts": self.receipts,
            "replay": self.replay,
            "stats": dict(self.evidence.stats) if self.evidence else {},
            "strength": self.strength(),
        }
        return RunDocument.model_validate(data)

    def strength(self) -> dict[str, Any] | None:
        """The evidence in figures (``EvidenceStrength``); None when nothing was judged."""
        if self.evidence is None:
            return None
        states = [t.state for o in self.evidence.obligations for t in o.triggers]
        return {
            "targets": sum(1 for s in states if s in ("hit", "missed")),
            "reached": states.count("hit"), "impossible": states.count("vacuous"),
            "undecided": states.count("unknown"),
            "inputs": sum(o.inputs for o in self.evidence.obligations),
            "counterexamples": sum(1 for o in self.evidence.obligations
                                   if o.counterexample is not None),
            "white_box_hints": list(self.hints),
            "coverage": None if self.coverage is None else self.coverage.figures(),
            "budget": self.budget(),
        }

    def budget(self) -> dict[str, Any] | None:
        """How far input generation went while coverage grew (``InputBudget``)."""
        if self.coverage is None or self.evidence is None:
            return None
        stats = [(k, v) for k, v in self.evidence.stats.items()
                 if isinstance(v, dict) and "rounds" in v]
        return {"examples": self.options.examples, "max_examples": self.options.max_examples,
                "rounds": sum(int(v["rounds"]) for _, v in stats),
                "stopped": {k: str(v["coverage_stop"]) for k, v in stats
                            if v.get("coverage_stop") in ("examples", "time")}}

    def strength_line(self) -> str | None:
        """``evidence: 57 of 57 contract targets reached (3 impossible), 612 judged inputs,
        ...`` (one line, in the text report)."""
        f = self.strength()
        if f is None:
            return None
        extra = [f"{f['impossible']} impossible"] if f["impossible"] else []
        extra += [f"{f['undecided']} undecided"] if f["undecided"] else []
        hints = ", ".join(f["white_box_hints"]) or "none"
        return (f"evidence: {f['reached']} of {f['targets']} contract targets reached"
                + (f" ({', '.join(extra)})" if extra else "")
                + f", {f['inputs']} judged inputs, {f['counterexamples']} shrunk "
                f"counterexample{'s' if f['counterexamples'] != 1 else ''}, "
                + coverage_phrase(f["coverage"], self.coverage is not None)
                + f", white-box hints: {hints}")

    def to_json(self) -> dict[str, Any]:
        return self.document().model_dump(mode="json")

    def summary(self) -> str:
        """The human report: the status and why, where it ran, then each obligation that
        did not pass with its counterexample (or what was missing)."""
        lines = [f"{self.spec.get('name', '?')}: {self.status}: {self.reason}"]
        if self.sandbox is not None:
            iso = ", ".join(self.sandbox["isolation"]) or "none verified"
            image = f", image {self.sandbox['image_id']}" if self.sandbox["image_id"] else ""
            lines.append(f"sandbox: {self.sandbox['backend']}{image} ({iso})")
        if self.posture is not None:
            findings = len(self.posture.findings)
            lines.append(
                f"posture: policy {self.posture.policy}, "
                + ("accepted" if self.posture.accepted else "refused")
                + (f", {findings} finding{'s' if findings != 1 else ''}" if findings else "")
            )
            if not self.posture.accepted:
                lines.extend("  " + f.render() for f in self.posture.findings)
        if self.evidence is not None:
            counts: dict[str, int] = {}
            for o in self.evidence.obligations:
                counts[o.status] = counts.get(o.status, 0) + 1
            if counts:
                lines.append("obligations: " + ", ".join(
                    f"{n} {s}" for s, n in sorted(counts.items())))
            strength = self.strength_line()
            if strength:
                lines.append(strength)
            lines.extend(coverage_lines(self.strength()))
            lines.extend(self.evidence.explanations())
        if self.replay is not None:
            bad = len(self.replay["mismatches"])
            lines.append(f"replay: {self.replay['calls']} calls and {self.replay['histories']} "
                         "histories again in a fresh sandbox staged elsewhere: "
                         + (f"{bad} different" if bad else "the same answers"))
        lines.extend(f"unknown: {u}" for u in self.unknowns)
        lines.extend(f"warning: {w}" for w in self.warnings)
        if self.receipts:
            lines.append(f"receipts: {len(self.receipts)} sandbox start"
                         f"{'s' if len(self.receipts) != 1 else ''}, "
                         f"{sum(r.calls for r in self.receipts)} calls")
        return "\n".join(lines)


def _spec_identity(info: TypeInfo) -> dict[str, Any]:
    from derivative._canon import contract_identity

    c = info.contract
    return {"name": c.name, "version": c.version, "sha256": contract_identity(c)}


def _binds(info: TypeInfo) -> dict[str, str]:
    from derivative._ast import BindDecl

    return {d.name: d.target for d in info.contract.declarations if isinstance(d, BindDecl)}


def _feasibility(info: TypeInfo, progress: Callable[[str, str], None] | None = None
                 ) -> tuple[str, str, list[str]]:
    """The solver's word on the contract: (status, reason, unknown questions)."""
    from derivative.solver import CheckOptions, check

    told = progress or _quiet
    result = check(info.contract, info, CheckOptions(),
                   progress=lambda step, detail: told("feasibility", f"question {detail}"))
    unknowns = [f"{u.question}: {u.reason}" for u in result.unknowns]
    if result.status == "infeasible_proven":
        ids = ", ".join(result.cores[0].ids) if result.cores else "?"
        return (result.status, f"the contract contradicts itself (minimal conflict: {ids}); "
                "run `derivative check` for the proof", unknowns)
    return (result.status, "", unknowns)


def run_candidate(
    info: TypeInfo, options: RunOptions, *, launcher: Launcher | None = None,
    progress: Callable[[str, str], None] | None = None,
) -> RunReport:
    """Run the pipeline of the module docstring; raises only for bad input
    (``UsageError``: a missing candidate, a folder without its module, a bad module name,
    an unknown policy; ``CandidateSourceError``: a file that is not Python source), and
    for the candidate before the contract's feasibility is decided.  ``progress(step,
    detail)`` hears of each step (``feasibility``, then those of ``judge_candidate``)."""
    spec = _spec_identity(info)
    refuse_unreadable(options.candidate, options.module)  # before the solver spends its time
    status, reason, unknowns = _feasibility(info, progress)
    if status == "infeasible_proven":
        report = RunReport("infeasible_proven", reason, spec, options, unknowns=unknowns)
        return report
    warnings = []
    if status == "unknown":
        warnings.append(
            "the solver could not decide whether the contract is consistent; "
            "the run went on (see unknowns)"
        )
    return judge_candidate(info, options, launcher=launcher, unknowns=unknowns,
                           warnings=warnings, progress=progress)


def judge_candidate(
    info: TypeInfo,
    options: RunOptions,
    *,
    launcher: Launcher | None = None,
    unknowns: list[str] | None = None,
    warnings: list[str] | None = None,
    progress: Callable[[str, str], None] | None = None,
) -> RunReport:
    """Steps 2-5 of the module docstring for a contract already known not to be
    infeasible (``derivative build`` decides feasibility once, then judges each attempt).

    ``progress(step, detail)``, when given, is called as the posture check starts
    (``posture``), as the sandbox starts (``sandbox``), as the obligations start and as
    they go (``obligations``: the function or system, the calls so far; closing the
    sandbox is part of it) and as the replay starts (``replay``)."""
    progress = progress or _quiet
    spec = _spec_identity(info)
    if not os.path.exists(options.candidate):
        raise UsageError(f"candidate {options.candidate} does not exist")
    report = RunReport("failed", "", spec, options, unknowns=list(unknowns or []),
                       warnings=list(warnings or []))
    progress("posture", f"the candidate's source under policy {options.policy}")
    verdict = validate_path(options.candidate, options.policy)
    report.posture = verdict
    if not verdict.accepted:
        n = len(verdict.findings)
        report.status = "sandbox_policy_violation"
        report.reason = (f"the candidate's source was refused by policy {verdict.policy} "
                         f"({n} finding{'s' if n != 1 else ''}); it was not run")
        return report
    if not verdict.enforced:
        report.warnings.append(NON_ENFORCING_WARNING.format(policy=verdict.policy))
    progress("sandbox", f"starting the {options.sandbox} sandbox")
    try:
        sandbox = open_sandbox(
            options.candidate, module=options.module, kind=options.sandbox,
            contract_sha256=spec["sha256"], binds=_binds(info), limits=options.limits,
            image=options.image, launcher=launcher, guard=verdict.enforced,
            coverage=options.coverage,
        )
    except SandboxUnavailable as exc:
        report.status = "sandbox_unavailable"
        report.reason = f"no {options.sandbox} sandbox: {exc}; nothing was judged"
        return report
    report.candidate_sha256 = sandbox.staged.digest
    recording = Recording(seed=options.seed or 0)
    opener = functools.partial(
        open_sandbox, options.candidate, module=options.module, kind=options.sandbox,
        contract_sha256=spec["sha256"], binds=_binds(info),
        limits=dataclasses.replace(options.limits, colocate=False), image=options.image,
        launcher=launcher, guard=verdict.enforced, avoid=sandbox.staged.inside)
    early = EarlySandbox(opener, start=False)
    try:
        try:
            _judge(info, sandbox, options, report, progress, recording,
                   lambda: early.begin(sandbox.spare_cpus()))
        finally:
            report.receipts = list(sandbox.close())
        report.sandbox = _sandbox_info(sandbox, options.limits)
        _weak_isolation(sandbox, report)
        if report.status == "passed":
            progress("replay", "a sample of the calls again, in a differently shaped run")
            _replay(recording, report, early)
    finally:
        early.discard()  # a no-op once the replay took it
    if report.status == "passed" and not report.receipts:  # pragma: no cover - a bug guard
        raise AssertionError("a passed run without receipts")
    return report


def _quiet(step: str, detail: str) -> None:
    return None


def _hints(sandbox: Sandbox) -> tuple[frozenset[str], Constants]:
    """White-box hints and literals from the staged candidate's Python files, read as
    text (``constants`` joins the hints when there are literals)."""
    staged = sandbox.staged
    sources = []
    for rel in staged.files:
        if rel.endswith(".py"):
            try:
                sources.append((staged.candidate_dir / rel).read_bytes())
            except OSError:
                continue
    constants = constants_of(sources)
    extra = {"constants"} if constants.ints or constants.texts else set()
    return hints_of(sources) | extra, constants


def _judge(info: TypeInfo, sandbox: Sandbox, options: RunOptions, report: RunReport,
           progress: Callable[[str, str], None], recording: Recording,
           started: Callable[[], None]) -> None:
    try:
        load = sandbox.start()
    except SandboxUnavailable as exc:
        report.status = "sandbox_unavailable"
        report.reason = f"the {sandbox.backend} sandbox could not start: {exc}; nothing was judged"
        return
    started()
    progress("obligations", f"every obligation through the {sandbox.backend} sandbox")
    base = settings(derandomize=options.seed is None)
    hints, constants = _hints(sandbox)
    report.hints = sorted(hints)
    ledger = None
    if options.coverage:
        ledger = CoverageLedger(map_candidate(sandbox.staged.candidate_dir, sandbox.staged.files))
    engine = Engine(
        info, SandboxCaller(sandbox, recording),
        EngineOptions(examples=options.examples, settings=base, seed=options.seed,
                      verbose=options.verbose, hints=hints, constants=constants,
                      growth=None if ledger is None else functools.partial(collect, sandbox,
                                                                           ledger),
                      max_examples=options.max_examples),
        target=options.candidate, progress=progress,
    )
    try:
        evidence = engine.run()
        if ledger is not None:
            collect(sandbox, ledger)
            ledger.lost = ledger.lost or sandbox.restarts > 0
    except SandboxUnavailable as exc:
        report.status = "sandbox_unavailable"
        report.reason = (f"the {sandbox.backend} sandbox became unavailable during the run: "
                         f"{exc}; nothing was judged")
        return
    report.coverage = ledger
    report.evidence = evidence
    report.unknowns = list(dict.fromkeys([*report.unknowns, *evidence.unknowns]))
    if sandbox.refusals:
        refusal = sandbox.refusals[0]
        report.status = "sandbox_policy_violation"
        report.reason = (f"the runtime guard refused {refusal.event} ({refusal.where}): the "
                         "candidate did at run time what the policy forbids")
        return
    if ledger is not None and ledger.rejected is not None:
        report.status = "sandbox_policy_violation"
        report.reason = (f"the sandbox's coverage answer was forged ({ledger.rejected}): none "
                         "of the session's answers can be trusted")
        return
    if sandbox.tainted:
        report.status = "sandbox_policy_violation"
        report.reason = ("the candidate wrote into the channel (a forged or malformed frame was "
                         "caught): none of the session's answers can be trusted")
        return
    report.status = evidence.status
    if not load.ok:
        why = load.detail or (load.exc.message if load.exc else load.status)
        report.reason = f"the candidate could not be imported in the sandbox: {why}"
    elif not evidence.obligations:
        report.reason = "the contract has no function or system to run: nothing was judged"
    elif evidence.status == "passed":
        judged = sum(o.inputs for o in evidence.obligations)
        report.reason = (f"every obligation passed or was proved vacuous ({judged} judged "
                         "inputs, every possible trigger hit)")
    else:
        report.reason = evidence.failure_reason()


def _replay(recording: Recording, report: RunReport, early: EarlySandbox) -> None:
    """Step 6: a sample of the judged calls again in a fresh sandbox staged elsewhere
    (``_replay.py``), started while the run went on (``_early.py``); a different answer
    turns the pass into ``failed``."""
    if not recording.calls and not any(h.steps for h in recording.histories):
        early.discard()
        return
    try:
        sandbox = early.take()
    except SandboxUnavailable as exc:
        report.status = "sandbox_unavailable"
        report.reason = f"the replay's sandbox could not be had: {exc}; nothing was concluded"
        return
    try:
        load = sandbox.start()
        calls, histories, mismatches = (0, 0, []) if not load.ok else replay(
            recording, SandboxCaller(sandbox))
    except SandboxUnavailable as exc:
        report.status = "sandbox_unavailable"
        report.reason = f"the replay's sandbox could not start: {exc}; nothing was concluded"
        return
    finally:
        report.receipts.extend(sandbox.close())
    report.replay = {"calls": calls, "histories": histories,
                     "mismatches": [m.to_json() for m in mismatches]}
    if sandbox.refusals:
        refusal = sandbox.refusals[0]
        report.status = "sandbox_policy_violation"
        report.reason = (f"the runtime guard refused {refusal.event} ({refusal.where}) in the "
                         "replay run")
    elif not load.ok:
        why = load.detail or (load.exc.message if load.exc else load.status)
        report.status = "failed"
        report.reason = f"nondeterministic: the candidate did not load in the replay run: {why}"
    elif sandbox.tainted:
        report.status = "sandbox_policy_violation"
        report.reason = "the candidate wrote into the channel during the replay run"
    elif mismatches:
        report.status = "failed"
        report.reason = ("nondeterministic: " + mismatches[0].sentence()
                         + (f" (and {len(mismatches) - 1} more)" if len(mismatches) > 1 else ""))


def _sandbox_info(sandbox: Sandbox, limits: Limits) -> dict[str, Any]:
    return {
        "backend": sandbox.backend,
        "isolation": list(sandbox.isolation),
        "image_id": sandbox.image_id,
        "restarts": sandbox.restarts,
        "limits": dataclasses.asdict(limits),
    }


def _weak_isolation(sandbox: Sandbox, report: RunReport) -> None:
    """The process backend records what it could not get (a plain child, say)."""
    weak = [f for f in sandbox.isolation if f.startswith("weaker")]
    if weak:
        report.warnings.append(WEAK_ISOLATION_WARNING.format(missing=", ".join(weak)))
