"""Running one mutant: in process (a long-lived worker process) or through ``derivative run``.

**In process** (``python benchmarks/_mutation_worker.py``): the worker reads requests
``{"subject", "index", "examples"}``, one JSON line each, on stdin and answers each with one
JSON line on the file descriptor stdout had when it started (the candidate's own prints go
to ``/dev/null``).  Per mutant it does what ``derivative run`` does inside its sandbox, with
the same engine options: the default example budget unless told otherwise, a derandomised
Hypothesis, the white-box hints of the mutant's text; the mutant is written under its
original file name (a contract may name its module).  The worker is one process for many
mutants (imports and solver plans are paid once per subject); a mutant that hangs is the
parent's to stop (``mutation.py`` kills and restarts the worker).

*Time to first failure*: the wall time from the start of the mutant's run (its import
included) to the first ``Failure`` the judge records, before any shrinking; the engine does
not report it, so the worker wraps ``Failure.__init__`` (a benchmark-only patch, in this
process only).

**Sandboxed** (``run_sandboxed``): the real command, ``derivative run SPEC --candidate FILE
--sandbox process --json``; a killed mutant's time is the whole run's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._mutation_subjects import Mutant, mutant_text, subject  # noqa: E402

_FIRST: list[float] = []
"""perf_counter of the first failure of the current mutant (empty: none yet)."""


def _watch_failures() -> None:
    from derivative.forge.testing import _oracle

    original = _oracle.Failure.__init__

    def noting(self: Any, *args: Any, **kwargs: Any) -> None:
        if not _FIRST:
            _FIRST.append(time.perf_counter())
        original(self, *args, **kwargs)

    _oracle.Failure.__init__ = noting  # type: ignore[method-assign]


def _write(m: Mutant, folder: Path) -> Path:
    path = folder / subject(m.subject).filename
    path.write_text(mutant_text(m), encoding="utf-8")
    return path


_INFOS: dict[str, Any] = {}


def run_in_process(m: Mutant, examples: int) -> dict[str, object]:
    """One mutant through the engine, in this process: the verdict as JSON-able data."""
    from hypothesis import settings

    from derivative.api import load
    from derivative.forge.testing import Engine, EngineOptions, InProcessCaller, load_target
    from derivative.forge.testing._whitebox import constants_of, hints_of

    s = subject(m.subject)
    if s.name not in _INFOS:
        _INFOS[s.name] = load(list(s.specs)).types
    info = _INFOS[s.name]
    path = _write(m, Path(tempfile.mkdtemp(prefix="mutant-")))
    _FIRST.clear()
    began = time.perf_counter()
    try:
        module = load_target(str(path))
    except Exception as exc:  # a mutant that cannot even be imported is caught
        return {"killed": True, "why": f"import: {exc}"[:300], "seconds": 0.0,
                "first_failure": 0.0}
    options = EngineOptions(examples=examples, settings=settings(derandomize=True),
                            hints=hints_of([path.read_bytes()]),
                            constants=constants_of([path.read_bytes()]))
    try:
        evidence = Engine(info, InProcessCaller.for_contract(module, info), options,
                          target=str(path)).run()
    except Exception as exc:
        tail = traceback.format_exception_only(exc)[-1].strip()
        return {"killed": True, "why": f"engine error: {tail}"[:300],
                "seconds": round(time.perf_counter() - began, 3), "first_failure": None}
    seconds = time.perf_counter() - began
    failed = [o.id for o in evidence.obligations if o.status == "failed"]
    unexercised = [o.id for o in evidence.obligations if o.status == "unexercised"]
    first = round(_FIRST[0] - began, 3) if _FIRST else None
    return {"killed": evidence.status != "passed", "failed": failed,
            "unexercised": unexercised, "seconds": round(seconds, 3), "first_failure": first,
            "inputs": sum(o.inputs for o in evidence.obligations)}


def run_sandboxed(m: Mutant, examples: int | None, timeout: float) -> dict[str, object]:
    """One mutant through ``derivative run --sandbox process`` (the real command)."""
    s = subject(m.subject)
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        path = _write(m, Path(tmp))
        cmd = [sys.executable, "-m", "derivative", "run", *map(str, s.specs),
               "--candidate", str(path), "--sandbox", "process", "--json"]
        if examples is not None:
            cmd += ["--examples", str(examples)]
        began = time.perf_counter()
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"killed": True, "why": f"timeout after {timeout:.0f} s",
                    "seconds": timeout, "first_failure": None}
        seconds = round(time.perf_counter() - began, 3)
    try:
        doc = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"killed": True, "why": f"no document: {done.stderr.strip()[-300:]}",
                "seconds": seconds, "first_failure": None}
    obligations = doc.get("obligations") or []
    return {"killed": doc.get("status") != "passed", "status": doc.get("status"),
            "failed": [o["id"] for o in obligations if o.get("status") == "failed"],
            "unexercised": [o["id"] for o in obligations if o.get("status") == "unexercised"],
            "seconds": seconds, "first_failure": None}


def serve() -> None:
    """The worker's loop (see the module docstring)."""
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - the worker's life
    _watch_failures()
    for line in sys.stdin:
        request = json.loads(line)
        m = Mutant(**request["mutant"])
        try:
            result = run_in_process(m, int(request["examples"]))
        except BaseException as exc:
            result = {"killed": True, "why": f"worker error: {exc!r}"[:300], "seconds": 0.0,
                      "first_failure": None}
        answers.write(json.dumps(result) + "\n")
        answers.flush()


if __name__ == "__main__":
    serve()
