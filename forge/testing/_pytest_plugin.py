"""The pytest plugin: ``pytest --req SPEC --req-target MODULE``.

One test item per obligation of the contract, named by its identifier, so that
``pytest --req spec.req --req-target app.rules -k S1`` runs one obligation and a report
lists every obligation by id.  The items are judged by the engine (``_engine.py``) in
this process: all obligations of one function or system are exercised together (one
Hypothesis run per function, one stateful run and the concurrent exploration per
system) and each item then reports its own obligation: ``failed`` and ``unexercised``
fail the item with the obligation's words; ``passed`` and ``vacuous`` pass it (the
status is recorded as a user property).

Registered through the ``pytest11`` entry point (``derivative =
"derivative.forge.testing._pytest_plugin"``); importing this module is cheap, and nothing
happens unless ``--req`` is given.  Hypothesis settings come from the active profile;
``--req-examples`` sets the number of generated inputs per function.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ._engine import Engine
    from ._evidence import ObligationEvidence

__all__ = ["ObligationItem", "pytest_addoption"]

_KEY = pytest.StashKey["_State"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("derivative", "derivative: tests from a requirement set")
    group.addoption(
        "--req", action="append", default=[], metavar="SPEC",
        help="a .req file of the requirement set to test (repeat for several files)",
    )
    group.addoption(
        "--req-target", default=None, metavar="PATH_OR_MODULE",
        help="the implementation: a .py file or an importable module name",
    )
    group.addoption(
        "--req-module", default=None, metavar="NAME",
        help="the module inside --req-target when it is a package directory",
    )
    from ._engine import EngineOptions

    examples = EngineOptions.examples
    group.addoption(
        "--req-examples", type=int, default=examples, metavar="N",
        help=f"generated inputs per function or operation (default {examples})",
    )


class ObligationFailed(Exception):
    """An obligation failed or was not exercised; the message says which and why."""


class _State:
    """The contract, the engine and the evidence gathered so far (one per session)."""

    def __init__(self, config: pytest.Config) -> None:
        from derivative import grammar
        from derivative._typecheck import check

        from ._engine import Engine, EngineOptions
        from ._inprocess import InProcessCaller, load_target

        specs = config.getoption("req")
        target = config.getoption("req_target")
        if not target:
            raise pytest.UsageError("--req needs --req-target PATH_OR_MODULE")
        from derivative._errors import DerivativeError

        missing = [s for s in specs if not Path(s).is_file()]
        if missing:
            raise pytest.UsageError(f"--req: no such file: {missing[0]}")
        try:
            self.info = check(grammar.load(specs))
            module = load_target(target, config.getoption("req_module"))
        except DerivativeError as exc:
            raise pytest.UsageError(exc.render()) from exc
        caller = InProcessCaller.for_contract(module, self.info)
        options = EngineOptions(examples=config.getoption("req_examples"))
        self.engine: Engine = Engine(self.info, caller, options, target=target)
        self.evidence: dict[str, ObligationEvidence] = {}
        self.done: set[str] = set()

    def owner_of(self, obligation_id: str) -> str:
        for o in self.info.contract.obligations:
            if o.id == obligation_id:
                owner = o.owner or ""
                return owner.partition(".")[0] if "." in owner else owner
        return obligation_id.rpartition(".")[0].partition(".")[0]

    def result(self, obligation_id: str, owner: str) -> ObligationEvidence | None:
        if owner not in self.done:
            self.done.add(owner)
            for ev in self.engine.run([owner]).obligations:
                self.evidence[ev.id] = ev
        return self.evidence.get(obligation_id)


class ObligationItem(pytest.Item):
    """One obligation of the contract, judged by the engine."""

    def __init__(self, *, obligation_id: str, owner: str, file: str, line: int,
                 kind: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.obligation_id = obligation_id
        self.owner = owner
        self.spec_file = file
        self.spec_line = line
        self.kind = kind

    def runtest(self) -> None:
        state = self.config.stash[_KEY]
        ev = state.result(self.obligation_id, self.owner)
        if ev is None:
            raise ObligationFailed(f"{self.obligation_id}: the engine reported nothing for it")
        self.user_properties.append(("status", ev.status))
        self.user_properties.append(("inputs", ev.inputs))
        if ev.status in ("failed", "unexercised"):
            raise ObligationFailed(ev.explain())

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, ObligationFailed):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path | str, int | None, str]:
        return self.spec_file or "<spec>", max(self.spec_line - 1, 0), self.obligation_id


class SpecFile(pytest.File):
    """A ``.req`` file of the set: the parent of the items of its obligations."""

    def collect(self) -> Iterator[ObligationItem]:
        from ._oracle import Judge

        state = self.config.stash[_KEY]
        contract = state.info.contract
        mine = str(self.path)
        for o in contract.obligations:
            if o.kind == "requirement" or _resolved(o.file) != mine:
                continue
            yield ObligationItem.from_parent(
                self, name=o.id, obligation_id=o.id, owner=state.owner_of(o.id),
                file=o.file, line=o.line, kind=o.kind,
            )
        # The synthetic `<owner>.returns` obligations (result type, normal return).
        for name in [*(f.name for f in contract.functions()),
                     *(op.qualname for s in contract.systems() for op in s.operations)]:
            judge = Judge(state.info, name)
            s = judge.synthetic
            if s is not None and _resolved(s.file) == mine:
                yield ObligationItem.from_parent(
                    self, name=s.id, obligation_id=s.id, owner=name.partition(".")[0],
                    file=s.file, line=s.line, kind="returns",
                )


def _resolved(file: str) -> str:
    return str(Path(file).resolve()) if file else ""


def _items(session: pytest.Session, state: _State) -> Iterator[ObligationItem]:
    files = dict.fromkeys(_resolved(o.file) for o in state.info.contract.obligations if o.file)
    for file in files:
        yield from SpecFile.from_parent(session, path=Path(file)).collect()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    if not config.getoption("req"):
        return
    state = _State(config)
    config.stash[_KEY] = state
    items.extend(_items(session, state))
