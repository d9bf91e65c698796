"""Where candidates come from: a path, an external generator command, or ``--synth``.

A candidate is only ever *produced* here; it is judged elsewhere (the gates), and nothing
in this module can make it look better than the evidence says.  So the generator is
treated as an untrusted program that writes files:

- it reads a ``derivative.generation-request/v1`` document on stdin: the contract, the
  module name to write, the attempt number and, when repairing, what went wrong before;
- it writes candidate files into a fresh, empty temporary folder of its own (named by the
  ``DERIVATIVE_OUTPUT_DIR`` variable and the ``{out}`` placeholder), which is also its
  working directory; it is never told where the build folder or the evidence live;
- it runs with a scrubbed environment (``PATH``, ``HOME``, ``LANG`` and the variables the
  user passes on by name or prefix), its own session, a wall-clock limit, and its process
  group is killed when it ends so nothing it started outlives it;
- what it wrote is collected strictly: regular files only (no symlinks, devices or
  folders that escape), ``.py`` and small text files, size caps, plain file names, UTF-8,
  and every ``.py`` file must parse.  Anything else is ``GeneratorFailed``.

Each collected candidate is an ``Attempt`` with its normalised AST hash, so the repair
loop can tell a materially different candidate from a cosmetic rewrite.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import keyword
import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, Protocol

from derivative._canon import canonical_json
from derivative._errors import DerivativeError, UsageError

__all__ = [
    "DEFAULT_PASS_ENV",
    "GENERATION_REQUEST_FORMAT",
    "Attempt",
    "CommandGenerator",
    "GenerationRequest",
    "Generator",
    "GeneratorFailed",
    "Origin",
    "PathCandidate",
    "Previous",
    "make_attempt",
    "module_name",
    "normalised_ast_hash",
    "structural_diff",
]

GENERATION_REQUEST_FORMAT = "derivative.generation-request/v1"

Origin = Literal["path", "generator", "synth"]

DEFAULT_PASS_ENV: tuple[str, ...] = ("OPENAI_*", "DERIVATIVE_GEN_*")
"""Variables a generator sees besides PATH, HOME and LANG: a trailing ``*`` is a prefix."""

_ALWAYS_PASSED = ("PATH", "HOME", "LANG")
_STDERR_TAIL = 4096

# What a candidate folder may hold.  Plain names keep the files packageable and printable.
_TEXT_SUFFIXES = frozenset({".txt", ".md", ".rst", ".json", ".toml", ".cfg", ".ini", ".csv"})
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
MAX_PY_BYTES = 1_000_000
MAX_TEXT_BYTES = 256_000
MAX_TOTAL_BYTES = 4_000_000
MAX_FILES = 200
MAX_DEPTH = 8


class GeneratorFailed(DerivativeError):
    """A generator produced no usable candidate: it failed, timed out or wrote bad files.

    Not a verdict on any candidate: the build pipeline turns it into the repair loop's
    ``generator_failed`` stop reason.
    """

    def __init__(
        self, message: str, *, stderr_tail: str = "", returncode: int | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.stderr_tail = stderr_tail
        self.returncode = returncode


# --------------------------------------------------------------------------- the request


@dataclass(frozen=True, kw_only=True)
class Previous:
    """What the generator is told about the attempt it is asked to repair."""

    files: Mapping[str, str]
    failing: tuple[str, ...] = ()
    counterexamples: tuple[Mapping[str, Any], ...] = ()
    message: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "files": dict(sorted(self.files.items())),
            "failing": sorted(self.failing),
            "counterexamples": [dict(c) for c in self.counterexamples],
            "message": self.message,
        }


@dataclass(frozen=True, kw_only=True)
class GenerationRequest:
    """The document a generator reads on stdin (``derivative.generation-request/v1``).

    ``contract`` is the ``derivative.contract/v1`` document (``derivative.api.contract_json``;
    this room may not import the API, so the caller builds it).  ``module`` is the name of
    the Python module the generator must write (``{module}.py``).
    """

    contract: Mapping[str, Any]
    module: str
    attempt: int = 1
    previous: Previous | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "format": GENERATION_REQUEST_FORMAT,
            "contract": dict(self.contract),
            "module": self.module,
            "attempt": self.attempt,
            "previous": None if self.previous is None else self.previous.to_json(),
        }

    def to_bytes(self) -> bytes:
        """Canonical JSON of the request: what goes to the generator's stdin."""
        return canonical_json(self.to_json())

    def next(self, *, attempt: int, previous: Previous | None) -> GenerationRequest:
        """The request for another attempt at the same contract and module."""
        return GenerationRequest(
            contract=self.contract, module=self.module, attempt=attempt, previous=previous
        )


