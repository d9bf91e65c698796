"""A standalone pytest module from a contract: ``derivative tests SPEC --target T -o FILE``.

The written module is meant to be read, kept and run without ``derivative``: it imports
only the standard library, pytest and Hypothesis.  It has

- one test per obligation, named after its identifier (``test_S1``,
  ``test_parse_minutes__raises__ValueError``), with the obligation's text, file and
  line in its docstring;
- the solver-chosen inputs (boundaries, ``raises`` triggers, antecedents, examples) as
  ``@example`` decorators, each commented with the trigger it hits (``_inputs.py``);
- every obligation compiled to a Python function: a *fourth reading* of the AST
  (``_python.py``);
- a small runtime for what Python does differently (``_runtime.py``, carried as text by
  ``_embed.py``);
- stateful tests for systems (a ``RuleBasedStateMachine`` per system; count
  invariants checked after every call and at the end);
- for a system with an upper count bound, the concurrent hammer of ``derivative tests``
  (``_concurrent.py``) and the interleaving explorer it drives (``forge/inside/_explore.py``,
  standard library only), both carried as text: the invariant's first counted call is
  made ``bound + 1`` times, in sequence and from threads under every schedule the limits
  allow, so a check-then-set race fails the written module as it fails ``derivative
  tests`` and ``derivative run``.

This module assembles the parts; ``_Writer`` writes one module, top to bottom.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from derivative._ast import BindDecl, FunctionDecl, Obligation, SystemDecl
from derivative._canon import contract_identity
from derivative._printer import to_source
from derivative._typecheck import TypeInfo
from derivative._types import TNone, Ty

from ..testing import EngineOptions
from ._embed import concurrent_source, explorer_source, runtime_source
from ._inputs import example_lines, input_source, strategy_lines
from ._python import PyCompiler, py_value, pyname, ty_source

__all__ = ["generate_module", "relative_target", "test_name"]


def generate_module(
    info: TypeInfo,
    target: str,
    *,
    examples: int = EngineOptions.examples,
    steps: int = EngineOptions.steps,
    engine: Any = None,
) -> str:
    """The source of a standalone pytest module for ``info``'s contract and ``target``.

    ``target`` is written as given: a ``.py`` path (relative paths are read relative to
    the written module's folder) or a dotted module name.  ``engine`` (a
    ``forge.testing.Engine``) supplies the solver's plans; one without a caller is made
    if none is given (nothing is called while writing).
    """
    if engine is None:
        from ..testing import Engine

        engine = Engine(info, _NoCaller())
    return _Writer(info, engine, target, examples, steps, engine.options.interleavings).write()


def relative_target(target: str, output: str) -> str:
    """A ``.py`` target written relative to the output file's folder (portable modules)."""
    if not target.endswith(".py"):
        return target
    try:
        return os.path.relpath(os.path.abspath(target), os.path.dirname(os.path.abspath(output)))
    except ValueError:
        return os.path.abspath(target)


def test_name(obligation_id: str) -> str:
    """``test_`` + the id with ``.`` as ``__`` and other non-identifier characters ``_``."""
    text = obligation_id.replace(".", "__")
    return "test_" + re.sub(r"[^0-9A-Za-z_]", "_", text)


class _NoCaller:
    """Writing a module calls nothing."""

    def call(self, func_name: str, args: Sequence[object]) -> Any:
        raise AssertionError("the writer does not call the target")

    def new_instance(self, system: str) -> Any:
        raise AssertionError("the writer does not call the target")

    def method(self, handle: object, op: str, args: Sequence[object]) -> Any:
        raise AssertionError("the writer does not call the target")


# --------------------------------------------------------------------------- pieces

_RULE = "# " + "-" * 65


def _ident(text: str) -> str:
    return re.sub(r"[^0-9A-Za-z_]", "_", text)


def _header(o: Obligation | Any) -> str:
    head = o.id
    if getattr(o, "text", None):
        head += f' "{o.text}"'
    return f"{head} ({o.file}:{o.line})"


