"""The candidate's own tests: run in the sandbox, reported, never counted as evidence.

A candidate may ship tests (a generator's, or its author's). They say what the candidate's
author believed, which is exactly what the build does not take on trust: they run behind
the same boundary as the candidate, their results go into the validation artifact, and no
verdict ever depends on them. Each ``test_*`` function of each test module that takes no
argument is called once in a sandbox session of its own module; the call's outcome is the
test's result (an ``AssertionError`` or any other raise is a failure). Tests that need
fixtures or a test runner the sandbox does not have are reported as not run, with why.
They run without the runtime guard (files in ``/tmp`` are what tests do): the OS boundary
contains them, and what they say is never evidence, so the guard has nothing to protect.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from derivative._errors import SandboxUnavailable

from ..sandbox import BackendName, Launcher, Limits, RunReceipt, open_sandbox

NOT_EVIDENCE = "the candidate's own tests are reported, never counted as evidence"


@dataclass(frozen=True)
class OwnTest:
    file: str
    name: str
    status: str  # passed | failed | not_run
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "test": self.name, "status": self.status,
                "message": self.message}


def _test_functions(data: bytes) -> tuple[list[str], list[str]]:
    """(callable tests, tests that need arguments) of a test module, read as text."""
    try:
        tree = ast.parse(data.decode("utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return [], []
    plain: list[str] = []
    needs: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            a = node.args
            required = len(a.posonlyargs) + len(a.args) - len(a.defaults)
            kw_required = sum(1 for d in a.kw_defaults if d is None)
            (needs if required or kw_required else plain).append(node.name)
    return plain, needs


def _module_name(rel: str) -> str:
    return rel[: -len(".py")].replace("/", ".")


def run_own_tests(
    staged_all: Path,
    tests: dict[str, bytes],
    *,
    kind: BackendName,
    contract_sha256: str,
    limits: Limits,
    image: str | None,
    launcher: Launcher | None,
) -> tuple[list[OwnTest], list[RunReceipt]]:
    """Every test of every test file, each module in one sandbox session."""
    results: list[OwnTest] = []
    receipts: list[RunReceipt] = []
    for rel, data in sorted(tests.items()):
        plain, needs = _test_functions(data)
        results.extend(OwnTest(rel, n, "not_run", "needs fixtures or arguments") for n in needs)
        if not plain:
            continue
        try:
            sandbox = open_sandbox(staged_all, module=_module_name(rel), kind=kind,
                                   contract_sha256=contract_sha256, limits=limits,
                                   image=image, launcher=launcher, guard=False)
        except SandboxUnavailable as exc:
            results.extend(OwnTest(rel, n, "not_run", f"no sandbox: {exc}") for n in plain)
            continue
        try:
            results.extend(_run_module(sandbox, rel, plain))
        finally:
            receipts.extend(sandbox.close())
    return results, receipts


def _run_module(sandbox: Any, rel: str, names: list[str]) -> list[OwnTest]:
    try:
        load = sandbox.start()
    except SandboxUnavailable as exc:
        return [OwnTest(rel, n, "not_run", f"the sandbox could not start: {exc}") for n in names]
    if not load.ok:
        why = load.detail or (load.exc.message if load.exc else load.status)
        return [OwnTest(rel, n, "not_run", f"the module could not be imported: {why}")
                for n in names]
    out = []
    for name in names:
        result = sandbox.call(name, [])
        if result.ok:
            out.append(OwnTest(rel, name, "passed", ""))
        else:
            raised = result.exc
            what = (f"{raised.classes[0] if raised.classes else 'error'}: {raised.message}"
                    if raised else result.detail or result.status)
            out.append(OwnTest(rel, name, "failed", what[:500]))
    return out
