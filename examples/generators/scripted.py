#!/usr/bin/env python3
"""A scripted `derivative build --generator`: attempt N is read from a folder, not invented.

For end-to-end tests and demonstrations of the repair loop: a script folder holds one entry
per attempt, so a test can make a wrong first attempt that the loop repairs.

    SCRIPT/1.py     attempt 1: written as {module}.py
    SCRIPT/2/       attempt 2: a folder, copied as it is (several files)
    SCRIPT/3.py     ...

The folder is the first argument or `DERIVATIVE_GEN_SCRIPT`.  With
`DERIVATIVE_GEN_SCRIPT_AFTER=repeat` an attempt past the last entry repeats the last one
(to show a stall); by default it is an error.  With `DERIVATIVE_GEN_RECORD=DIR` every
request read on stdin is saved as `DIR/request-N.json`, so a test can check what the
generator was told.  Output goes to `DERIVATIVE_OUTPUT_DIR` (or the second argument).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path


def fail(message: str) -> int:
    print(f"scripted: error: {message}", file=sys.stderr)
    return 1


def entries(script: Path) -> dict[int, Path]:
    """Attempt number -> ``N.py`` file or ``N`` folder."""
    found: dict[int, Path] = {}
    for p in script.iterdir():
        m = re.fullmatch(r"(\d+)(\.py)?", p.name)
        if m and (p.is_dir() if m.group(2) is None else p.is_file()):
            found[int(m.group(1))] = p
    return found


def main(argv: list[str]) -> int:
    script = Path(argv[1] if len(argv) > 1 else os.environ.get("DERIVATIVE_GEN_SCRIPT", ""))
    out = Path(os.environ.get("DERIVATIVE_OUTPUT_DIR") or (argv[2] if len(argv) > 2 else ""))
    if not script.is_dir():
        return fail(f"no script folder {str(script)!r}: pass it or set DERIVATIVE_GEN_SCRIPT")
    if not out.is_dir():
        return fail("no output folder: set DERIVATIVE_OUTPUT_DIR or pass it second")
    request = json.load(sys.stdin)
    attempt, module = int(request["attempt"]), str(request["module"])
    record = os.environ.get("DERIVATIVE_GEN_RECORD")
    if record:
        Path(record, f"request-{attempt}.json").write_text(json.dumps(request, indent=2))
    available = entries(script)
    entry = available.get(attempt)
    if entry is None and available and os.environ.get("DERIVATIVE_GEN_SCRIPT_AFTER") == "repeat":
        entry = available[max(available)]
    if entry is None:
        return fail(f"the script has no attempt {attempt} (it has {sorted(available)})")
    if entry.is_dir():
        shutil.copytree(entry, out, dirs_exist_ok=True)
    else:
        shutil.copyfile(entry, out / f"{module}.py")
    print(f"scripted: attempt {attempt} from {entry.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
