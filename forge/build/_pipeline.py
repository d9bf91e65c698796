"""``derivative build``: decide whether a candidate may be packaged, and remember it.

The order is fixed and each gate can end the build with its own status:

1. the contract is frozen (``build_spec.json``) before any candidate is read;
2. feasibility: an infeasible contract ends ``infeasible_proven`` with ``certificate.json``
   (the candidate is never read or produced); otherwise ``feasible_plan.json``;
3. a candidate: a given path, a generator's output, or the built-in synthesiser's;
4. for each attempt: static posture of the code the judge can run, one sandbox, the
   import, every obligation through the engine (``forge.run.judge_candidate``), then the
   candidate's own tests (reported, never evidence), then evidence sufficiency;
5. with a generator, bounded repair (``_repair.py``) until verified or a stop reason;
6. ``verified`` only for an attempt whose every obligation passed or was proved vacuous
   under an enforcing policy; then the package, built to a temporary name;
7. publishing (``_publish.py``): evidence durable, ledger record committed, package made
   visible, ``outcome.json`` written last.

What produced a candidate never certifies it: the generator's output is code to judge,
nothing of what it says (files, tests, comments) is counted as evidence.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
import secrets
import shutil
import tempfile
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from derivative._audit import AuditCall, audited
from derivative._canon import contract_identity
from derivative._errors import UsageError
from derivative._typecheck import TypeInfo
from derivative._version import __version__
from derivative.solver import CheckOptions, certify, check, render_json

from ..run import RunOptions, RunReport, judge_candidate
from ..sandbox import Launcher
from ._closure import Layout, read_layout, refuse_unjudgeable, stage
from ._documents import EXIT_CODES, OutcomeDocument, outcome_json
from ._folder import BuildFolder, canonical_bytes
from ._generate import (
    Attempt,
    CommandGenerator,
    GenerationRequest,
    GeneratorFailed,
    PathCandidate,
    make_attempt,
)
from ._ledger import BuildStatus, Ledger, LedgerRecord, default_state_dir
from ._options import BuildOptions
from ._owntests import NOT_EVIDENCE, OwnTest, run_own_tests
from ._package import in_toto_statement, make_package, result_predicate, wheel_name
from ._publish import publish
from ._repair import RepairResult, Validation, failure_signature, repair_loop
from ._synth import synthesize

Progress = Callable[[str, str], None]
"""``progress(gate, detail)``: called as each gate starts (the CLI shows it on a terminal)."""


def _utc() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat().replace("+00:00", "Z")


def _quiet(gate: str, detail: str) -> None:
    return None


@dataclass
class Judged:
    """Everything one attempt's validation produced (kept for the artifacts)."""

    attempt: Attempt
    layout: Layout | None
    run: RunReport | None
    own_tests: list[OwnTest] = field(default_factory=list)
    own_receipts: list[Any] = field(default_factory=list)
    gates: list[dict[str, str]] = field(default_factory=list)
    validation: Validation | None = None


@dataclass
class BuildReport:
    """The outcome of one build: its status, its folder and the outcome document."""

    status: str
    reason: str
    folder: Path
    outcome: dict[str, Any]
    package: Path | None = None
    warnings: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    """Each obligation the best attempt did not pass, explained (counterexample or gap)."""

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def summary(self) -> str:
        lines = [f"{self.outcome['spec']['name']}: {self.status}: {self.reason}"]
        for g in self.outcome.get("gates", []):
            lines.append(f"  {g['gate']}: {g['status']}: {g['detail']}")
        if self.outcome.get("attempts", 0) > 1:
            lines.append(f"repair: {self.outcome['attempts']} attempts, stopped: "
                         f"{self.outcome['stop_reason']} (every attempt in code_artifact.json)")
        lines.extend(self.failures)
        lines.append(f"build folder: {self.folder}")
        if self.package is not None:
            lines.append(f"package: {self.package}")
        lines.extend(f"warning: {w}" for w in self.warnings)
        return "\n".join(lines)


def module_name_for(spec_name: str) -> str:
    """The target module a generator writes when the user names none (the spec's name)."""
    name = re.sub(r"\W", "_", spec_name).strip("_") or "candidate"
    return name if not name[0].isdigit() else f"m_{name}"


