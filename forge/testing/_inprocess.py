"""The in-process caller (``derivative tests``, the pytest plugin) and its explorer.

``load_target`` imports a candidate into this interpreter; ``InProcessCaller`` calls it
with no isolation at all (use it only for code you trust); ``explore_in_process`` runs the
deterministic interleaving explorer (``forge.inside``'s ``explorer``) over its methods.
"""

from __future__ import annotations

import enum
import importlib
import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from types import ModuleType

from derivative._ast import BindDecl
from derivative._errors import DerivativeError, OperationalTimeout
from derivative._pysource import check_python_file
from derivative._typecheck import TypeInfo
from derivative._values import DictValue, EnumValue, TupleValue

from ._callers import EngineError, Interleaving, Ref
from ._oracle import Outcome, Raised

__all__ = ["InProcessCaller", "explore_in_process", "load_target"]


def load_target(target: str, module: str | None = None) -> ModuleType:
    """Import the candidate: a ``.py`` file, a package directory (with ``module``), or
    a dotted module name importable from the current directory."""
    path = Path(target)
    _refuse_missing(target, path, module)
    try:
        if path.suffix == ".py" and path.is_file():
            check_python_file(path, target)
            name = f"_derivative_target_{abs(hash(str(path.resolve()))):x}"
            folder = str(path.resolve().parent)
            if folder not in sys.path:
                sys.path.insert(0, folder)
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise EngineError(f"cannot import {target}")
            mod = importlib.util.module_from_spec(spec)
            sys.modules[name] = mod
            spec.loader.exec_module(mod)
            return mod
        if path.is_dir():
            if not module:
                raise EngineError(f"{target} is a directory: name the module with --module")
            folder = str(path.resolve())
            if folder not in sys.path:
                sys.path.insert(0, folder)
            return importlib.import_module(module)
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        return importlib.import_module(module or target)
    except DerivativeError:  # ours, already in a user's words (EngineError, a source error)
        raise
    except ModuleNotFoundError as exc:
        wanted = module or target
        if exc.name is not None and (wanted == exc.name or wanted.startswith(exc.name + ".")):
            raise EngineError(
                f"no module named {wanted!r} can be imported from the current directory "
                f"({os.getcwd()}): give the target as a .py file, or as a folder with --module"
            ) from None
        raise EngineError(f"cannot import the target {target}: {type(exc).__name__}: "
                          f"{exc}") from exc
    except Exception as exc:
        raise EngineError(
            f"cannot import the target {target}: {type(exc).__name__}: {exc}"
        ) from exc


def _refuse_missing(target: str, path: Path, module: str | None) -> None:
    """A target that names a path which is not there, or that is no module name, is bad
    input said in those words (not an import error about a module called ``dir/x``)."""
    looks_like_path = target.endswith(".py") or "/" in target or os.sep in target
    if looks_like_path and not path.exists():
        raise EngineError(f"no such file or folder: {target}")
    if path.exists() and not path.is_dir() and path.suffix != ".py":
        raise EngineError(f"{target} is not a .py file")
    if not path.exists() and not all(p.isidentifier() for p in (module or target).split(".")):
        raise EngineError(f"{target} is neither a file, a folder nor a module name")


_MISSING = object()


