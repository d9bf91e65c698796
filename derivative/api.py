"""The public API: load a requirement set, check it, test and run code against it.

This is the top layer (with the CLI): it may import every layer, and nothing below
imports it.  The heavy imports (the parser, the type checker, the solver, the build
pipeline) happen inside the functions so that ``import derivative.api`` stays cheap and
so that the document models below can be imported, e.g. by the schema generator, on
their own.

Every operation takes the ``LoadedContract`` that ``load`` returns and one frozen,
keyword-only options object whose defaults are the CLI's defaults (the CLI reads them
from there): ``check`` (``CheckOptions``), ``run_candidate`` (``RunOptions``),
``generate_tests`` and ``run_tests`` (``TestOptions``); ``verify_certificate``
(``VerifyOptions``) takes the certificate instead, because the checker reads the spec
itself.  The CLI calls nothing else; docs/api.md shows them at work.

``contract_json`` produces the ``derivative.contract/v1`` document of
docs/cli.md.  Its shape is fixed by the pydantic models in this module, and
the JSON Schema published in ``derivative/schemas/`` is generated from them, so
what ``derivative parse --json`` prints and what the schema promises cannot drift
apart.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeAlias

from derivative._ast import (
    ConstDecl,
    Contract,
    Decl,
    FunctionDecl,
    IntType,
    Located,
    Obligation,
    OperationDecl,
    Parameter,
    StrLit,
    StrType,
    TypeRef,
)
from derivative._audit import audited
from derivative._canon import contract_identity
from derivative._errors import UsageError
from derivative._files import MAX_CERTIFICATE_BYTES, read_regular_file
from derivative._record import record, replace
from derivative._strictjson import JSONRefused
from derivative._strictjson import loads as strict_json
from derivative._timed_ast import TimedComponent

if TYPE_CHECKING:
    from derivative._contract_doc import ContractDocument
    from derivative._typecheck import TypeInfo
    from derivative.certificates import Certificate, CertificateDocument, VerifyResult
    from derivative.forge.build import LEDGER_FILE as LEDGER_FILE

    # the names of _FACES (below), for static checkers; at run time they are lazy
    from derivative.forge.build import BuildOptions as BuildOptions
    from derivative.forge.build import BuildReport, LedgerAnswer, PackageCheck
    from derivative.forge.build import Ledger as Ledger
    from derivative.forge.build import default_state_dir as default_state_dir
    from derivative.forge.posture import DEFAULT_POLICY as DEFAULT_POLICY
    from derivative.forge.posture import PostureVerdict as PostureVerdict
    from derivative.forge.posture import available_policies as available_policies
    from derivative.forge.run import RunDocument as RunDocument
    from derivative.forge.run import RunOptions as RunOptions
    from derivative.forge.run import RunReport
    from derivative.forge.sandbox import DEFAULT_TAG as DEFAULT_TAG
    from derivative.forge.sandbox import BackendName as BackendName
    from derivative.forge.sandbox import Limits as Limits
    from derivative.forge.sandbox import build_image as build_image
    from derivative.forge.testing import RunEvidence
    from derivative.forge.testing import TestOptions as TestOptions
    from derivative.importers import ImportDocument as ImportDocument
    from derivative.importers import ImportOptions as ImportOptions
    from derivative.importers import ImportResult
    from derivative.solver import CheckOptions as CheckOptions
    from derivative.solver import CheckResult
    from derivative.solver import render_json as render_json
    from derivative.solver import render_sarif as render_sarif
    from derivative.solver import render_text as render_text
    from derivative.timed import TimedOptions as TimedOptions
    from derivative.timed import TimedResult

CONTRACT_FORMAT = "derivative.contract/v1"

SpecPath: TypeAlias = "str | os.PathLike[str]"

# --------------------------------------------------------------------------- loading


@record
class LoadedContract:
    """A parsed and type-checked requirement set.

    ``contract`` is the immutable AST of every file of the set; ``types`` is what the
    type checker resolved (enums, constant values, signatures, scopes), which every
    back-end needs and should not recompute.
    """

    contract: Contract
    types: TypeInfo
    timed: tuple[TimedComponent, ...] = ()
    """The ``timed`` blocks (docs/language.md §14), type-checked; ``check_timed`` decides
    them."""

    @cached_property
    def identity(self) -> str:
        """SHA-256 of the contract's meaning (docs/language.md §11), its timed blocks'
        included."""
        if self.timed:
            from derivative._canon import timed_identity

            return timed_identity(self.contract, self.timed)
        return contract_identity(self.contract)

    @property
    def name(self) -> str:
        return self.contract.name

    @property
    def version(self) -> int:
        return self.contract.version

    @property
    def obligations(self) -> tuple[Obligation, ...]:
        return self.contract.obligations

    @property
    def declarations(self) -> tuple[Decl, ...]:
        return self.contract.declarations


def _as_path_list(paths: Sequence[SpecPath] | SpecPath) -> list[SpecPath]:
    if isinstance(paths, (str, os.PathLike)):
        return [paths]
    return list(paths)


def _check_readable(path: SpecPath) -> None:
    """Turn the usual ways a path can be wrong into a clear error, before parsing."""
    shown = os.fspath(path)
    if not os.path.exists(path):
        raise UsageError(f"no such file: {shown}")
    if os.path.isdir(path):
        raise UsageError(f"{shown} is a directory; give the .req files of the requirement set")


def load(paths: Sequence[SpecPath] | SpecPath) -> LoadedContract:
    """Parse the files of one requirement set (resolving ``use``) and type-check it.

    Raises ``UsageError`` for a missing or unreadable file, ``SpecError``/``SpecErrors``
    for anything wrong inside a file (the parser also turns undecodable bytes into a
    ``SpecError``); never another exception for bad input.
    """
    path_list = _as_path_list(paths)
    if not path_list:
        raise UsageError("no spec file given")
    for path in path_list:
        _check_readable(path)

    from derivative import grammar

    return _checked(*grammar.load_set(path_list))


def parse_text(text: str, file: str = "<string>") -> LoadedContract:
    """Parse and type-check one spec given as text (``use`` needs a real ``file`` path)."""
    from derivative import grammar

    return _checked(*grammar.parse_text_set(text, file))


def _checked(contract: Contract, timed: tuple[TimedComponent, ...] = ()) -> LoadedContract:
    from derivative import _typecheck

    types = _typecheck.check(contract)
    if timed:
        from derivative import timed as timed_layer

        timed_layer.check_components(contract, timed)
    return LoadedContract(contract=contract, types=types, timed=timed)


def check_timed(
    loaded: LoadedContract, options: TimedOptions | None = None
) -> tuple[TimedResult, ...]:
    """Decide each ``timed`` block of the set up to ``options.depth`` steps
    (``derivative check`` does it after the untimed questions): consistency, then
    realizability with the outputs chosen after each step's inputs.  Every answer is
    bounded: ``no_conflict`` means none within the depth, never more."""
    from derivative import timed as timed_layer

    opts = options or timed_layer.TimedOptions()
    with audited("check_timed") as call:
        call.about(lambda: _identity(loaded))
        results = tuple(
            timed_layer.check_component(loaded.contract, comp, opts) for comp in loaded.timed
        )
        call.outcome = {"status": [r.status for r in results]}
        return results


# --------------------------------------------------------------------------- operations


def check(
    loaded: LoadedContract, options: CheckOptions | None = None, *,
    progress: Callable[[str, str], None] | None = None,
) -> CheckResult:
    """Decide whether the requirement set can hold (``derivative check``).

    The result's ``status`` is ``feasible`` (with a ``witness``), ``infeasible_proven``
    (with minimal ``cores``) or ``unknown`` (with the solver's ``unknowns``), never a
    guess.  ``options`` default to ``CheckOptions()``.  No certificate is built: pass an
    infeasible result to ``certify`` for one.  ``progress(step, detail)`` is told as each
    question starts (``questions``, ``"2 of 5: parse_minutes"``).
    """
    from derivative import solver

    with audited("check") as call:
        call.about(lambda: _identity(loaded))
        result = solver.check(loaded.contract, loaded.types, options or solver.CheckOptions(),
                              progress=progress)
        call.outcome = {"status": result.status}
        return result


def certify(loaded: LoadedContract, result: CheckResult) -> CheckResult:
    """``result`` with its first core written as a ``derivative.certificate/v1``
    (``result.certificate``, a model with ``to_json()``), after re-checking it.

    Raises ``UsageError`` when ``result`` is not ``infeasible_proven``.
    """
    if result.status != "infeasible_proven" or not result.cores:
        raise UsageError(f"only an infeasible_proven result can be certified, not {result.status}")
    from derivative import solver

    certificate = solver.certify(loaded.contract, loaded.types, result.cores[0])
    return replace(result, certificate=certificate)


def _at_least_one_example(examples: int) -> None:
    if examples < 1:
        raise UsageError(f"examples must be at least 1, not {examples}")


def run_candidate(
    loaded: LoadedContract, options: RunOptions, *,
    progress: Callable[[str, str], None] | None = None,
) -> RunReport:
    """Judge an untrusted implementation in a sandbox (``derivative run``).

    The report's ``status`` is ``passed``, ``failed``, ``infeasible_proven``,
    ``sandbox_unavailable`` or ``sandbox_policy_violation``; ``exit_code`` is the CLI's,
    ``to_json()`` the ``derivative.run/v1`` document and ``summary()`` the text report.
    Raises ``UsageError`` for a missing candidate, a bad module name or policy.
    ``progress(step, detail)`` hears of each step: ``feasibility`` (each solver question),
    ``posture``, ``sandbox``, ``obligations`` (each function or system, the calls made so
    far) and ``replay``.
    """
    _at_least_one_example(options.examples)
    from derivative.forge import run

    with audited("run") as call:
        call.about(lambda: _identity(loaded))
        call.executed(_candidate_files(options.candidate))
        report = run.run_candidate(loaded.types, options, progress=progress)
        call.outcome = {"status": report.status, "reason": report.reason}
        return report


def build(
    loaded: LoadedContract, options: BuildOptions, *,
    progress: Callable[[str, str], None] | None = None,
) -> BuildReport:
    """Decide whether a candidate may be packaged (``derivative build``).

    The report's ``status`` is ``verified``, ``validation_failed``, ``infeasible_proven``,
    ``sandbox_unavailable`` or ``sandbox_policy_violation``; ``folder`` is the build folder,
    ``package`` the wheel of a verified build, ``outcome`` the ``derivative.outcome/v1``
    document and ``exit_code`` the CLI's. Raises ``UsageError`` (or ``SynthesisRefused``)
    for bad input, before anything is written (the refusal is audited). ``progress(gate,
    detail)`` is called as each gate starts: ``synthesise`` (with ``synth``), ``freeze``,
    ``feasibility``, then per attempt ``generate`` or ``repair`` (with a generator),
    ``judged files``, ``posture``, ``sandbox``, ``obligations`` and ``own tests``, then
    ``artifacts``, ``package`` (verified only) and ``publish``; a gate lasts until the next
    one starts.
    """
    _at_least_one_example(options.examples)
    from pathlib import Path

    from derivative.forge import build as builder

    files = [Path(f.path) for f in loaded.contract.files if os.path.isfile(f.path)]
    return builder.build(loaded.types, options, contract_doc=contract_json(loaded),
                         spec_files=files, progress=progress)


def ledger_status(
    loaded: LoadedContract, candidate: str, *, module: str | None = None,
    state: str | None = None,
) -> LedgerAnswer:
    """Whether ``candidate`` was verified against this contract (``derivative ledger
    status``): against this exact version, only against an older one, or never."""
    from pathlib import Path

    from derivative.forge import build as builder

    binds = [d.target.partition(":")[0] for d in loaded.contract.declarations
             if d.kind == "bind"]
    digest = builder.judged_digest(Path(candidate), module or _default_module(candidate),
                                   binds)
    folder = Path(state) if state else builder.default_state_dir()
    if not (folder / builder.LEDGER_FILE).is_file():  # asking creates nothing
        return builder.LedgerAnswer(
            kind="never", sentence=f"never verified against {loaded.name} version "
            f"{loaded.version}: no build has been recorded in {folder}.")
    ledger = builder.Ledger(folder)
    return ledger.status(contract_name=loaded.name, contract_version=loaded.version,
                         contract_sha256=loaded.identity, candidate_sha256=digest)


def verify_package(path: SpecPath) -> PackageCheck:
    """Re-check a verified build's package (``derivative package verify``): every digest of
    its RECORD, its in-toto statement, its evidence and its contract identity."""
    from pathlib import Path

    from derivative.forge import build as builder

    return builder.verify_package(Path(path))


def _default_module(candidate: str) -> str | None:
    return os.path.splitext(os.path.basename(candidate))[0] if candidate.endswith(".py") \
        else None


def _identity(loaded: LoadedContract) -> dict[str, Any]:
    return {"name": loaded.name, "version": loaded.version, "sha256": loaded.identity}


def _candidate_files(path: str) -> dict[str, bytes]:
    """The candidate's Python files as they are on disk (what an audit record quotes)."""
    from pathlib import Path

    root = Path(path)
    if root.is_file():
        return {root.name: root.read_bytes()}
    if not root.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))
            if p.is_file() and not p.is_symlink()}