def module_name(spec_name: str) -> str:
    """A spec's name as a Python module name (``checkout-v2`` -> ``checkout_v2``)."""
    name = re.sub(r"\W", "_", spec_name, flags=re.ASCII) or "candidate"
    if name[0].isdigit():
        name = "_" + name
    return name + "_" if keyword.iskeyword(name) else name


# --------------------------------------------------------------------------- attempts


@dataclass(frozen=True, kw_only=True)
class Attempt:
    """One candidate: its files and where they came from.  Never evidence about itself."""

    number: int
    parent: int | None
    files: dict[str, bytes]
    origin: Origin
    command: list[str] | None = None
    duration: float = 0.0
    ast_hash: str = ""
    stderr_tail: str = ""
    request: GenerationRequest | None = field(default=None, compare=False, repr=False)
    """The request this attempt answered (None for a path candidate): repairs start from it."""

    def __post_init__(self) -> None:
        if not self.ast_hash:  # never compare candidates by a missing hash
            object.__setattr__(self, "ast_hash", normalised_ast_hash(self.files))

    def texts(self) -> dict[str, str]:
        """The files as text (undecodable bytes replaced), e.g. to show a generator."""
        return {p: b.decode("utf-8", errors="replace") for p, b in sorted(self.files.items())}

    def renumbered(self, number: int, parent: int | None) -> Attempt:
        """The same candidate under the number the repair loop gives it."""
        return replace(self, number=number, parent=parent)


def make_attempt(
    files: Mapping[str, bytes],
    *,
    origin: Origin,
    number: int = 1,
    parent: int | None = None,
    command: Sequence[str] | None = None,
    duration: float = 0.0,
    stderr_tail: str = "",
    request: GenerationRequest | None = None,
) -> Attempt:
    """An ``Attempt`` with its normalised AST hash computed from ``files``."""
    return Attempt(
        number=number, parent=parent, files=dict(sorted(files.items())), origin=origin,
        command=None if command is None else list(command), duration=duration,
        ast_hash=normalised_ast_hash(files), stderr_tail=stderr_tail, request=request,
    )  # fmt: skip


class Generator(Protocol):
    """Anything that answers a generation request with a candidate."""

    def generate(self, request: GenerationRequest) -> Attempt: ...


# --------------------------------------------------------------------------- AST identity


def _strip_docstrings(tree: ast.Module) -> ast.Module:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            first = body[0].value if body and isinstance(body[0], ast.Expr) else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _normal_dump(node: ast.AST) -> str:
    return ast.dump(node, annotate_fields=True, include_attributes=False)


def _parse(source: bytes) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def normalised_ast_hash(files: Mapping[str, bytes]) -> str:
    """SHA-256 over the ``.py`` files' ASTs without docstrings, comments or layout.

    Names of files are part of it (sorted); other files are not, because a candidate's code
    cannot read them (the posture forbids ``open``), so they change nothing it does.  A file
    that does not parse contributes its raw bytes.
    """
    h = hashlib.sha256()
    for path in sorted(files):
        if not path.endswith(".py"):
            continue
        tree = _parse(files[path])
        text = "raw:" + files[path].hex() if tree is None else _normal_dump(_strip_docstrings(tree))
        h.update(f"{len(path)}:{path}\n{len(text)}:{text}\n".encode())
    return h.hexdigest()


def _definitions(files: Mapping[str, bytes]) -> dict[str, str]:
    """``path:Qual.name`` of every function and class, with its normalised AST."""
    out: dict[str, str] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qual = prefix + node.name
                out[qual] = _normal_dump(node)
                visit(node.body, qual + ".")
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body, prefix)
                visit(node.orelse, prefix)

    for path in sorted(files):
        if path.endswith(".py"):
            tree = _parse(files[path])
            if tree is not None:
                visit(_strip_docstrings(tree).body, f"{path}:")
    return out


