"""The built wheel: layers land as real files under ``derivative/``, nothing generic at top.

The layers are symbolic links in the repository (``derivative/solver -> ../solver``);
docs/architecture.md §1 relies on setuptools copying the files behind them into the wheel.
This test builds the wheel from a copy of the working tree (so it never leaves
``build/`` or ``*.egg-info`` behind in the repository), then installs it into a
scratch folder and imports it from there in a fresh interpreter.

Building needs ``setuptools`` and ``wheel`` in the running environment (the ``dev``
extra installs them), because the build runs without isolation and so offline.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("grammar", "solver", "certificates", "forge")

pytestmark = pytest.mark.slow

_IGNORE_ANYWHERE = shutil.ignore_patterns(
    ".git",
    "__pycache__",
    "*.pyc",
    "*.egg-info",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
    ".derivative",
)


def _ignore(folder: str, names: list[str]) -> set[str]:
    """Build output is only the top-level ``build/`` and ``dist/``; ``forge/build`` is source."""
    ignored = set(_IGNORE_ANYWHERE(folder, names))
    if Path(folder) == ROOT:
        ignored |= {"build", "dist"} & set(names)
    return ignored


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("src") / "derivative-src"
    shutil.copytree(ROOT, dest, symlinks=True, ignore=_ignore)
    return dest


def _pip(*args: str, cwd: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    assert done.returncode == 0, f"pip {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def wheel(source_copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    _pip("wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), ".", cwd=source_copy)
    (built,) = out.glob("derivative-*.whl")
    return built


def test_wheel_carries_the_package_version(wheel: Path) -> None:
    import derivative

    assert wheel.name.startswith(f"derivative-{derivative.__version__}-")


@pytest.fixture(scope="module")
def entries(wheel: Path) -> dict[str, zipfile.ZipInfo]:
    with zipfile.ZipFile(wheel) as zf:
        return {info.filename: info for info in zf.infolist()}


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def test_layers_are_real_files_under_the_namespace(entries: dict[str, zipfile.ZipInfo]) -> None:
    for layer in LAYERS:
        init = entries.get(f"derivative/{layer}/__init__.py")
        assert init is not None, f"derivative/{layer}/__init__.py missing from the wheel"
        assert not _is_symlink(init)
        assert init.file_size > 0
    assert not [name for name, info in entries.items() if _is_symlink(info)]


def test_grammar_and_typing_marker_and_schemas_are_packaged(
    entries: dict[str, zipfile.ZipInfo],
) -> None:
    lark_files = [n for n in entries if n.startswith("derivative/grammar/") and n.endswith(".lark")]
    assert lark_files, "the grammar's .lark file is package data and must be in the wheel"
    assert "derivative/py.typed" in entries
    schemas = sorted(p.name for p in (ROOT / "derivative" / "schemas").glob("*.json"))
    assert schemas
    for name in schemas:
        assert f"derivative/schemas/{name}" in entries


def test_every_module_of_the_tree_is_in_the_wheel(entries: dict[str, zipfile.ZipInfo]) -> None:
    def modules() -> Iterator[str]:
        for path in (ROOT / "derivative").glob("*.py"):
            yield f"derivative/{path.name}"
        for layer in LAYERS:
            for path in (ROOT / layer).rglob("*.py"):
                yield f"derivative/{layer}/{path.relative_to(ROOT / layer).as_posix()}"

    missing = sorted(m for m in modules() if m not in entries)
    assert not missing, f"not packaged: {missing}"


def test_nothing_generic_is_installed_at_top_level(entries: dict[str, zipfile.ZipInfo]) -> None:
    tops = {name.split("/")[0] for name in entries}
    dist_info = {t for t in tops if t.endswith(".dist-info")}
    assert tops - dist_info == {"derivative"}, sorted(tops)


def test_installed_copy_imports_every_layer_from_outside_the_repo(
    wheel: Path, tmp_path: Path
) -> None:
    target = tmp_path / "site"
    _pip(
        "install",
        "--no-deps",
        "--no-index",
        "-q",
        "--target",
        str(target),
        str(wheel),
        cwd=tmp_path,
    )
    probe = (
        "import derivative, derivative.grammar, derivative.solver, derivative.certificates, "
        "derivative.forge, derivative.cli\n"
        "print(derivative.__file__)\n"
        "print(derivative.__version__)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    location, version = done.stdout.split()
    assert Path(location).resolve().is_relative_to(target.resolve())
    import derivative

    assert version == derivative.__version__
    cli = subprocess.run(
        [sys.executable, "-m", "derivative", "--version"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 0 and cli.stdout.strip() == f"derivative {version}"