class InProcessCaller:
    """Calls the candidate in this interpreter (``derivative tests``, the pytest plugin).

    No isolation at all: use it only for code you trust.  ``binds`` maps spec names to
    ``"module:attr"`` (``bind NAME to "..."`` in the spec).
    """

    def __init__(self, module: ModuleType, binds: Mapping[str, str] | None = None) -> None:
        self.module = module
        self.binds = dict(binds or {})
        self._lock = threading.Lock()
        self._root = _candidate_root(module)

    def owns(self, module_name: str) -> bool:
        """Whether the module named ``module_name`` is the candidate's own code: the target
        module itself, or a module whose file lies in the target's folder (the package's
        folder for a package), as the sandbox stages it."""
        if module_name == self.module.__name__:
            return True
        mod = sys.modules.get(module_name)
        file = getattr(mod, "__file__", None)
        if self._root is None or not isinstance(file, str):
            return False
        return os.path.abspath(file).startswith(self._root + os.sep)

    def _error(self, exc: BaseException) -> Outcome:
        return Outcome.error(exc, self.owns)

    @classmethod
    def for_contract(cls, module: ModuleType, info: TypeInfo) -> InProcessCaller:
        binds = {d.name: d.target for d in info.contract.declarations if isinstance(d, BindDecl)}
        return cls(module, binds)

    def resolve(self, name: str) -> object:
        """The object a spec name stands for: the ``bind`` target, else the module's
        attribute; ``LookupError`` with a sentence when the candidate does not provide it."""
        target = self.binds.get(name)
        if target is not None:
            mod_name, _, attr = target.partition(":")
            try:
                obj: object = importlib.import_module(mod_name) if mod_name else self.module
                for part in (attr or name).split("."):
                    obj = getattr(obj, part)
            except Exception as exc:
                raise LookupError(f"bind {name} to {target!r}: {type(exc).__name__}: "
                                  f"{exc}") from None
            return obj
        value = getattr(self.module, name, _MISSING)
        if value is _MISSING:
            raise LookupError(f"the candidate defines no {name}")
        return value

    def to_candidate(self, value: object) -> object:
        """A language value as the candidate takes it (docs/language.md §6)."""
        if isinstance(value, EnumValue):
            cls = getattr(self.module, value.enum, None)
            if isinstance(cls, type) and issubclass(cls, enum.Enum):
                try:
                    return cls[value.member]
                except KeyError:
                    return value.member
            return value.member
        if isinstance(value, tuple):
            return [self.to_candidate(v) for v in value]
        if isinstance(value, TupleValue):
            return tuple(self.to_candidate(v) for v in value.items)
        if isinstance(value, DictValue):
            return {self.to_candidate(k): self.to_candidate(v) for k, v in value.entries}
        if isinstance(value, Fraction):
            return float(value)
        return value

    def _invoke(self, fn: Callable[..., object], args: Sequence[object]) -> Outcome:
        converted = [self.to_candidate(a) for a in args]
        try:
            return Outcome.returned(fn(*converted))
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            return self._error(exc)

    def call(self, func_name: str, args: Sequence[object]) -> Outcome:
        try:
            fn = self.resolve(func_name)
        except LookupError as exc:
            return Outcome.missing(str(exc))
        if not callable(fn):
            return Outcome.missing(f"the candidate's {func_name} is not a function")
        return self._invoke(fn, args)

    def new_instance(self, system: str) -> object:
        try:
            cls = self.resolve(system)
        except LookupError as exc:
            return Outcome.missing(str(exc))
        if not callable(cls):
            return Outcome.missing(f"the candidate's {system} is not a class")
        try:
            return cls()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            return self._error(exc)

    def method(self, handle: object, op: str, args: Sequence[object]) -> Outcome:
        try:
            fn = getattr(handle, op)
        except Exception:
            return Outcome.missing(f"the candidate's {type(handle).__name__} has no method {op}")
        if not callable(fn):
            return Outcome.missing(f"the candidate's {type(handle).__name__}.{op} is not a "
                                   "method")
        return self._invoke(fn, args)

    def explore(
        self,
        system: str,
        setup: Sequence[tuple[str, Sequence[object]]],
        calls: Sequence[tuple[str, Sequence[object]]],
        limit: int,
        stop: Callable[[Interleaving], bool],
    ) -> Iterator[Interleaving]:
        yield from explore_in_process(self, system, setup, calls, limit, stop)


EXPLORE_SAFETY_SECONDS = 300.0
"""Wall-clock safety net of one in-process exploration.  The number of schedules
(``EngineOptions.interleavings``) and the steps per schedule bound the search
deterministically; reaching this raises ``OperationalTimeout`` instead of passing on
however many schedules a loaded machine got through."""