def generate_tests(loaded: LoadedContract, options: TestOptions) -> str:
    """The text of a standalone pytest module testing ``options.target`` against every
    obligation (``derivative tests -o FILE``); it needs only pytest and Hypothesis.

    Nothing is written: save the text as ``options.output``, relative to which a ``.py``
    target is written.
    """
    _at_least_one_example(options.examples)
    from derivative.forge.codegen import generate_module, relative_target

    target = options.target
    if options.output is not None:
        target = relative_target(target, options.output)
    if options.module and not options.target.endswith(".py"):
        target = options.module
    return generate_module(loaded.types, target, examples=options.examples)


def run_tests(
    loaded: LoadedContract, options: TestOptions, *,
    progress: Callable[[str, str], None] | None = None,
) -> RunEvidence:
    """Run every obligation against ``options.target`` in this process (``derivative
    tests`` without ``-o``).  The target is imported and called directly: only for code
    you trust (``run_candidate`` is the sandboxed way).

    The evidence's ``status`` is ``passed`` or ``failed``; ``summary()`` is the text
    report and ``to_json()`` the obligations of a ``derivative.run/v1`` document.
    ``progress(step, detail)`` hears of each function or system and of the calls made
    (``obligations``).
    """
    _at_least_one_example(options.examples)
    from hypothesis import settings

    from derivative.forge.testing import (
        Engine,
        EngineOptions,
        InProcessCaller,
        constants_of,
        hints_of,
        load_target,
    )

    module = load_target(options.target, options.module)
    sources = _module_sources(module)
    engine_options = EngineOptions(
        examples=options.examples,
        settings=settings(derandomize=options.seed is None),
        seed=options.seed,
        verbose=options.verbose,
        hints=hints_of(sources),
        constants=constants_of(sources),
    )
    caller = InProcessCaller.for_contract(module, loaded.types)
    engine = Engine(loaded.types, caller, engine_options, target=options.target,
                    progress=progress)
    return engine.run()