class _Build:
    """One build in progress: its folder, ledger, options and what it has found so far."""

    def __init__(self, info: TypeInfo, options: BuildOptions, *, contract_doc: dict[str, Any],
                 spec_files: Sequence[Path], launcher: Launcher | None,
                 progress: Progress, audit: AuditCall) -> None:
        self.info = info
        self.options = options
        self.contract_doc = contract_doc
        self.spec_files = list(spec_files)
        self.launcher = launcher
        self.progress = progress
        self.audit = audit
        c = info.contract
        self.spec: dict[str, Any] = {"name": c.name, "version": c.version,
                                     "sha256": contract_identity(c)}
        self.build_id = secrets.token_hex(8)
        self.started_at = _utc()
        self.warnings: list[str] = []
        self.unknowns: list[str] = []
        self.module = options.module or module_name_for(c.name)
        self.synthesised: dict[str, bytes] = {}
        out = self._out_path()
        BuildFolder.refuse_occupied(out)  # before the ledger creates its state folder
        self.ledger = Ledger(Path(options.state) if options.state else default_state_dir())
        self.folder = BuildFolder.create(out)
        self.work = Path(tempfile.mkdtemp(prefix="derivative-build-"))

    def _out_path(self) -> Path:
        if self.options.out:
            return Path(self.options.out)
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
        return Path("derivative-builds") / f"{module_name_for(self.spec['name'])}-{stamp}-" \
            f"{self.build_id[:6]}"

    # ------------------------------------------------------------------ the chain

    def freeze(self) -> None:
        """``build_spec.json``: the contract as it is judged, before any candidate."""
        self.ledger.recover()
        changed = self.ledger.identity_changed(self.spec["name"], self.spec["version"],
                                               self.spec["sha256"])
        if changed:
            self.warnings.append(changed)
        sources = [{"path": str(p), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
                   for p in self.spec_files]
        self.folder.write_json("build_spec.json", {
            "format": "derivative.build-spec/v1",
            "build_id": self.build_id,
            "spec": self.spec,
            "contract": self.contract_doc,
            "sources": sources,
            "tool": {"name": "derivative", "version": __version__},
            "frozen_at": _utc(),
        })

    def feasibility(self) -> dict[str, Any] | None:
        """The solver's answer; the certificate when the contract is infeasible."""
        self.progress("feasibility", "checking the contract with the solver")
        result = check(self.info.contract, self.info, CheckOptions())
        self.unknowns = [f"{u.question}: {u.reason}" for u in result.unknowns]
        if result.status == "infeasible_proven":
            cert = certify(self.info.contract, self.info, result.cores[0])
            doc = cert.to_json() if hasattr(cert, "to_json") else cert
            # the certificate is a published format with its own hash and no extra field:
            # written as it is; its `spec` names the identity that build_spec.json freezes
            self.folder.write_bytes("certificate.json", canonical_bytes(dict(doc)))
            ids = ", ".join(result.cores[0].ids) if result.cores else "?"
            return {"reason": f"the contract contradicts itself (minimal conflict: {ids}); "
                    "certificate.json holds the proof"}
        if result.status == "unknown":
            self.warnings.append("the solver could not decide whether the contract is "
                                 "consistent; the build went on (see unknowns)")
        self.folder.write_json("feasible_plan.json", {
            "format": "derivative.feasible-plan/v1",
            "check": render_json(result),
            "plan": self._plan(),
        }, ["build_spec.json"])
        return None

    def _plan(self) -> list[dict[str, Any]]:
        """Which obligations each function and system must meet, and their triggers."""
        from ..testing import Engine, EngineOptions

        engine = Engine(self.info, _NoCaller(), EngineOptions(examples=self.options.examples))
        out = []
        for owner in self._owners():
            entry: dict[str, Any] = {"owner": owner, "obligations": [
                {"id": o.id, "kind": o.kind} for o in self.info.contract.obligations_of(owner)]}
            if owner in self._functions():
                plan = engine.plan_of(owner)
                entry["triggers"] = [{"id": t.id, "obligation": t.obligation, "kind": t.kind,
                                      "description": t.description, "solver": t.status}
                                     for t in plan.triggers]
                entry["solver_inputs"] = len(plan.inputs)
            out.append(entry)
        return out

    def _functions(self) -> set[str]:
        from derivative._ast import FunctionDecl

        return {d.name for d in self.info.contract.declarations if isinstance(d, FunctionDecl)}

    def _owners(self) -> list[str]:
        from derivative._ast import FunctionDecl, SystemDecl

        return [d.name for d in self.info.contract.declarations
                if isinstance(d, (FunctionDecl, SystemDecl))]


class _NoCaller:
    """The engine's plan needs no candidate; any call through this is a bug."""

    def call(self, func_name: str, args: Sequence[object]) -> Any:  # pragma: no cover
        raise AssertionError("the plan is computed before any candidate exists")

    def new_instance(self, system: str) -> Any:  # pragma: no cover
        raise AssertionError("the plan is computed before any candidate exists")

    def method(self, handle: object, op: str, args: Sequence[object]) -> Any:  # pragma: no cover
        raise AssertionError("the plan is computed before any candidate exists")


# --------------------------------------------------------------------------- attempts


class _Attempts(_Build):
    """Producing candidates and judging each one."""

    judged: dict[int, Judged]

    def _binds(self) -> list[str]:
        return _binds_of(self.info)

    def _attempt_dir(self, attempt: Attempt) -> Path:
        """The attempt's files, copied into the build folder (where nothing generated runs)."""
        base = self.folder.path / "candidates" / str(attempt.number)
        for rel, data in sorted(attempt.files.items()):
            self.folder.write_bytes(f"candidates/{attempt.number}/{rel}", data)
        return base

    def validate(self, attempt: Attempt) -> Validation:
        """Every gate for one attempt; the ``Validation`` the repair loop reasons with."""
        judged = Judged(attempt, None, None)
        self.judged[attempt.number] = judged
        self.audit.executed(attempt.files)
        self.progress("judged files", f"attempt {attempt.number}: {len(attempt.files)} file(s) "
                      "kept in the build folder, the import closure read")
        root = self._attempt_dir(attempt)
        module = self.module if attempt.origin != "path" else self.options.module
        source = root if attempt.origin != "path" or len(attempt.files) != 1 else \
            root / next(iter(attempt.files))
        try:
            judged.layout = read_layout(source, module, self._binds())
        except UsageError as exc:
            if attempt.origin == "path":
                raise
            judged.gates.append(_gate("import", "failed", str(exc)))
            return self._validation(judged, "validation_failed", str(exc))
        layout = judged.layout
        staged = stage(layout, layout.judged, self.work / f"judged-{attempt.number}")
        self.progress("posture", f"attempt {attempt.number}: {len(layout.judged)} judged file(s)")
        run = judge_candidate(self.info, RunOptions(
            candidate=str(staged), module=layout.module, sandbox=self.options.sandbox,
            policy=self.options.policy, examples=self.options.examples, seed=self.options.seed,
            limits=self.options.limits, image=self.options.image,
        ), launcher=self.launcher, unknowns=self.unknowns, progress=self.progress)
        judged.run = run
        judged.gates.extend(_run_gates(run))
        judged.gates.extend(_coverage_gate(run, self.options.require_coverage))
        if layout.tests and run.status not in ("sandbox_unavailable", "sandbox_policy_violation"):
            self.progress("own tests", f"{len(layout.tests)} test file(s), never evidence")
            everything = stage(layout, layout.files, self.work / f"all-{attempt.number}")
            judged.own_tests, judged.own_receipts = run_own_tests(
                everything, {r: layout.files[r] for r in layout.tests},
                kind=self.options.sandbox, contract_sha256=self.spec["sha256"],
                limits=self.options.limits, image=self.options.image, launcher=self.launcher)
            passed = sum(t.status == "passed" for t in judged.own_tests)
            judged.gates.append(_gate("own_tests", "reported",
                                      f"{passed}/{len(judged.own_tests)} passed; {NOT_EVIDENCE}"))
        status, reason = self._sufficiency(run)
        judged.gates.append(_gate("sufficiency", "passed" if status == "verified" else "failed"
                                  if status == "validation_failed" else "skipped", reason))
        return self._validation(judged, status, reason)

    def _sufficiency(self, run: RunReport) -> tuple[str, str]:
        """The build's status from the run's evidence (nothing is verified by default)."""
        if run.status in ("sandbox_unavailable", "sandbox_policy_violation", "unknown"):
            return run.status, run.reason
        if run.status != "passed":
            return "validation_failed", run.reason
        if run.posture is None or not run.posture.enforced:
            policy = run.posture.policy if run.posture else self.options.policy
            return "validation_failed", (
                f"every obligation passed, but policy {policy} does not enforce its refusals: "
                "evidence gathered under a non-enforcing policy is never verified")
        if not run.receipts:  # pragma: no cover - a bug guard: no verdict without receipts
            raise AssertionError("a passed run without receipts")
        never = _never_run(run)
        if self.options.require_coverage and never:
            return "validation_failed", (
                f"every obligation passed, but no judged input ran {never}; "
                "--require-coverage asks that every line be reached")
        return "verified", run.reason

    def _validation(self, judged: Judged, status: str, reason: str) -> Validation:
        ev = judged.run.evidence if judged.run is not None else None
        obligations = ev.obligations if ev is not None else []
        failing = frozenset(o.id for o in obligations if o.status in ("failed", "unexercised"))
        passing = frozenset(o.id for o in obligations if o.status in ("passed", "vacuous"))
        cexs = [{"obligation": o.id, "input": o.counterexample, "message": o.explain()}
                for o in obligations if o.status in ("failed", "unexercised")]
        signature = failure_signature(failing, cexs)
        if status in ("sandbox_policy_violation", "sandbox_unavailable"):
            signature = hashlib.sha256(f"{status}:{reason}".encode()).hexdigest()[:16]
        judged.validation = Validation(
            status=status, passing=passing, failing=failing, signature=signature,
            counterexamples=cexs, message=reason)
        return judged.validation


def _binds_of(info: TypeInfo) -> list[str]:
    """The modules the spec's ``bind`` lines name (judged beside the target module)."""
    from derivative._ast import BindDecl

    return [d.target.partition(":")[0] for d in info.contract.declarations
            if isinstance(d, BindDecl)]


def _gate(name: str, status: str, detail: str) -> dict[str, str]:
    return {"gate": name, "status": status, "detail": detail}


def _run_gates(run: RunReport) -> list[dict[str, str]]:
    """The gates one judged run went through, each with what it found."""
    gates: list[dict[str, str]] = []
    if run.posture is not None:
        n = len(run.posture.findings)
        gates.append(_gate("posture", "passed" if run.posture.accepted else "refused",
                           f"policy {run.posture.policy}, {n} finding(s)"))
    if run.status == "sandbox_policy_violation" and run.posture and run.posture.accepted:
        gates.append(_gate("obligations", "refused", run.reason))
        return gates
    if run.status == "sandbox_unavailable":
        gates.append(_gate("sandbox", "unavailable", run.reason))
        return gates
    if run.sandbox is not None:
        iso = list(run.sandbox["isolation"])
        weak = [f for f in iso if f.startswith("weaker")]
        gates.append(_gate("sandbox", "passed", f"{run.sandbox['backend']}, {len(iso)} isolation "
                           "features verified" + (f" ({', '.join(weak)})" if weak else "")))
    if run.evidence is None:
        return gates
    imported = "could not be imported" not in run.reason
    gates.append(_gate("import", "passed" if imported else "failed",
                       "the candidate imported" if imported else run.reason))
    counts: dict[str, int] = {}
    for o in run.evidence.obligations:
        counts[o.status] = counts.get(o.status, 0) + 1
    judged = sum(o.inputs for o in run.evidence.obligations)
    gates.append(_gate("obligations", "passed" if run.status == "passed" else "failed",
                       ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
                       + f"; {judged} judged inputs"))
    line = run.strength_line()
    if line:  # the run's evidence in figures, as `derivative run` prints it
        gates.append(_gate("evidence", "reported", line.removeprefix("evidence: ")))
    return gates


def _never_run(run: RunReport) -> str:
    """``N line(s) of the candidate: mod.py:3, ...``; empty when every line ran or
    coverage was not measured."""
    strength = run.strength() or {}
    figures = strength.get("coverage")
    if not figures or not figures["never_run_count"]:
        return ""
    n = figures["never_run_count"]
    listed = ", ".join(figures["never_run"])
    more = n - len(figures["never_run"])
    return (f"{n} line{'s' if n != 1 else ''} of the candidate: {listed}"
            + (f" (and {more} more)" if more > 0 else ""))


def _coverage_gate(run: RunReport, required: bool) -> list[dict[str, str]]:
    """The ``coverage`` gate: what the judged inputs ran of the candidate."""
    strength = run.strength()
    if strength is None or run.coverage is None:
        return []
    figures = strength.get("coverage")
    if figures is None:
        return [_gate("coverage", "failed", "the coverage answer was refused as forged")]
    text = (f"{figures['lines_run']} of {figures['lines']} lines, {figures['branches_run']} "
            f"of {figures['branches']} branches")
    never = _never_run(run)
    if not never:
        return [_gate("coverage", "passed", text)]
    return [_gate("coverage", "failed" if required else "reported",
                  f"{text}; code no input reached: {never}")]


# --------------------------------------------------------------------------- the whole build


class _Pipeline(_Attempts):
    def produce(self) -> RepairResult:
        """Candidates from the chosen source, judged, repaired within the budget."""
        self.judged = {}
        opts = self.options
        request = GenerationRequest(contract=self.contract_doc, module=self.module, attempt=1)
        if opts.candidate is not None:
            first = PathCandidate(opts.candidate).read()
            return repair_loop(first=lambda: first, regenerate=_no_regeneration,
                               validate=self.validate, max_repairs=0)
        if opts.synth:
            made = make_attempt(self.synthesised, origin="synth", request=request)
            return repair_loop(first=lambda: made, regenerate=_no_regeneration,
                               validate=self.validate, max_repairs=0)
        assert opts.generator is not None
        gen = CommandGenerator(list(opts.generator), timeout=opts.generator_timeout)

        def first_attempt() -> Attempt:
            self.progress("generate", f"attempt 1: {' '.join(opts.generator or ())}")
            return gen.generate(request)

        def regenerate(req: GenerationRequest) -> Attempt:
            self.progress("repair", f"attempt {req.attempt}: asking the generator again")
            return gen.generate(req)

        return repair_loop(first=first_attempt, regenerate=regenerate, validate=self.validate,
                           max_repairs=opts.max_repairs, request=request)

    def artifacts(self, result: RepairResult) -> tuple[str, str, Judged | None]:
        """``code_artifact.json`` and ``validation_artifact.json``; the final status."""
        self.folder.write_json("code_artifact.json", {
            "format": "derivative.code-artifact/v1", **result.code_artifact(),
        }, ["build_spec.json"])
        chosen = result.best_attempt
        best = self.judged.get(chosen[0].number) if chosen is not None else None
        if best is None or best.validation is None:
            status = "validation_failed"
            reason = f"no candidate was judged ({result.stop_reason}: {result.message})"
        else:
            status, reason = best.validation.status, best.validation.message
        deps = ["build_spec.json", "feasible_plan.json", "code_artifact.json"]
        self.folder.write_json("validation_artifact.json", {
            "format": "derivative.validation-artifact/v1",
            "status": status,
            "stop_reason": result.stop_reason,
            "best_attempt": best.attempt.number if best else None,
            "attempts": [_judged_json(j) for _, j in sorted(self.judged.items())],
            "unknowns": self.unknowns,
            "own_tests_are_evidence": False,
        }, deps)
        return status, reason, best

    def package(self, best: Judged) -> tuple[Path, Path, str]:
        """The wheel of a verified build, at a temporary name (``publish`` reveals it)."""
        assert best.layout is not None
        files = {r: best.layout.files[r] for r in best.layout.judged}
        evidence = {n: (self.folder.path / n).read_bytes() for n in
                    ("build_spec.json", "feasible_plan.json", "code_artifact.json",
                     "validation_artifact.json")}
        statement = in_toto_statement(
            subjects={r: hashlib.sha256(d).hexdigest() for r, d in files.items()},
            predicate=self._predicate(best))
        dist = module_name_for(best.layout.module)
        version = f"{self.spec['version']}"
        path, digest = make_package(dest_dir=self.folder.path, dist_name=dist, version=version,
                                    candidate_files=files, evidence_files=evidence,
                                    statement=statement)
        final = self.folder.path / wheel_name(dist, version)
        self.folder.write_json("packaged_artifact.json", {
            "format": "derivative.packaged-artifact/v1",
            "package": {"path": str(final), "sha256": digest},
            "statement": statement,
        }, ["build_spec.json", "validation_artifact.json"])
        return path, final, digest

    def _predicate(self, best: Judged) -> dict[str, Any]:
        assert best.validation is not None
        evidence = {n: d for n, d in self.folder.digests.items() if n != "build_spec.json"
                    and not n.startswith("candidates/")}
        return result_predicate(
            passed=sorted(best.validation.passing), failed=sorted(best.validation.failing),
            contract_name=self.spec["name"], contract_version=self.spec["version"],
            contract_sha256=self.spec["sha256"],
            spec_sha256=self.folder.digests["build_spec.json"],
            gates={g["gate"]: {"status": g["status"], "detail": g["detail"]} for g in best.gates},
            outcome="verified", evidence=evidence)


def _judged_json(j: Judged) -> dict[str, Any]:
    run = j.run.to_json() if j.run is not None else None
    return {
        "attempt": j.attempt.number,
        "judged_files": list(j.layout.judged) if j.layout else [],
        "gates": j.gates,
        "validation": None if j.validation is None else {
            "status": j.validation.status, "failing": sorted(j.validation.failing),
            "passing": sorted(j.validation.passing), "message": j.validation.message,
            "counterexamples": j.validation.counterexamples,
        },
        "run": run,
        "own_tests": {"note": NOT_EVIDENCE, "results": [t.to_json() for t in j.own_tests],
                      "receipts": [r.model_dump(mode="json") for r in j.own_receipts]},
    }


def _no_regeneration(request: GenerationRequest) -> Attempt:  # pragma: no cover
    raise GeneratorFailed("this build has no generator to repair with")


def build(
    info: TypeInfo,
    options: BuildOptions,
    *,
    contract_doc: dict[str, Any],
    spec_files: Sequence[Path] = (),
    launcher: Launcher | None = None,
    progress: Progress | None = None,
) -> BuildReport:
    """The whole pipeline of the module docstring. Raises only for bad input (a missing
    candidate, no or several candidate sources, a contract ``--synth`` cannot handle, an
    occupied build folder), before anything is written; the refusal is audited."""
    progress = progress or _quiet
    with audited("build") as audit:
        c = info.contract
        audit.contract = {"name": c.name, "version": c.version, "sha256": contract_identity(c)}
        if options.source_count() != 1:
            raise UsageError("give exactly one of --candidate, --generator or --synth")
        if options.max_repairs < 0:
            raise UsageError("--max-repairs must be at least 0")
        if options.candidate is not None and not Path(options.candidate).exists():
            raise UsageError(f"candidate {options.candidate} does not exist")
        _refuse_bad_module(options)
        if options.candidate is not None:
            refuse_unjudgeable(Path(options.candidate), options.module)
        synthesised: dict[str, bytes] = {}
        if options.synth:
            progress("synthesise", "writing the candidate with the built-in synthesiser")
            synthesised = synthesize_files(info, options)
        progress("freeze", "opening the ledger, journalling the build, freezing the contract")
        b = _Pipeline(info, options, contract_doc=contract_doc, spec_files=spec_files,
                      launcher=launcher, progress=progress, audit=audit)
        b.synthesised = synthesised
        try:
            report = _run(b)
        finally:
            shutil.rmtree(b.work, ignore_errors=True)
        audit.outcome = {"status": report.status, "reason": report.reason,
                         "build_id": b.build_id, "folder": str(report.folder)}
        return report


def _module_name_ok(name: str) -> bool:
    return all(part.isidentifier() for part in name.split("."))


def _refuse_bad_module(options: BuildOptions) -> None:
    """A ``--module`` that cannot name a module is bad input, refused before any writing."""
    module = options.module
    if module is None:
        return
    if not _module_name_ok(module):
        raise UsageError(f"--module {module!r} is not a dotted module name")
    if options.synth and "." in module:
        raise UsageError(f"--synth writes one module file: --module {module!r} must be a "
                         "plain name")


@dataclass(frozen=True)
class _Loaded:
    """What ``synthesize`` reads of a loaded contract."""

    contract: Any
    types: TypeInfo


def synthesize_files(info: TypeInfo, options: BuildOptions) -> dict[str, bytes]:
    """``--synth``'s candidate (refused before anything is written, as bad input)."""
    module = options.module or module_name_for(info.contract.name)
    return synthesize(_Loaded(info.contract, info), module=module)


def _run(b: _Pipeline) -> BuildReport:
    with b.ledger.begin(build_id=b.build_id, folder=b.folder.path,
                        contract_name=b.spec["name"], contract_version=b.spec["version"],
                        contract_sha256=b.spec["sha256"]):
        return _stages(b)


def _stages(b: _Pipeline) -> BuildReport:
    b.freeze()
    infeasible = b.feasibility()
    if infeasible is not None:
        return _finish(b, "infeasible_proven", infeasible["reason"], None, None, None)
    result = b.produce()
    b.progress("artifacts", "writing the code and validation artifacts")
    status, reason, best = b.artifacts(result)
    package: tuple[Path, Path, str] | None = None
    if status == "verified" and best is not None and b.options.package:
        b.progress("package", "writing the package and its attestation")
        package = b.package(best)
    return _finish(b, status, reason, best, result, package)


def _finish(b: _Pipeline, status: str, reason: str, best: Judged | None,
            result: RepairResult | None, package: tuple[Path, Path, str] | None) -> BuildReport:
    """The outcome document, published with the ledger record (``_publish.py``)."""
    finished = _utc()
    run = best.run if best is not None else None
    doc = OutcomeDocument.model_validate({
        "status": status, "reason": reason, "build_id": b.build_id, "spec": b.spec,
        "candidate_sha256": run.candidate_sha256 if run is not None else None,
        "started_at": b.started_at, "finished_at": finished,
        "evidence": dict(b.folder.digests),
        "gates": best.gates if best is not None else [],
        "attempts": len(result.attempts) if result is not None else 0,
        "stop_reason": result.stop_reason if result is not None else None,
        "package": {"path": str(package[1]), "sha256": package[2]} if package else None,
        "policy": run.posture.policy if run is not None and run.posture else None,
        "enforced": run.posture.enforced if run is not None and run.posture else None,
        "warnings": b.warnings,
    })
    outcome = outcome_json(doc)
    b.progress("publish", "committing the ledger record and publishing the build")
    record = LedgerRecord(
        build_id=b.build_id, candidate_sha256=doc.candidate_sha256,
        contract_name=b.spec["name"], contract_version=b.spec["version"],
        contract_sha256=b.spec["sha256"], status=typing.cast(BuildStatus, status),
        reason=reason,
        started_at=b.started_at, finished_at=finished, folder=str(b.folder.path),
        package=str(package[1]) if package else None,
        package_sha256=package[2] if package else None,
        policy=doc.policy, enforced=bool(doc.enforced), tool_version=__version__)
    b.folder.sync()
    publish(folder=b.folder.path, ledger=b.ledger, record=record,
            package_tmp=package[0] if package else None,
            package_final=package[1] if package else None,
            outcome_bytes=canonical_bytes(outcome))
    failures = [o.explain() for o in run.evidence.obligations
                if o.status in ("failed", "unexercised")] if run and run.evidence else []
    return BuildReport(status, reason, b.folder.path, outcome,
                       package[1] if package else None, list(b.warnings), failures)
