"""``--synth``: a built-in generator for contracts whose functions pin their result.

When every function says ``ensures: result == EXPR`` (alone or as a conjunct of an
``ensures``), the contract already holds an implementation: raise each ``raises E when C``
in order, then return ``EXPR``.  This module writes that down as readable Python, one
``def`` per function, with the spec's enums as ``enum.Enum`` classes, its exceptions as
classes and its constants as module constants.

It is a generator like any other: its output is judged by the same gates and is never
evidence about itself.  The expressions keep the language's meaning where Python's
differs (``_synth_expr.py``).  What it cannot translate faithfully it refuses with
``SynthesisRefused``, naming every function it cannot write and why: no
``result == EXPR`` pin, a construct outside the supported ones, systems (state cannot be
read off a pin), ``bind`` lines (the code would live elsewhere), exceptions that cannot be
raised with a message.
"""

from __future__ import annotations

import keyword
from collections.abc import Iterator
from datetime import date
from fractions import Fraction
from typing import Protocol

from derivative._ast import BoolOp, Compare, Contract, Expr, FunctionDecl, Obligation, Result
from derivative._builtins import BUILTIN_EXCEPTIONS
from derivative._errors import DerivativeError, ExitCode
from derivative._printer import to_source
from derivative._typecheck import TypeInfo
from derivative._types import TBool, TDate, TEnum, TInt, TList, TNone, TReal, TStr, Ty, base
from derivative._values import EnumValue
from derivative._walk import walk

from ._generate import Attempt, GenerationRequest, make_attempt, module_name
from ._synth_expr import HELPERS, Names, Refuse, Spelled, Translator

__all__ = ["SynthGenerator", "SynthesisRefused", "synth_source", "synthesize"]


class SynthesisRefused(DerivativeError):
    """The contract cannot be synthesised; ``reasons`` names each part and why."""

    exit_code = ExitCode.BAD_INPUT

    def __init__(self, reasons: list[tuple[str, str]]) -> None:
        self.reasons = tuple(reasons)
        lines = "\n".join(f"  {name}: {why}" for name, why in self.reasons)
        super().__init__(f"--synth cannot write this contract:\n{lines}")


class LoadedLike(Protocol):
    """What ``derivative.api.LoadedContract`` offers (this room may not import the API)."""

    @property
    def contract(self) -> Contract: ...

    @property
    def types(self) -> TypeInfo: ...


# --------------------------------------------------------------------------- what to write


def _conjuncts(e: Expr) -> Iterator[Expr]:
    if isinstance(e, BoolOp) and e.op == "and":
        yield from e.operands  # a run is flat: no operand is itself an `and`
    else:
        yield e


def _mentions_result(e: Expr) -> bool:
    return any(isinstance(n, Result) for n in walk(e))


def pinned(contract: Contract, name: str) -> tuple[Obligation, Expr] | None:
    """The first ``ensures`` of ``name`` with a conjunct ``result == EXPR`` (or
    ``EXPR == result``) where ``EXPR`` does not mention ``result``; the clause and EXPR."""
    for o in contract.obligations_of(name):
        if o.kind != "ensures":
            continue
        for c in _conjuncts(o.expr):
            if isinstance(c, Compare) and c.ops == ("==",):
                left, right = c.operands
                if isinstance(left, Result) and not _mentions_result(right):
                    return o, right
                if isinstance(right, Result) and not _mentions_result(left):
                    return o, left
    return None


def _annotation(t: Ty, names: Names, *, result: bool = False) -> str:
    t = base(t)
    simple = {TInt: "int", TBool: "bool", TStr: "str", TNone: "None"}
    if type(t) in simple:
        return simple[type(t)]
    if isinstance(t, TReal):
        return f"{names.use('Fraction')} | float" if result else "float"
    if isinstance(t, TDate):
        return f"{names.use('datetime')}.date"
    if isinstance(t, TList):
        return f"list[{_annotation(t.elem, names, result=result)}]"
    if isinstance(t, TEnum):
        return t.name
    return "object"


def _doc(text: str, indent: str) -> list[str]:
    body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = body.splitlines() or [""]
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    if lines[-1] == "":
        lines.pop()
    return [f'{indent}"""{lines[0]}', *[f"{indent}{ln}" if ln else "" for ln in lines[1:]],
            f'{indent}"""']  # fmt: skip