def _module_sources(module: object) -> list[bytes]:
    """The Python files of an imported target, as bytes (its white-box hints are read from
    them as text, as ``run`` reads the staged candidate's): the file, or a package's."""
    where = getattr(module, "__file__", None)
    if not isinstance(where, str):
        return []
    from pathlib import Path

    path = Path(where)
    files = sorted(path.parent.rglob("*.py"))[:200] if path.name == "__init__.py" else [path]
    out: list[bytes] = []
    for f in files:
        try:
            out.append(f.read_bytes())
        except OSError:
            continue
    return out


@dataclass(frozen=True, kw_only=True)
class VerifyOptions:
    """How to check a certificate (``derivative certificate verify``)."""

    spec: Sequence[SpecPath] = ()
    """Also check that the certificate is about this requirement set (its files)."""
    solvers: Sequence[str] | None = None
    """The solvers to re-run the SMT-LIB script in (None: the checker's, z3 and cvc5)."""
    timeout: float | None = None
    """Seconds each solver may take (None: the checker's default)."""


def read_certificate(path: SpecPath) -> object:
    """The JSON of a certificate file; ``UsageError`` when it cannot be read or parsed.

    Only a regular file of at most ``MAX_CERTIFICATE_BYTES`` is read (``derivative._files``),
    and its JSON strictly (``parse_certificate``).
    """
    shown = os.fspath(path)
    if not os.path.exists(path):
        raise UsageError(f"{shown}: no such file")
    data = read_regular_file(path, limit=MAX_CERTIFICATE_BYTES, what="certificate")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{shown}: not UTF-8 text, so not a certificate") from None
    return parse_certificate(text, shown)