def structural_diff(old: Mapping[str, bytes], new: Mapping[str, bytes]) -> dict[str, list[str]]:
    """Functions and classes added, removed and changed between two candidates.

    Names are ``path:Qual.name``; *changed* means the same name with a different normalised
    AST (docstrings, comments and layout do not count).  Files come and go in
    ``files_added`` / ``files_removed``.
    """
    before, after = _definitions(old), _definitions(new)
    return {
        "added": sorted(after.keys() - before.keys()),
        "removed": sorted(before.keys() - after.keys()),
        "changed": sorted(k for k in before.keys() & after.keys() if before[k] != after[k]),
        "files_added": sorted(new.keys() - old.keys()),
        "files_removed": sorted(old.keys() - new.keys()),
    }


# --------------------------------------------------------------------------- collecting files


def _allowed(rel: str, size: int) -> str | None:
    """Why the file ``rel`` of ``size`` bytes cannot be part of a candidate, or None."""
    suffix = os.path.splitext(rel)[1]
    if suffix == ".py":
        return None if size <= MAX_PY_BYTES else f"{rel} is over {MAX_PY_BYTES} bytes"
    if suffix in _TEXT_SUFFIXES:
        return None if size <= MAX_TEXT_BYTES else f"{rel} is over {MAX_TEXT_BYTES} bytes"
    kinds = ", ".join(sorted(_TEXT_SUFFIXES))
    return f"{rel} is neither a .py file nor a small text file ({kinds})"