def _value_source(value: object, tr: Translator) -> str:
    """A constant's computed value as Python source (lists as lists, reals exact)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Fraction):
        frac = tr.names.use("Fraction")
        return f"{frac}({value.numerator}, {value.denominator})"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, date):
        return tr.date_source(value)
    if isinstance(value, EnumValue):
        return f"{value.enum}.{value.member}"
    if isinstance(value, tuple):
        return "[" + ", ".join(_value_source(v, tr) for v in value) + "]"
    raise Refuse(f"no Python literal for {value!r}")


# --------------------------------------------------------------------------- the module


def _raisable(name: str, info: TypeInfo) -> str | None:
    """Why ``raise name("message")`` cannot work in a candidate, or None."""
    root, seen = name, set()
    while root in info.exceptions and root not in seen:
        seen.add(root)
        root = info.exceptions[root]
    cls = BUILTIN_EXCEPTIONS.get(root)
    if cls is None:
        return f"{name} derives from no built-in exception"
    if not issubclass(cls, Exception):
        return f"raising {name} ({root}) would stop the sandbox's worker"
    try:
        cls("message")
    except Exception:
        return f"{name} ({root}) cannot be raised with a message alone"
    return None


def _exception_order(info: TypeInfo) -> list[str]:
    """Declared exceptions, each after its declared base."""
    done: list[str] = []

    def place(name: str, trail: tuple[str, ...]) -> None:
        if name in done or name in trail or name not in info.exceptions:
            return
        place(info.exceptions[name], (*trail, name))
        done.append(name)

    for name in sorted(info.exceptions):
        place(name, ())
    return done


class _Writer:
    """Builds the module's text part by part, collecting every refusal on the way."""

    def __init__(self, loaded: LoadedLike) -> None:
        self.contract, self.info = loaded.contract, loaded.types
        fixed = {f.name for f in self.contract.functions()}
        fixed |= set(self.info.enums) | set(self.info.exceptions)
        self.names = Names(fixed)
        self.consts = {n: self.names.module_name(n) for n in sorted(self.info.const_types)}
        self.tr = Translator(self.info, self.names, self.consts, {})
        self.reasons: list[tuple[str, str]] = []

    def refuse(self, name: str, why: str) -> None:
        self.reasons.append((name, why))

    def check_scope(self) -> None:
        for system in self.contract.systems():
            self.refuse(f"system {system.name}", "a system keeps state between operations; "
                        "--synth writes pure functions only")  # fmt: skip
        for d in self.contract.declarations:
            if d.kind == "bind":
                self.refuse(d.name, f'`bind {d.name} to "{d.target}"` puts it in another '
                            "module; --synth writes one module")  # fmt: skip
        if not self.contract.functions() and not self.contract.systems():
            self.refuse("contract", "declares no function: there is nothing to synthesise")
        for name in sorted(self.names.fixed):
            if keyword.iskeyword(name) or name.startswith("__"):
                self.refuse(name, f"{name!r} cannot be defined under that name in Python")

    def enums(self) -> list[str]:
        out: list[str] = []
        for name, ty in sorted(self.info.enums.items()):
            bad = [m for m in ty.members if keyword.iskeyword(m) or m.startswith("_") or m == "mro"]
            if bad:
                self.refuse(name, f"enum members {', '.join(bad)} cannot be Python enum members")
                continue
            out += ["", "", f"class {name}({self.names.use('enum')}.Enum):"]
            out += _doc(f"enum {name} {{ {', '.join(ty.members)} }} of the contract.", "    ")
            out += ["", *[f"    {m} = {m!r}" for m in ty.members]]
        return out

    def exceptions(self) -> list[str]:
        out: list[str] = []
        for name in _exception_order(self.info):
            parent = self.info.exceptions[name]
            spelled = parent if parent in self.info.exceptions else self.names.use(parent)
            out += ["", "", f"class {name}({spelled}):"]
            out += _doc(f"exception {name}({parent}) of the contract.", "    ")
        return out

    def constants(self) -> list[str]:
        out: list[str] = []
        for d in self.contract.consts():
            value = _value_source(self.info.const_values[d.name], self.tr)
            written = to_source(d.value)
            note = "" if written == value else f"  # {written}"
            out.append(f"{self.consts[d.name]} = {value}{note}")
        return ["", "", *out] if out else []

    def function(self, fn: FunctionDecl) -> list[str]:
        """The ``def`` of one function, or ``Refuse`` saying why it cannot be written."""
        pin = pinned(self.contract, fn.name)
        if pin is None:
            raise Refuse("no `ensures: result == EXPR` pins its result")
        clause, expr = pin
        sig = self.info.signatures[fn.name]
        self.names.new_function()
        frame = {p: self.names.local_name(p) for p, _, _ in sig.params}
        self.names.locals.append(frame)
        self.tr.scope = [{p: t for p, t, _ in sig.params}]
        params = ", ".join(f"{frame[p]}: {_annotation(t, self.names)}" for p, t, _ in sig.params)
        returns = _annotation(sig.returns, self.names, result=True)
        lines = [f"def {fn.name}({params}) -> {returns}:", *self.docstring(fn.name, clause)]
        for o in self.contract.obligations_of(fn.name):
            if o.kind == "raises" and o.exception is not None:
                lines += self.raise_clause(o)
        value = self.tr.visit(expr)
        if isinstance(base(sig.returns), TInt) and isinstance(value.ty, TReal):
            raise Refuse(f"`{to_source(expr)}` is a real but the result is an int")
        return [*lines, f"    return {value.src}"]

    def docstring(self, name: str, clause: Obligation) -> list[str]:
        text = f"The result pinned by {clause.id}:\n\n    {to_source(clause.expr)}"
        requires = [to_source(o.expr) for o in self.contract.obligations_of(name)
                    if o.kind == "requires"]  # fmt: skip
        if requires:
            text += "\n\nValid inputs: " + "; ".join(requires) + ".\n"
        return _doc(text, "    ")

    def raise_clause(self, o: Obligation) -> list[str]:
        assert o.exception is not None
        why = _raisable(o.exception, self.info)
        if why is not None:
            raise Refuse(why)
        exc = o.exception if o.exception in self.info.exceptions else self.names.use(o.exception)
        message = f"{o.id}: {to_source(o.expr)}"
        return [f"    if {self.tr.py(o.expr)}:", f"        raise {exc}({message!r})"]

    def helpers(self) -> list[str]:
        """The helper functions the translated expressions call, in a fixed order."""
        wanted = self.tr.helpers
        if wanted & {"_real_lt", "_real_le", "_real_in", "_real_count"}:
            wanted.add("_real_eq")
        out: list[str] = []
        if "_real_eq" in wanted:
            tol = self.contract.tolerance
            out += ["", f"{self.names.use('_REL_TOL')} = {float(tol) if tol else 1e-9!r}"
                    "  # relative tolerance of real comparisons (spec tolerance)"]  # fmt: skip
        spelled = Spelled(self.names)
        for name, template in HELPERS.items():
            if name in wanted:
                out += ["", "", *template.format_map(spelled).splitlines()]
        return out