def _doc(text: str) -> str:
    """``text`` inside a triple-quoted docstring: a closing ``"`` of its own (an example
    ``f("a") == "b"``) is escaped too, or it would run into the closing quotes."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return text[:-1] + '\\"' if text.endswith('"') else text


def _text_of(o: Any) -> str:
    """An obligation's condition as spec source (the synthetic clause has none)."""
    expr = getattr(o, "expr", None)
    return to_source(expr) if expr is not None else "a normal return of the declared type"


_IMPORTS = (
    "from __future__ import annotations",
    "",
    "import builtins",
    "import datetime",
    "import decimal",
    "import enum",
    "import importlib",
    "import importlib.util",
    "import math",
    "import os",
    "import pathlib",
    "import re",
    "import sys",
    "from fractions import Fraction",
    "",
    "from hypothesis import HealthCheck, Phase, assume, example, given, reject, settings",
    "from hypothesis import strategies as st",
)
_STATEFUL_IMPORTS = (
    "from hypothesis.stateful import (",
    "    Bundle,",
    "    RuleBasedStateMachine,",
    "    multiple,",
    "    rule,",
    "    run_state_machine_as_test,",
    ")",
)


@dataclass
class _Owner:
    """What the writer needs about one function or operation."""

    qualname: str
    func: str
    system: str | None
    params: list[tuple[str, Ty, str | None]]
    returns: Ty


