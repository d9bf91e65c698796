"""Cross-check of the interleaving explorer against ``frontrun`` (PyPI, DPOR).

Why: an independent implementation of the same idea must agree with ours on the same
classes: the check-then-set TokenStore races, the locked one holds.  frontrun only runs
under its own launcher (it preloads a library and patches locks process-wide), so it runs
in a child process started through ``frontrun.cli.main``; the classes are sent there as
their source text, so both tools judge literally the same code.

This test needs ``frontrun==0.7.0`` (the dev extras); it is skipped only when frontrun
cannot be imported.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from test_explore import LockedTokenStore, TokenStore, at_most_one_ok, reset_t1

from derivative.forge.inside._explore import explore

pytest.importorskip("frontrun")

_SCRIPT = """
from __future__ import annotations

import json
import threading
import time

import frontrun

{classes}


def measure(cls):
    def setup():
        store = cls()
        store.outcomes = []
        return store

    def worker(store):
        store.outcomes.append(store.reset("t1", "correct horse"))

    started = time.perf_counter()
    result = frontrun.explore(
        setup=setup,
        workers=worker,
        count=2,
        invariant=lambda store: store.outcomes.count("ok") <= 1,
        reproduce_on_failure=2,
        total_timeout=60.0,
    )
    return {{
        "holds": result.property_holds,
        "explored": result.num_explored,
        "seconds": time.perf_counter() - started,
    }}


print(json.dumps({{name: measure(globals()[name]) for name in {names!r}}}))
"""


def _frontrun_verdicts(tmp_path: Path, classes: list[type]) -> dict[str, dict[str, object]]:
    source = "\n\n".join(textwrap.dedent(inspect.getsource(c)) for c in classes)
    script = tmp_path / "frontrun_check.py"
    script.write_text(
        _SCRIPT.format(classes=source, names=[c.__name__ for c in classes]), encoding="utf-8"
    )
    launcher = "import sys; from frontrun.cli import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", launcher, sys.executable, str(script)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    assert lines, proc.stdout[-2000:] + proc.stderr[-2000:]
    verdicts: dict[str, dict[str, object]] = json.loads(lines[-1])
    return verdicts


def test_frontrun_agrees_on_the_token_store(tmp_path: Path) -> None:
    theirs = _frontrun_verdicts(tmp_path, [TokenStore, LockedTokenStore])
    ours_racy = explore(TokenStore, [reset_t1, reset_t1], at_most_one_ok)
    ours_locked = explore(LockedTokenStore, [reset_t1, reset_t1], at_most_one_ok)

    assert theirs["TokenStore"]["holds"] is False
    assert ours_racy.violated and ours_racy.reproduced
    assert theirs["LockedTokenStore"]["holds"] is True
    assert not ours_locked.violated and ours_locked.exhausted
    print(
        f"\nfrontrun: racy found after {theirs['TokenStore']['explored']} interleavings"
        f" ({theirs['TokenStore']['seconds']:.3f} s); locked held after"
        f" {theirs['LockedTokenStore']['explored']}"
        f"\nexplore:  racy found after {ours_racy.schedules_run} schedules"
        f" ({ours_racy.elapsed:.3f} s); locked exhausted after {ours_locked.schedules_run}"
    )