def _header(w: _Writer) -> list[str]:
    from derivative._canon import contract_identity

    c = w.contract
    doc = (
        f"Candidate for spec {c.name} version {c.version}, synthesised by `derivative build "
        f"--synth`.\n\nContract identity: {contract_identity(c)}\n\nEach function raises what "
        "its `raises` clauses demand, in order, and returns the\nexpression its contract pins "
        "with `ensures: result == ...`.  Written from the\ncontract alone, it is judged like "
        "any other candidate: what produced it\ndoes not certify it."
    )
    lines = [*_doc(doc, ""), "", "from __future__ import annotations", ""]
    modules = {"datetime": "import datetime", "decimal": "import decimal",
               "enum": "import enum", "math": "import math", "re": "import re"}  # fmt: skip
    for mod, stmt in sorted(modules.items()):
        if mod in w.names.used:
            alias = w.names.alias.get(mod)
            lines.append(stmt if alias is None else f"{stmt} as {alias}")
    if "Fraction" in w.names.used:
        alias = w.names.alias.get("Fraction")
        lines.append("from fractions import Fraction" + ("" if alias is None else f" as {alias}"))
    for name in sorted(w.names.used - set(modules) - {"Fraction"}):
        if name in w.names.alias:
            lines.append(f"{w.names.alias[name]} = {name}")
    return lines


def synth_source(loaded: LoadedLike) -> str:
    """The synthesised module's text, or ``SynthesisRefused`` naming every obstacle."""
    w = _Writer(loaded)
    w.check_scope()
    enums, exceptions = w.enums(), w.exceptions()
    functions: list[str] = []
    for fn in w.contract.functions():
        try:
            functions += ["", "", *w.function(fn)]
        except Refuse as why:
            w.refuse(fn.name, str(why))
    try:
        constants = w.constants()
    except Refuse as why:
        w.refuse("constants", str(why))
    if w.reasons:
        raise SynthesisRefused(w.reasons)
    body = [*enums, *exceptions, *constants, *w.helpers(), *functions]
    return "\n".join([*_header(w), *body]).rstrip() + "\n"


def synthesize(loaded: LoadedLike, *, module: str | None = None) -> dict[str, bytes]:
    """``{module}.py`` written from the contract's pinned results (module docstring)."""
    name = module or module_name(loaded.contract.name)
    return {f"{name}.py": synth_source(loaded).encode("utf-8")}


class SynthGenerator:
    """``--synth`` as a generator: the same answer to every request, so repairing it
    can only stall (the repair loop says so instead of spending the budget)."""

    def __init__(self, loaded: LoadedLike) -> None:
        self.loaded = loaded

    def generate(self, request: GenerationRequest) -> Attempt:
        files = synthesize(self.loaded, module=request.module)
        return make_attempt(
            files, origin="synth", number=request.attempt, request=request,
            parent=request.attempt - 1 if request.previous is not None else None,
        )  # fmt: skip

    def __call__(self, module: str | None = None) -> Attempt:
        return make_attempt(synthesize(self.loaded, module=module), origin="synth")