def parse_certificate(text: str, shown: str = "<string>") -> object:
    """The JSON of a certificate given as text (``shown`` names it in messages), read
    strictly (``derivative._strictjson``): a key twice in one object, ``NaN``, an integer
    of thousands of digits or a nesting a hundred levels deep is refused as bad input
    (``UsageError``), like text that is not JSON."""
    try:
        return strict_json(text)
    except JSONRefused as err:
        raise UsageError(f"{shown}: {err}") from None


def verify_certificate(
    certificate: SpecPath | Mapping[str, Any] | CertificateDocument | Certificate,
    options: VerifyOptions | None = None,
) -> VerifyResult:
    """Check an infeasibility certificate without trusting it or the solver
    (``derivative certificate verify``): a file, its parsed JSON, a certificate as
    ``check --certificate`` makes it (``CertificateDocument``) or the validating model.

    ``valid`` is the verdict and ``reasons`` say why not; a certificate that is not
    one is rejected, never an error.  Raises ``UsageError`` for a file that cannot be
    read or is not JSON, and the usual errors for a spec file that cannot be loaded.
    """
    from derivative import certificates

    options = options or VerifyOptions()
    document: object
    if isinstance(certificate, (str, os.PathLike)):
        document = read_certificate(certificate)
    elif isinstance(certificate, certificates.CertificateDocument | certificates.Certificate):
        document = certificate.to_json()
    else:
        document = certificate
    extra: dict[str, Any] = {}
    if options.solvers is not None:
        extra["solvers"] = tuple(options.solvers)
    if options.timeout is not None:
        extra["timeout"] = options.timeout
    spec = [os.fspath(p) for p in options.spec] or None
    return certificates.verify(document, spec, **extra)


