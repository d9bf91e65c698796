"""Which of a candidate's files the judge runs, and which are the candidate's own tests.

A candidate folder may hold more than the code under judgement: a command-line wrapper
that opens files, its own tests, helpers. The judged sandbox imports only the target
module (and the modules named by the spec's ``bind`` declarations), so the code that can
run there is the import closure of those modules inside the candidate, read statically.
That closure — and nothing else — is staged for judgement and checked by the posture
validator: code outside it cannot run in the judged sandbox, because the default policy
refuses dynamic imports. The candidate's own tests (``test_*.py``, ``*_test.py``, files
under ``tests/``) are staged separately, run, and reported; they are never evidence.
"""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from derivative._errors import UsageError

TEST_DIRS = frozenset({"tests", "test"})


def is_test_file(rel: Path) -> bool:
    """Whether a candidate file is one of the candidate's own tests (never evidence)."""
    name = rel.name
    return (
        name == "conftest.py"
        or (name.startswith("test_") and name.endswith(".py"))
        or name.endswith("_test.py")
        or any(part in TEST_DIRS for part in rel.parts[:-1])
    )


@dataclass(frozen=True)
class Layout:
    """A candidate read as files: what the judge may run and what its tests are."""

    root: Path
    module: str
    files: dict[str, bytes]
    """Every regular ``.py`` file of the candidate (relative path -> bytes)."""
    judged: tuple[str, ...]
    """The import closure of the judged modules (relative paths)."""
    tests: tuple[str, ...]
    """The candidate's own test files."""


def _module_file(files: dict[str, bytes], name: str) -> str | None:
    path = name.replace(".", "/")
    for cand in (f"{path}.py", f"{path}/__init__.py"):
        if cand in files:
            return cand
    return None


def _packages_of(rel: str) -> list[str]:
    parts = rel.split("/")[:-1]
    return [("/".join(parts[: i + 1])) + "/__init__.py" for i in range(len(parts))]


def _imported(rel: str, data: bytes) -> set[str]:
    try:
        tree = ast.parse(data.decode("utf-8"), filename=rel)
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return set()  # the posture validator reports it; the closure stays as it is
    package = rel[: -len("/__init__.py")] if rel.endswith("__init__.py") else rel.rpartition("/")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split("/") if package else []
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                stem = ".".join([*base, *([node.module] if node.module else [])])
            else:
                stem = node.module or ""
            names.add(stem)
            names.update(f"{stem}.{a.name}" if stem else a.name for a in node.names)
    return names


def closure(files: dict[str, bytes], roots: Iterable[str]) -> tuple[str, ...]:
    """The candidate files reachable by imports from the modules ``roots``."""
    todo = [f for r in roots if (f := _module_file(files, r)) is not None]
    seen: set[str] = set()
    while todo:
        rel = todo.pop()
        if rel in seen:
            continue
        seen.add(rel)
        todo.extend(p for p in _packages_of(rel) if p in files)
        for name in _imported(rel, files[rel]):
            parts = name.split(".")
            for i in range(len(parts), 0, -1):
                found = _module_file(files, ".".join(parts[:i]))
                if found is not None:
                    todo.append(found)
                    break
    return tuple(sorted(seen))


def refuse_unjudgeable(path: Path, module: str | None) -> str:
    """The target module's name, or ``UsageError`` when ``path`` cannot be judged as
    ``module``: checked from names alone, so a build refuses bad input before it freezes
    the contract and without reading a byte of the candidate."""
    if not path.exists():
        raise UsageError(f"candidate {path} does not exist")
    if path.is_file():
        if path.suffix != ".py":
            raise UsageError(f"candidate {path} is not a .py file")
        name = module or path.stem
        if not name.isidentifier():
            raise UsageError(f"candidate file name {path.name!r} is not a module name: "
                             "give --module NAME")
        return name
    if not path.is_dir():
        raise UsageError(f"candidate {path}: give a regular .py file or a folder of them")
    if module is None:
        if (path / "__init__.py").is_file():
            raise UsageError(f"candidate {path} is a package: build its parent folder with "
                             f"--module {path.name}")
        raise UsageError(f"candidate folder {path} holds several modules: choose the one the "
                         "contract describes with --module")
    rel = module.replace(".", "/")
    if not ((path / f"{rel}.py").is_file() or (path / rel / "__init__.py").is_file()):
        raise UsageError(f"candidate folder {path} has no module {module!r} ({rel}.py)")
    return module


def read_layout(path: Path, module: str | None, binds: Iterable[str]) -> Layout:
    """Read a candidate (file or folder) and split it into judged code and own tests."""
    name = refuse_unjudgeable(path, module)
    if path.is_file():
        files = {f"{name}.py": path.read_bytes()}
        return Layout(path.parent, name, files, (f"{name}.py",), ())
    files = {
        p.relative_to(path).as_posix(): p.read_bytes()
        for p in sorted(path.rglob("*.py"))
        if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts
    }
    assert module is not None  # refuse_unjudgeable: a folder needs its module named
    roots = [module, *binds]
    if _module_file(files, module) is None:
        raise UsageError(f"candidate folder {path} has no module {module!r} "
                         f"({module.replace('.', '/')}.py)")
    tests = tuple(sorted(r for r in files if is_test_file(Path(r))))
    judged = tuple(r for r in closure(files, roots) if r not in tests)
    return Layout(path, module, files, judged, tests)


def stage(layout: Layout, names: Iterable[str], target: Path) -> Path:
    """Copy ``names`` of the layout into a fresh folder ``target`` (returned)."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for rel in names:
        dest = target / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(layout.files[rel])
    return target


def judged_digest(path: Path, module: str | None, binds: Iterable[str]) -> str:
    """The digest a build records for a candidate (``candidate_sha256``): that of the judged
    files as staged, so ``ledger status --candidate PATH`` names the same code."""
    import tempfile

    from ..sandbox import candidate_digest

    layout = read_layout(path, module, binds)
    with tempfile.TemporaryDirectory(prefix="derivative-digest-") as tmp:
        return candidate_digest(stage(layout, layout.judged, Path(tmp) / "judged"))
