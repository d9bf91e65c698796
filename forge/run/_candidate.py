"""The candidate of ``derivative run`` is checked before the contract is: a missing path, a
folder without the module, a file that is not Python source is bad input (exit 2) at
once, instead of a posture refusal or an import failure after the solver's work.
"""

from __future__ import annotations

import os
from pathlib import Path

from derivative._errors import UsageError
from derivative._pysource import check_python_file, python_files

__all__ = ["refuse_unreadable"]


def _module_ok(name: str) -> bool:
    return bool(name) and all(part.isidentifier() for part in name.split("."))


def refuse_unreadable(candidate: str, module: str | None) -> None:
    """``UsageError`` (or ``CandidateSourceError``, with the place) unless ``candidate`` is a
    ``.py`` file or a folder holding the module to import, and every Python file of it is
    Python source."""
    path = Path(candidate)
    if not path.exists():
        raise UsageError(f"candidate {candidate} does not exist")
    if module is not None and not _module_ok(module):
        raise UsageError(f"--module {module!r} is not a dotted module name")
    if path.is_file():
        if path.suffix != ".py":
            raise UsageError(f"candidate {candidate} is not a .py file")
        check_python_file(path, candidate)
        return
    if not path.is_dir():
        raise UsageError(f"candidate {candidate}: give a regular .py file or a folder of them")
    if module is None and not (path / "__init__.py").is_file():
        raise UsageError(f"candidate folder {candidate} is not a package: choose the module "
                         "with --module")
    if module is not None:
        rel = module.replace(".", "/")
        if not ((path / f"{rel}.py").is_file() or (path / rel / "__init__.py").is_file()):
            raise UsageError(f"candidate folder {candidate} has no module {module!r} "
                             f"({rel}.py or {rel}/__init__.py)")
    files = list(python_files(path))
    if not files:
        raise UsageError(f"candidate folder {candidate} holds no Python files")
    for file in files:
        check_python_file(file, os.path.join(candidate, file.relative_to(path).as_posix()))