# --------------------------------------------------------------------------- importing

IMPORT_KINDS = ("fret", "hanfor")
"""The exports ``import_requirements`` reads: NASA FRET's JSON and Hanfor's CSV."""


def import_requirements(
    kind: str,
    source: SpecPath,
    *,
    text: str | None = None,
    options: ImportOptions | None = None,
) -> ImportResult:
    """Translate another tool's requirement export into timed requirements
    (``derivative import fret|hanfor``, docs/importers.md).

    ``kind`` is ``fret`` or ``hanfor``; the export is read from the file ``source`` (a
    regular file of at most 16 MiB), or given as ``text``, when ``source`` only names it in
    messages.  Returns the ``.req`` text and the account of every requirement (translated,
    not translated with the reason, skipped); writes nothing.  A file that is not such an
    export raises ``BadExport`` (a ``SpecError``, exit 2).
    """
    from derivative import importers

    if kind not in IMPORT_KINDS:
        raise UsageError(f"unknown export kind {kind!r} (known: {', '.join(IMPORT_KINDS)})")
    shown = os.fspath(source)
    if text is None:
        text = importers.read_export(source)
    reader = importers.import_fret if kind == "fret" else importers.import_hanfor
    return reader(text, source=shown, options=options)


# --------------------------------------------------------------------------- building it


def _int_type(t: IntType) -> str:
    from derivative._printer import to_source

    if t.lo is None and t.hi is None:
        return "int"
    lo = "" if t.lo is None else to_source(t.lo)
    hi = "" if t.hi is None else to_source(t.hi)
    return f"int in {lo}..{hi}"