def explore_in_process(
    caller: InProcessCaller,
    system: str,
    setup: Sequence[tuple[str, Sequence[object]]],
    calls: Sequence[tuple[str, Sequence[object]]],
    limit: int,
    stop: Callable[[Interleaving], bool],
) -> Iterator[Interleaving]:
    """Interleavings of ``calls`` explored with ``forge/inside/_explore.py`` in this process.

    Scheduling points are placed only in the candidate's own files, so the engine's
    conversions between values never add schedules; the candidate's module is handed
    to the explorer so that its locks become cooperative.
    """
    from ..inside import explorer

    scenario = _Scenario(caller, system, setup, calls)
    runs = explorer.runs(
        scenario.fresh,
        [scenario.body(i) for i in range(len(calls))],
        max_schedules=limit,
        max_preemptions=2,
        timeout=EXPLORE_SAFETY_SECONDS,
        trace_filter=_candidate_files(caller.module),
        names=[f"thread {i + 1}" for i in range(len(calls))],
        modules=[caller.module],
    )
    seen = 0
    exhausted = False
    for run in runs:
        seen += 1
        exhausted = run.exhausted
        outcomes: list[Outcome] = []
        for r in run.results:
            if r.status == "returned" and isinstance(r.value, Outcome):
                outcomes.append(r.value)
            elif r.error is not None:
                outcomes.append(Outcome.error(r.error, caller.owns))
            else:
                outcomes.append(Outcome(raised=Raised((f"Thread{r.status.capitalize()}",),
                                                      r.status)))
        inter = Interleaving(run.summary(), list(scenario.setup_outcomes), outcomes)
        inter.trace = run.trace_text(max_lines=60)
        inter.deadlock = bool(run.deadlock)
        yield inter
        if stop(inter):
            return
    if seen < limit and not exhausted:
        # The search ends at ``limit``, at the end of its space or at its time budget:
        # only the last depends on the machine's speed.
        raise OperationalTimeout(
            f"the exploration of interleavings of {system} ran into its wall-clock safety "
            f"limit of {EXPLORE_SAFETY_SECONDS:g} s after {seen} of at most {limit} schedules"
        )


def _candidate_root(module: ModuleType) -> str | None:
    """The folder of the candidate's own code: its top-level package's folder, or the
    folder of a plain module's file; None for a module without a file."""
    top = sys.modules.get(module.__name__.partition(".")[0], module)
    file = getattr(top, "__file__", None)
    if not isinstance(file, str):
        paths = list(getattr(top, "__path__", None) or [])
        return os.path.abspath(paths[0]) if paths else None
    return os.path.dirname(os.path.abspath(file))


def _candidate_files(module: ModuleType) -> Callable[[str], bool] | None:
    """Whether a file is the candidate's (its module's folder, never the engine's own);
    None for a candidate without a file (built in memory): the explorer's default filter."""
    module_file = getattr(module, "__file__", None)
    if not module_file:
        return None
    folder = os.path.dirname(os.path.abspath(module_file))
    own = os.path.dirname(os.path.abspath(__file__))

    def trace_filter(filename: str) -> bool:
        if not filename or filename.startswith("<"):
            return False
        path = os.path.abspath(filename)
        return path.startswith(folder + os.sep) and not path.startswith(own)

    return trace_filter


class _Scenario:
    """Per explored schedule: a fresh instance and the set-up calls (``fresh``), then one
    thread per call (``body(i)``), with ``Ref``s resolved to set-up results."""

    def __init__(
        self,
        caller: InProcessCaller,
        system: str,
        setup: Sequence[tuple[str, Sequence[object]]],
        calls: Sequence[tuple[str, Sequence[object]]],
    ) -> None:
        self.caller = caller
        self.system = system
        self.setup = setup
        self.calls = calls
        self.setup_outcomes: list[Outcome] = []
        self.call_args: list[list[object]] = []

    def fresh(self) -> object:
        handle = self.caller.new_instance(self.system)
        outcomes: list[Outcome] = []
        if isinstance(handle, Outcome):
            self.setup_outcomes = [handle]
            self.call_args = []
            return handle
        for op, args in self.setup:
            resolved = [_resolve(a, outcomes) for a in args]
            outcomes.append(self.caller.method(handle, op, resolved))
        self.setup_outcomes = outcomes
        self.call_args = [[_resolve(a, outcomes) for a in args] for _, args in self.calls]
        return handle

    def body(self, i: int) -> Callable[[object], object]:
        op = self.calls[i][0]

        def run(handle: object) -> object:
            if isinstance(handle, Outcome):
                return handle
            return self.caller.method(handle, op, self.call_args[i])

        return run


def _resolve(value: object, outcomes: Sequence[Outcome]) -> object:
    if isinstance(value, Ref):
        out = outcomes[value.index] if value.index < len(outcomes) else None
        return None if out is None or out.raised is not None else out.value
    return value