def _walk(
    root: Path, rel: str, depth: int, found: dict[str, Path], fail: type[DerivativeError]
) -> None:
    if depth > MAX_DEPTH:
        raise fail(f"{rel or '.'} is nested more than {MAX_DEPTH} folders deep")
    for entry in sorted(os.scandir(root / rel if rel else root), key=lambda e: e.name):
        name = f"{rel}/{entry.name}" if rel else entry.name
        if entry.name == "__pycache__" and entry.is_dir(follow_symlinks=False):
            continue
        if not _NAME.fullmatch(entry.name) or entry.name in (".", ".."):
            raise fail(f"{name!r}: file names are letters, digits, '_', '-' and '.' only")
        mode = entry.stat(follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            raise fail(f"{name} is a symbolic link: only regular files are collected")
        if stat.S_ISDIR(mode):
            _walk(root, name, depth + 1, found, fail)
        elif stat.S_ISREG(mode):
            found[name] = root / name
            if len(found) > MAX_FILES:
                raise fail(f"more than {MAX_FILES} files")
        else:
            raise fail(f"{name} is not a regular file")


def collect_files(
    root: Path, *, fail: type[DerivativeError] = GeneratorFailed, strict: bool = True
) -> dict[str, bytes]:
    """The candidate files under ``root`` by POSIX relative path, checked (module docstring).

    ``strict`` also demands UTF-8 and parseable Python (a generator's output); a path the
    user gave is taken as it is, and a broken file is left for the gates to judge.
    """
    found: dict[str, Path] = {}
    _walk(root, "", 0, found, fail)
    files: dict[str, bytes] = {}
    total = 0
    for rel, path in found.items():
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(MAX_PY_BYTES + 1)
        why = _allowed(rel, len(data))
        if why is not None:
            raise fail(why)
        total += len(data)
        if total > MAX_TOTAL_BYTES:
            raise fail(f"the files add up to more than {MAX_TOTAL_BYTES} bytes")
        if strict:
            _check_text(rel, data, fail)
        files[rel] = data
    if not any(p.endswith(".py") for p in files):
        raise fail("no .py file was written" if strict else f"{root} holds no .py file")
    return files


def _check_text(rel: str, data: bytes, fail: type[DerivativeError]) -> None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(f"{rel} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if rel.endswith(".py"):
        try:
            ast.parse(data, filename=rel)
        except SyntaxError as exc:
            raise fail(f"{rel}:{exc.lineno}: not valid Python: {exc.msg}") from None
        except (ValueError, RecursionError, MemoryError) as exc:
            raise fail(f"{rel}: not valid Python: {type(exc).__name__}") from None


# --------------------------------------------------------------------------- a given path


class PathCandidate:
    """``--candidate PATH``: a ``.py`` file or a folder of them, read once, as given."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __call__(self) -> Attempt:
        return self.read()

    def generate(self, request: GenerationRequest) -> Attempt:
        """The same files whatever is asked: repairing a fixed path can only stall."""
        attempt = self.read()
        return attempt.renumbered(request.attempt, attempt.parent)

    def read(self) -> Attempt:
        p = self.path
        if not p.exists():
            raise UsageError(f"no such candidate: {p}")
        p = p.resolve()  # the user's own path; symbolic links *inside* a folder are refused
        if not (p.is_file() or p.is_dir()):
            raise UsageError(f"{p}: give a regular .py file or a folder of them")
        if p.is_file():
            if p.suffix != ".py":
                raise UsageError(f"{p} is not a .py file")
            data = p.read_bytes()
            if len(data) > MAX_PY_BYTES:
                raise UsageError(f"{p} is over {MAX_PY_BYTES} bytes")
            files = {p.name: data}
        else:
            files = collect_files(p, fail=UsageError, strict=False)
        return make_attempt(files, origin="path", command=None)


# --------------------------------------------------------------------------- a command


def _scrubbed_env(
    pass_env: Sequence[str], source: Mapping[str, str], out: str
) -> dict[str, str]:
    env = {k: source[k] for k in _ALWAYS_PASSED if k in source}
    for pattern in pass_env:
        if pattern.endswith("*"):
            env.update({k: v for k, v in source.items() if k.startswith(pattern[:-1])})
        elif pattern in source:
            env[pattern] = source[pattern]
    env["DERIVATIVE_OUTPUT_DIR"] = out
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _tail(fh: Any) -> str:
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    fh.seek(max(0, size - _STDERR_TAIL))
    return str(fh.read().decode("utf-8", errors="replace"))


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class CommandGenerator:
    """An external program that writes candidates (``--generator CMD``); see the module
    docstring for what it sees.  ``{out}`` in ``argv`` becomes its output folder,
    ``{module}`` the module to write and ``{python}`` this interpreter."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float = 300.0,
        pass_env: Sequence[str] = DEFAULT_PASS_ENV,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if not argv:
            raise UsageError("the generator command is empty")
        if timeout <= 0:
            raise UsageError("the generator timeout must be positive")
        self.argv = list(argv)
        self.label = shlex.join(self.argv)[:120]
        self.timeout = timeout
        self.pass_env = tuple(pass_env)
        self.environ = environ

    def command_for(self, out: str, module: str) -> list[str]:
        subst = {"{out}": out, "{module}": module, "{python}": sys.executable}
        result = []
        for arg in self.argv:
            for key, value in subst.items():
                arg = arg.replace(key, value)
            result.append(arg)
        return result

    def generate(self, request: GenerationRequest) -> Attempt:
        work = tempfile.mkdtemp(prefix="derivative-gen-")
        try:
            out = os.path.join(work, "out")
            os.mkdir(out, 0o700)
            started = time.monotonic()
            tail = self._run(request, out)
            duration = time.monotonic() - started
            try:
                files = collect_files(Path(out))
            except GeneratorFailed as exc:
                raise GeneratorFailed(
                    f"generator `{self.label}`: {exc.message}", stderr_tail=tail
                ) from None
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return make_attempt(
            files, origin="generator", number=request.attempt,
            parent=request.attempt - 1 if request.previous is not None else None,
            command=self.argv, duration=duration, stderr_tail=tail, request=request,
        )  # fmt: skip

    def _run(self, request: GenerationRequest, out: str) -> str:
        """Run the program once; its stderr tail, or ``GeneratorFailed``."""
        argv = self.command_for(out, request.module)
        source = os.environ if self.environ is None else self.environ
        env = _scrubbed_env(self.pass_env, source, out)
        with tempfile.TemporaryFile() as err:
            try:
                proc = subprocess.Popen(
                    argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err,
                    cwd=out, env=env, start_new_session=True, close_fds=True,
                )  # fmt: skip
            except OSError as exc:
                raise GeneratorFailed(f"cannot start the generator `{self.label}`: {exc}") from None
            try:
                proc.communicate(request.to_bytes(), timeout=self.timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc.pid)
                proc.wait()
                raise GeneratorFailed(
                    f"generator `{self.label}` timed out after {self.timeout:g} s",
                    stderr_tail=_tail(err),
                ) from None
            finally:
                _kill_group(proc.pid)  # nothing it started outlives it
            tail = _tail(err)
        if proc.returncode != 0:
            raise GeneratorFailed(
                f"generator `{self.label}` exited with status {proc.returncode}"
                + (f": {tail.strip().splitlines()[-1]}" if tail.strip() else ""),
                stderr_tail=tail,
                returncode=proc.returncode,
            )
        return tail