def _str_type(t: StrType) -> str:
    from derivative._printer import to_source

    return "str" if t.pattern is None else f"str matching {to_source(StrLit(value=t.pattern))}"


_TYPE_SOURCE: dict[str, Callable[[Any], str]] = {
    "int_type": _int_type,
    "str_type": _str_type,
    "list_type": lambda t: f"list[{type_source(t.elem)}]",
    "named_type": lambda t: str(t.name),
    "bool_type": lambda _: "bool",
    "real_type": lambda _: "real",
    "date_type": lambda _: "date",
    "none_type": lambda _: "none",
    "tuple_type": lambda t: "tuple[" + ", ".join(type_source(x) for x in t.items) + "]",
    "optional_type": lambda t: f"optional[{type_source(t.elem)}]",
    "dict_type": lambda t: f"dict[{type_source(t.key)}, {type_source(t.value)}]",
}


def type_source(t: TypeRef) -> str:
    """A written type in the language's syntax (``int in 0..1440``, ``list[str]``)."""
    return _TYPE_SOURCE[t.kind](t)


def _where(d: Located) -> dict[str, Any]:
    return {"file": d.file, "line": d.line, "column": d.column}


# The document is built as plain JSON data, in the published models' field order, and
# not through the models: validating ten thousand obligations (each with its syntax
# tree) to print them cost more than parsing them.  ``contract_document`` validates
# this data, and a test holds the two equal on every bundled and golden spec.


def _parameters(params: tuple[Parameter, ...]) -> list[dict[str, Any]]:
    return [{"name": p.name, "type": type_source(p.type), "from_op": p.from_op} for p in params]


def _operation_json(op: OperationDecl) -> dict[str, Any]:
    return {
        "name": op.name,
        "qualname": op.qualname,
        "params": _parameters(op.params),
        "returns": type_source(op.returns),
        **_where(op),
    }


def _const_json(d: ConstDecl) -> dict[str, Any]:
    from derivative._printer import to_source

    return {
        "kind": "const", "name": d.name, "type": type_source(d.type),
        "value": to_source(d.value), **_where(d),
    }


def _function_json(d: FunctionDecl) -> dict[str, Any]:
    return {
        "kind": "function",
        "name": d.name,
        "params": _parameters(d.params),
        "returns": type_source(d.returns),
        **_where(d),
    }


_DECLARATION_JSON: dict[str, Callable[[Any], dict[str, Any]]] = {
    "enum": lambda d: {"kind": "enum", "name": d.name, "members": list(d.members), **_where(d)},
    "exception": lambda d: {"kind": "exception", "name": d.name, "base": d.base, **_where(d)},
    "const": _const_json,
    "param": lambda d: {
        "kind": "param", "name": d.name, "type": type_source(d.type), **_where(d)
    },
    "function": _function_json,
    "system": lambda d: {
        "kind": "system",
        "name": d.name,
        "operations": [_operation_json(op) for op in d.operations],
        **_where(d),
    },
    "bind": lambda d: {"kind": "bind", "name": d.name, "target": d.target, **_where(d)},
}


def _obligation_json(o: Obligation) -> dict[str, Any]:
    from derivative._printer import to_source

    return {
        "id": o.id,
        "generated_id": o.generated_id,
        "kind": o.kind,
        "owner": o.owner,
        "expr": to_source(o.expr),
        "exception": o.exception,
        "text": o.text,
        "tags": dict(o.tags),
        "ast": o.expr.json_data(),
        **_where(o),
    }


def contract_json(contract: Contract | LoadedContract) -> dict[str, Any]:
    """``derivative.contract/v1`` as plain JSON data (docs/cli.md)."""
    if isinstance(contract, LoadedContract):
        c, identity = contract.contract, contract.identity
    else:
        c, identity = contract, contract_identity(contract)
    return {
        "format": CONTRACT_FORMAT,
        "spec": {
            "name": c.name,
            "version": c.version,
            "sha256": identity,
            "description": c.description,
            "tolerance": c.tolerance,
        },
        "files": [{"path": f.path, "sha256": f.sha256} for f in c.files],
        "declarations": [_DECLARATION_JSON[d.kind](d) for d in c.declarations],
        "obligations": [_obligation_json(o) for o in c.obligations],
    }