class _Writer:
    """Writes the module; see ``generate_module``."""

    def __init__(self, info: TypeInfo, engine: Any, target: str, examples: int,
                 steps: int, interleavings: int) -> None:
        self.info = info
        self.engine = engine
        self.target = target
        self.examples = examples
        self.steps = steps
        self.interleavings = interleavings
        self.out: list[str] = []
        self.used_tests: set[str] = set()
        self.hammered = self.upper_bounded()
        """The invariants with an upper count bound (hammered under concurrency)."""

    # ------------------------------------------------------------------ helpers

    def emit(self, *lines: str) -> None:
        self.out.extend(lines)

    def test_fn(self, oid: str) -> str:
        name = test_name(oid)
        while name in self.used_tests:
            name += "_"
        self.used_tests.add(name)
        return name

    def scope(self, owner: _Owner) -> dict[str, Ty]:
        names: dict[str, Ty] = dict(self.info.const_types)
        names.update({n: t for n, t, _ in owner.params})
        return names

    def compiler(self, scope: Mapping[str, Ty]) -> PyCompiler:
        return PyCompiler(scope, self.info.enums)

    def upper_bounded(self) -> set[str]:
        """Ids of the invariants one of whose counts has an upper bound."""
        from ..testing import count_checks

        found: set[str] = set()
        for d in self.info.contract.declarations:
            if not isinstance(d, SystemDecl):
                continue
            for o in self.info.contract.obligations_of(d.name):
                checks = count_checks(o, self.engine.evaluator) if o.kind == "invariant" else None
                if checks and any(c.upper for c in checks):
                    found.add(o.id)
        return found

    # ------------------------------------------------------------------ the module

    def write(self) -> str:
        c = self.info.contract
        self.preamble()
        self.settings()
        if c.consts():
            self.emit("", _RULE + " constants", "")
            for const in c.consts():
                value = self.info.const_values[const.name]
                self.emit(f"{pyname(const.name)} = {py_value(value)}")
        for d in c.declarations:
            if isinstance(d, FunctionDecl):
                self.function(d)
            elif isinstance(d, SystemDecl):
                self.system(d)
        return "\n".join(self.out).rstrip() + "\n"

    def preamble(self) -> None:
        """The module's docstring and imports."""
        c = self.info.contract
        files = ", ".join(f.path for f in c.files) or "?"
        self.emit(
            f'"""Tests of {c.name} version {c.version} generated by derivative.',
            "",
            f"Requirement set: {files} (sha256 {contract_identity(c)}).",
            f"Target: {self.target} (override with the environment variable DERIVATIVE_TARGET).",
            "One test per obligation, named after its identifier; the solver-chosen inputs",
            "(boundaries, raises triggers, antecedents, examples) are @example decorators.",
            "Runs with pytest and hypothesis only.  Preconditions (requires) are not tests:",
            "they decide which inputs are valid.",
            *self.concurrency_note(),
            '"""',
            "",
            *_IMPORTS,
        )
        if c.systems():
            self.emit(*_STATEFUL_IMPORTS)

    def concurrency_note(self) -> list[str]:
        """What the header says about interleavings (the module carries the explorer
        only when it has an invariant to hammer)."""
        if not self.hammered:
            return []
        return [
            "Upper count bounds of invariants are also hammered under concurrency, as",
            "`derivative tests` does: the invariant's first counted call is made bound + 1",
            "times, in sequence and then from as many threads under every interleaving of",
            "at most 2 preemptions (at most DERIVATIVE_INTERLEAVINGS schedules, default",
            f"{self.interleavings}).  The interleaving explorer doing it is derivative's own",
            "(standard library only), carried below: this module does not import derivative.",
        ]

    def settings(self) -> None:
        """The target, the binds, Hypothesis's settings, the runtime and the tolerance."""
        c = self.info.contract
        binds = {d.name: d.target for d in c.declarations if isinstance(d, BindDecl)}
        tol = float(c.tolerance) if c.tolerance else 1e-9
        self.emit(
            "",
            f"TARGET = {self.target!r}",
            f"BINDS = {binds!r}",
            f"EXAMPLES = int(os.environ.get('DERIVATIVE_EXAMPLES', {self.examples}))",
            "SETTINGS = settings(",
            "    max_examples=EXAMPLES,",
            "    deadline=None,",
            "    suppress_health_check=[HealthCheck.too_slow],",
            "    # Failures are reported in the obligation's words; Hypothesis's explain",
            "    # phase would re-run each one hundreds of times to annotate it.",
            "    phases=[p for p in Phase if p is not Phase.explain],",
            ")",
            "",
            _RULE + " runtime",
            "# Undefinedness, floor semantics, float slack and result types (docs/language.md).",
        )
        self.emit(*runtime_source().splitlines())
        self.emit(f"REL_TOL = {tol!r}", "")
        if self.hammered:
            self.emit(
                "",
                _RULE + " interleaving explorer",
                "# derivative's explorer of thread interleavings (standard library only),",
                "# carried verbatim.",
                "",
                *explorer_source().splitlines(),
                "",
                "",
                _RULE + " concurrent hammer",
                "",
                "INTERLEAVINGS = int(os.environ.get('DERIVATIVE_INTERLEAVINGS', "
                f"{self.interleavings}))",
                *concurrent_source().splitlines(),
                "",
            )

    # ------------------------------------------------------------------ owners

    def owner_block(self, owner: _Owner) -> str:
        """Compiled clauses, validity, the Owner table and the input strategy."""
        q = owner.qualname
        var = _ident(q).upper()
        self.emit("", "", f"{_RULE} {q}", "")
        self.valid_fn(owner)
        clauses = self.clause_fns(owner)
        judge = self.engine.judge_of(q)
        synthetic = "None"
        if judge.synthetic is not None:
            s = judge.synthetic
            header = f"{s.id} ({s.file}:{s.line})"
            synthetic = f"Clause({s.id!r}, 'returns', {header!r}, None)"
        self.emit(
            "",
            "",
            f"{var} = Owner(",
            f"    {owner.func!r},",
            "    [" + ", ".join(f"({n!r}, {ty_source(t)})" for n, t, _ in owner.params) + "],",
            f"    {ty_source(owner.returns)},",
            f"    {_ident(q)}__valid,",
            "    [",
            *[f"        {c}," for c in clauses],
            "    ],",
            f"    {synthetic},",
            ")",
        )
        self.emit(*strategy_lines(self.engine, self.info, q, owner.params, var))
        return var

    def valid_fn(self, owner: _Owner) -> None:
        """``<owner>__valid``: the parameters' types, then every ``requires``."""
        q = owner.qualname
        comp = self.compiler(self.scope(owner))
        requires = [o for o in self.info.contract.obligations_of(q) if o.kind == "requires"]
        conds = [f"({comp.compile(o.expr)})" for o in requires]
        sig = ", ".join(pyname(n) for n, _, _ in owner.params)
        self.emit(f"def {_ident(q)}__valid({sig}):")
        self.emit(f'    """Whether the input is valid: its types, then every requires of {q}."""')
        for n, t, _ in owner.params:
            self.emit("    try:")
            self.emit(f"        _conform({pyname(n)}, {ty_source(t)})")
            self.emit("    except WrongType:")
            self.emit("        return False")
        for o, cond in zip(requires, conds, strict=True):
            self.emit(f"    # {_header(o)}: {to_source(o.expr)}")
            self.emit(f"    if not _holds(lambda: {cond}):")
            self.emit("        return False")
        self.emit("    return True", "")

    def clause_fns(self, owner: _Owner) -> list[str]:
        """``<id>__check`` per ensures and raises; the source of their ``Clause``s."""
        q = owner.qualname
        scope = self.scope(owner)
        sig = ", ".join(pyname(n) for n, _, _ in owner.params)
        judge = self.engine.judge_of(q)
        clauses: list[str] = []
        for o in self.info.contract.obligations_of(q):
            if o.kind not in ("ensures", "raises"):
                continue
            fn = f"{_ident(o.id)}__check"
            reads = o in judge.reading
            fscope = dict(scope)
            if reads:
                fscope["result"] = owner.returns
            body = self.compiler(fscope).compile(o.expr)
            args = sig + (", result" if reads else "") if sig else ("result" if reads else "")
            self.emit("", f"def {fn}({args}):")
            self.emit(f'    """{_header(o)}: {_doc(to_source(o.expr))}"""')
            self.emit(f"    return {body}")
            exc = f", exception={o.exception!r}" if o.kind == "raises" else ""
            rr = ", reads_result=True" if reads else ""
            src = f", source={to_source(o.expr)!r}"
            clauses.append(f"Clause({o.id!r}, {o.kind!r}, {_header(o)!r}, {fn}{exc}{rr}{src})")
        return clauses

    # ------------------------------------------------------------------ functions

    def function(self, d: FunctionDecl) -> None:
        sig = self.info.signatures[d.name]
        owner = _Owner(d.name, d.name, None, list(sig.params), sig.returns)
        var = self.owner_block(owner)
        judge = self.engine.judge_of(d.name)
        params = {n: t for n, t, _ in sig.params}
        examples = example_lines(self.engine, d.name, params)
        for o in self.info.contract.obligations_of(d.name):
            if o.kind in ("ensures", "raises"):
                self.property_test(o, var, examples)
            elif o.kind == "example":
                self.example_test(o, var, judge)
        if judge.synthetic is not None:
            self.property_test(judge.synthetic, var, examples)

    def property_test(self, o: Any, var: str, examples: Sequence[str]) -> None:
        name = self.test_fn(o.id)
        self.emit("", "", "@SETTINGS", f"@given(INPUTS_{var})", *examples)
        self.emit(f"def {name}(inp):")
        self.emit(f'    """{_header(o)}: {_doc(_text_of(o))}"""')
        self.emit(f"    check_function({var}, inp, {o.id!r})")

    def example_test(self, o: Obligation, var: str, judge: Any, system: str | None = None) -> None:
        args, expected = judge.example_call(o)
        params = {n: t for n, t, _ in judge.signature.params}
        want = "None"
        if expected is not None:
            want = py_value(self.engine.evaluator.eval(expected))
        name = self.test_fn(o.id)
        self.emit("", "", f"def {name}():")
        self.emit(f'    """{_header(o)}: {_doc(to_source(o.expr))}"""')
        self.emit(
            f"    check_example({var}, {input_source(args, params)}, {want}, "
            f"{o.exception!r}, {_header(o)!r}, {system!r})"
        )

    # ------------------------------------------------------------------ systems

    def system(self, d: SystemDecl) -> None:
        """The tables of a system, its state machine, and a test per obligation."""
        owners: dict[str, str] = {}
        for op in d.operations:
            sig = self.info.signatures[op.qualname]
            owner = _Owner(op.qualname, op.name, d.name, list(sig.params), sig.returns)
            owners[op.name] = self.owner_block(owner)
        invariants = [o for o in self.info.contract.obligations_of(d.name) if o.kind == "invariant"]
        upper = _ident(d.name).upper()
        self.emit(
            "", "",
            f"{upper}_OPS = {{" + ", ".join(f"{n!r}: {v}" for n, v in owners.items()) + "}",
            f"{upper}_COUNTS = [",
            *[f"    {c}," for c in self.count_sources(d, invariants)],
            "]",
            "# Solver-chosen inputs of the operations: (operation, input, from-parameters).",
            f"{upper}_EXPLICIT = [",
            *[f"    {e}," for e in self.explicit_items(d)],
            "]",
        )
        if any(o.id in self.hammered for o in invariants):
            froms = {op.name: {p.name: p.from_op for p in op.params if p.from_op}
                     for op in d.operations}
            self.emit("# The from-parameters of the operations: {operation: {parameter: source}}.",
                      f"{upper}_FROM = {froms!r}")
        cls = f"{_ident(d.name)}Machine"
        self.machine(d, owners, cls)
        # Tests: every operation obligation, every invariant.
        for op in d.operations:
            judge = self.engine.judge_of(op.qualname)
            var = owners[op.name]
            for o in self.info.contract.obligations_of(op.qualname):
                if o.kind == "example":
                    self.example_test(o, var, judge, d.name)
            ids = [o.id for o in judge.judged_obligations]
            for oid in ids:
                self.machine_test(oid, cls, self.info.contract.obligations_of(op.qualname), judge)
        for o in invariants:
            self.machine_test(o.id, cls, [o], None)

    def count_sources(self, d: SystemDecl, invariants: Sequence[Obligation]) -> list[str]:
        """``Count(...)`` per count bound of the invariants (those the engine can count)."""
        from ..testing import count_checks

        counts: list[str] = []
        for o in invariants:
            checks = count_checks(o, self.engine.evaluator)
            if checks is None:
                continue
            for c in checks:
                where = "None"
                if c.count.where is not None:
                    sig = self.info.signatures[f"{d.name}.{c.count.op}"]
                    scope = dict(self.info.const_types)
                    scope.update({n: t for n, t, _ in sig.params})
                    if not isinstance(sig.returns, TNone):
                        scope["result"] = sig.returns
                    names = ", ".join([*(pyname(n) for n, _, _ in sig.params), "result"])
                    where = f"lambda {names}: {self.compiler(scope).compile(c.count.where)}"
                counts.append(
                    f"Count({o.id!r}, {_header(o)!r}, {c.count.op!r}, {where}, "
                    f"{c.count.per!r}, {c.cmp!r}, {c.bound!r}, {c.describe()!r})"
                )
        return counts

    def machine(self, d: SystemDecl, owners: Mapping[str, str], cls: str) -> None:
        """The ``RuleBasedStateMachine``: one rule per operation, counts at teardown."""
        sources = sorted({p.from_op for op in d.operations for p in op.params if p.from_op})
        upper = _ident(d.name).upper()
        self.emit(
            "",
            "",
            f"class {cls}(RuleBasedStateMachine):",
            f'    """Random call sequences on fresh {d.name} instances; the obligation named',
            "    FOCUS fails the run (upper count bounds after every call, lower ones at the",
            '    end)."""',
            "",
            "    FOCUS = None",
        )
        for src in sources:
            self.emit(f"    {src}_results = Bundle({(src + '_results')!r})")
        self.emit(
            "",
            "    def __init__(self):",
            "        super().__init__()",
            f"        self.run = SystemRun({d.name!r}, {upper}_OPS, {upper}_COUNTS, self.FOCUS)",
        )
        for op in d.operations:
            var = owners[op.name]
            froms = [(p.name, p.from_op) for p in op.params if p.from_op]
            target = f"target={op.name}_results, " if op.name in sources else ""
            fargs = "".join(f"{pyname(n)}={src}_results, " for n, src in froms)
            self.emit("", f"    @rule({target}{fargs}data=st.data())")
            params = ", ".join(["self", "data", *(pyname(n) for n, _ in froms)])
            self.emit(f"    def {pyname(op.name)}({params}):")
            self.emit(f"        inp = dict(data.draw(INPUTS_{var}))")
            for n, _ in froms:
                self.emit(f"        inp[{n!r}] = {pyname(n)}")
            self.emit(f"        assume({var}.valid(*{var}.values(inp)))")
            self.emit(f"        result = self.run.call({op.name!r}, inp)")
            if op.name in sources:
                self.emit("        return multiple() if result is None else result")
        self.emit("", "    def teardown(self):", "        self.run.finish()")

    def explicit_items(self, d: SystemDecl) -> list[str]:
        """Source of ``(op, input, {param: (source op, source input)})`` per solver input."""
        items: list[str] = []
        for op in d.operations:
            plan = self.engine.plan_of(op.qualname)
            params = {p.name: self.info.signatures[op.qualname].params[i][1]
                      for i, p in enumerate(op.params) if p.from_op is None}
            sources: dict[str, str] = {}
            ok = True
            for p in op.params:
                if p.from_op is None:
                    continue
                src_q = f"{d.name}.{p.from_op}"
                src_judge = self.engine.judge_of(src_q)
                src_plan = self.engine.plan_of(src_q)
                first = next((i for i in (*src_plan.inputs, *src_plan.pool)
                              if src_judge.admits(i)), None)
                if first is None:
                    ok = False
                    break
                src_params = {n: t for n, t, _ in src_judge.signature.params}
                sources[p.name] = f"({p.from_op!r}, {input_source(first, src_params)})"
            if not ok:
                continue
            for inp in plan.inputs:
                if not all(n in inp for n in params):
                    continue
                src = "{" + ", ".join(f"{k!r}: {v}" for k, v in sources.items()) + "}"
                items.append(f"({op.name!r}, {input_source(inp, params)}, {src})")
        return items

    def machine_test(self, oid: str, cls: str, obligations: Sequence[Obligation],
                     judge: Any) -> None:
        o = next((x for x in obligations if x.id == oid), None)
        if o is None and judge is not None:
            o = judge.synthetic
        name = self.test_fn(oid)
        self.emit("", "", f"def {name}():")
        self.emit(f'    """{_header(o)}: {_doc(_text_of(o))}"""')
        upper = cls[: -len("Machine")].upper()
        system = cls[: -len("Machine")]
        self.emit(
            f"    explicit_runs({system!r}, {upper}_OPS, {upper}_COUNTS, {oid!r}, "
            f"{upper}_EXPLICIT)",
            f"    machine = type({cls!r}, ({cls},), {{'FOCUS': {oid!r}}})",
            "    run_state_machine_as_test(",
            "        machine,",
            f"        settings=settings(SETTINGS, max_examples=max(10, EXAMPLES // 4), "
            f"stateful_step_count={self.steps}),",
            "    )",
        )
        if judge is None and oid in self.hammered:
            self.emit(f"    hammer({system!r}, {upper}_OPS, {upper}_COUNTS, {oid!r}, {upper}_FROM)")