def contract_document(contract: Contract | LoadedContract) -> ContractDocument:
    """The ``derivative.contract/v1`` document as a validated model."""
    from derivative._contract_doc import ContractDocument

    return ContractDocument.model_validate(contract_json(contract))


# --------------------------------------------------------------------------- for the CLI

_FACES: dict[str, tuple[str, str]] = {
    "ContractDocument": ("derivative._contract_doc", "ContractDocument"),
    "SpecRef": ("derivative._contract_doc", "SpecRef"),
    "FileRef": ("derivative._contract_doc", "FileRef"),
    "ParameterDoc": ("derivative._contract_doc", "ParameterDoc"),
    "EnumDoc": ("derivative._contract_doc", "EnumDoc"),
    "ExceptionDoc": ("derivative._contract_doc", "ExceptionDoc"),
    "ConstDoc": ("derivative._contract_doc", "ConstDoc"),
    "ParamDoc": ("derivative._contract_doc", "ParamDoc"),
    "FunctionDoc": ("derivative._contract_doc", "FunctionDoc"),
    "OperationDoc": ("derivative._contract_doc", "OperationDoc"),
    "SystemDoc": ("derivative._contract_doc", "SystemDoc"),
    "BindDoc": ("derivative._contract_doc", "BindDoc"),
    "DeclarationDoc": ("derivative._contract_doc", "DeclarationDoc"),
    "ObligationDoc": ("derivative._contract_doc", "ObligationDoc"),
    # name -> (room face, attribute): what the command line needs beside the operations
    # above (options classes and their defaults, renderers, the sandbox and posture tools),
    # so that the CLI imports the API and nothing else (docs/layers.toml)
    "CheckOptions": ("derivative.solver", "CheckOptions"),
    "render_json": ("derivative.solver", "render_json"),
    "render_sarif": ("derivative.solver", "render_sarif"),
    "render_text": ("derivative.solver", "render_text"),
    "TimedOptions": ("derivative.timed", "TimedOptions"),
    "render_timed_text": ("derivative.timed", "render_text"),
    "timed_result_json": ("derivative.timed", "result_json"),
    "MAX_DEPTH": ("derivative.timed", "MAX_DEPTH"),
    "RunOptions": ("derivative.forge.run", "RunOptions"),
    "RunDocument": ("derivative.forge.run", "RunDocument"),
    "TestOptions": ("derivative.forge.testing", "TestOptions"),
    "BuildOptions": ("derivative.forge.build", "BuildOptions"),
    "Ledger": ("derivative.forge.build", "Ledger"),
    "LEDGER_FILE": ("derivative.forge.build", "LEDGER_FILE"),
    "default_state_dir": ("derivative.forge.build", "default_state_dir"),
    "BackendName": ("derivative.forge.sandbox", "BackendName"),
    "Limits": ("derivative.forge.sandbox", "Limits"),
    "DEFAULT_TAG": ("derivative.forge.sandbox", "DEFAULT_TAG"),
    "build_image": ("derivative.forge.sandbox", "build_image"),
    "sandbox_doctor": ("derivative.forge.sandbox", "diagnose"),
    "DEFAULT_POLICY": ("derivative.forge.posture", "DEFAULT_POLICY"),
    "PostureVerdict": ("derivative.forge.posture", "PostureVerdict"),
    "available_policies": ("derivative.forge.posture", "available_policies"),
    "validate_code": ("derivative.forge.posture", "validate_path"),
    "ImportOptions": ("derivative.importers", "ImportOptions"),
    "ImportDocument": ("derivative.importers", "ImportDocument"),
}


def __getattr__(name: str) -> Any:
    """The names of ``_FACES``, imported from their room's face on first use."""
    import importlib

    where = _FACES.get(name)
    if where is None:
        raise AttributeError(f"module 'derivative.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(where[0]), where[1])
    globals()[name] = value
    return value
