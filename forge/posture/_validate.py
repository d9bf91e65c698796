"""Static posture validation: judge a candidate's source before anything of it runs.

Seven strategies (docs/build.md), each finding carrying file, line, column and
strategy: ``ast_structure``, ``import_policy``, ``builtin_policy``, ``attribute_access``,
``name_resolution``, ``reflection`` and ``recursive_control``.  What they refuse is data
(``policies/*.json``, see ``_policy.py``); how they look is in ``_scan.py``.  This
module is the narrow entry point:

- ``validate_source(source, file, policy)`` for a text or the bytes of one file;
- ``validate_path(path, policy)`` for a ``.py`` file or a package directory (every ``.py``
  in it, and a finding for anything importable that cannot be read as source: compiled
  ``.pyc`` files, native extensions, symbolic links);
- ``load_policy(name_or_path)``.

A refusal is a returned ``PostureVerdict``; only malformed requests raise
``UsageError`` (empty code, a missing or unreadable file, an unknown or invalid policy).

Bytes are decoded the way the interpreter will decode them (a coding cookie or BOM is
honoured, and a cookie other than UTF-8 is itself a finding), so that what is validated
is what would run: with ``# coding: unicode_escape`` a comment can hide a statement that
a naive reader decoding UTF-8 never sees.  The verdict carries the SHA-256 of the exact
bytes validated; a pipeline must run those bytes and no others.

This is defence in depth, never the isolation boundary.
"""

from __future__ import annotations

import functools
import io
import os
import sys
import tokenize
from collections.abc import Callable, Sequence
from pathlib import Path

from derivative._canon import sha256_hex, sha256_json
from derivative._errors import UsageError

from ._local import LocalModules
from ._model import POSTURE_FORMAT, STRATEGIES, FileDigest, Finding, PostureVerdict, Strategy
from ._policy import DEFAULT_POLICY, Policy, available_policies, load_policy
from ._scan import Context, analyse_text

__all__ = [
    "POSTURE_FORMAT",
    "STRATEGIES",
    "FileDigest",
    "Finding",
    "Policy",
    "PostureVerdict",
    "Strategy",
    "available_policies",
    "load_policy",
    "validate_path",
    "validate_source",
]


_COMPILED_SUFFIXES = (".pyc", ".pyo", ".so", ".pyd")


def _finding(
    strategy: Strategy, file: str, message: str, line: int = 0, column: int = 0
) -> Finding:
    return Finding(strategy=strategy, file=file, line=line, column=column, message=message)


def _decode(data: bytes, file: str) -> tuple[str | None, list[Finding]]:
    """The text the interpreter would see in ``data``, and findings about its encoding."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        return None, [_finding("ast_structure", file, f"cannot be decoded: {exc.msg}", 1, 1)]
    findings: list[Finding] = []
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        return None, [
            _finding("ast_structure", file, f"cannot be decoded as {encoding}: {exc}", 1, 1)
        ]
    return text, findings


def _sha256(data: bytes) -> str:
    return sha256_hex(data)


def _verdict(
    policy: Policy, files: Sequence[FileDigest], digest: str, findings: Sequence[Finding]
) -> PostureVerdict:
    ordered = tuple(sorted(findings, key=Finding.sort_key))
    return PostureVerdict(
        accepted=not (policy.enforce and ordered),
        enforced=policy.enforce,
        policy=policy.name,
        policy_sha256=policy.sha256,
        sha256=digest,
        files=tuple(files),
        findings=ordered,
    )


def _analyse_bytes(
    data: bytes,
    file: str,
    policy: Policy,
    local_modules: frozenset[str],
    modules: LocalModules | None = None,
) -> list[Finding]:
    text, findings = _decode(data, file)
    if text is None:
        return findings
    if not text.strip():
        return findings
    ctx = Context(policy=policy, file=file, local_modules=local_modules, modules=modules)
    # The cookie is checked on the decoded text: it is still there, and a non-UTF-8
    # cookie is what made the interpreter decode it that way.
    return findings + analyse_text(text, ctx, check_cookie=True)


def validate_source(
    source: str | bytes,
    file: str = "<candidate>",
    policy: str | os.PathLike[str] | Policy = DEFAULT_POLICY,
    local_modules: Sequence[str] = (),
) -> PostureVerdict:
    """The posture verdict for one module's source (text, or the bytes of its file).

    ``local_modules`` names the candidate's own top-level modules, which it may import.
    Raises ``UsageError`` for empty code or a bad policy; a refusal is the returned verdict.
    """
    resolved = load_policy(policy)
    if isinstance(source, bytes):
        data = source
        if not data.strip():
            raise UsageError(f"{file}: empty code: there is nothing to validate")
        findings = _analyse_bytes(data, file, resolved, frozenset(local_modules))
    elif isinstance(source, str):
        if not source.strip():
            raise UsageError(f"{file}: empty code: there is nothing to validate")
        data = source.encode("utf-8", "surrogatepass")
        ctx = Context(policy=resolved, file=file, local_modules=frozenset(local_modules))
        findings = analyse_text(source, ctx, check_cookie=True)
    else:
        raise UsageError(f"source must be text or bytes, not {type(source).__name__}")
    digest = _sha256(data)
    return _verdict(resolved, [FileDigest(path=file, sha256=digest)], digest, findings)


def _read(path: Path, shown: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {shown}: {exc.strerror or exc}") from None


def _shadowing(name: str, file: str) -> Finding | None:
    if name in sys.stdlib_module_names:
        return _finding(
            "ast_structure",
            file,
            f"the candidate's module {name} has the name of a standard-library module and "
            "would replace it for every importer, the worker included",
        )
    return None


def _validate_file(path: Path, shown: str, policy: Policy) -> PostureVerdict:
    data = _read(path, shown)
    if not data.strip():
        raise UsageError(f"{shown}: empty code: there is nothing to validate")
    stem = path.stem
    local = frozenset({stem}) if stem.isidentifier() else frozenset()
    own, _ = _decode(data, shown)
    modules = LocalModules(lambda name: own if name == stem else None, policy, local)
    findings = _analyse_bytes(data, shown, policy, local, modules)
    shadow = _shadowing(stem, shown)
    if shadow is not None:
        findings.append(shadow)
    digest = _sha256(data)
    return _verdict(policy, [FileDigest(path=path.name, sha256=digest)], digest, findings)


def _package_files(root: Path, shown: str, policy: Policy) -> tuple[list[Path], list[Finding]]:
    """The ``.py`` files under ``root`` (sorted) and findings about everything else importable."""
    sources: list[Path] = []
    findings: list[Finding] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        kept = []
        for d in sorted(dirnames):
            full = here / d
            if full.is_symlink():
                rel = full.relative_to(root).as_posix()
                findings.append(
                    _finding(
                        "ast_structure",
                        os.path.join(shown, rel),
                        "a symbolic link to a directory: what it points to can change after "
                        "validation",
                    )
                )
            elif not d.startswith("."):
                kept.append(d)
        dirnames[:] = kept
        for name in sorted(filenames):
            full = here / name
            rel = full.relative_to(root).as_posix()
            if full.is_symlink():
                if name.endswith((".py", *_COMPILED_SUFFIXES)):
                    findings.append(
                        _finding(
                            "ast_structure",
                            os.path.join(shown, rel),
                            "a symbolic link: what it points to can change after validation",
                        )
                    )
                continue
            if name.endswith(".py"):
                sources.append(full)
            elif name.endswith(_COMPILED_SUFFIXES):
                findings.append(
                    _finding(
                        "ast_structure",
                        os.path.join(shown, rel),
                        "compiled code (bytecode or a native extension) could be imported "
                        "instead of validated source; remove it (derivative never runs "
                        "bytecode it did not compile itself)",
                    )
                )
    if len(sources) > policy.limits.max_files:
        findings.append(
            _finding(
                "ast_structure",
                shown,
                f"{len(sources)} Python files; the policy allows {policy.limits.max_files}",
            )
        )
        sources = sources[: policy.limits.max_files]
    return sorted(sources), findings


def _local_roots(root: Path) -> frozenset[str]:
    """The top-level module names a package directory provides to its own code."""
    names = {p.stem for p in root.glob("*.py") if p.stem.isidentifier()}
    names |= {
        p.name
        for p in root.iterdir()
        if p.is_dir() and p.name.isidentifier() and any(p.rglob("*.py"))
    }
    if (root / "__init__.py").is_file() and root.name.isidentifier():
        names.add(root.name)
    names.discard("__init__")
    return frozenset(names)


def _module_source(root: Path) -> Callable[[str], str | None]:
    """The decoded source of the candidate's module ``dotted`` under ``root`` (None: none).

    As the worker imports them: ``root`` is on ``sys.path``, so ``a.b`` is ``a/b.py`` or
    ``a/b/__init__.py``; a root that is itself a package also provides its own name.
    """

    def source(dotted: str) -> str | None:
        parts = dotted.split(".")
        tails = [parts]
        if (root / "__init__.py").is_file() and parts[0] == root.name:
            tails.append(parts[1:])
        for tail in tails:
            paths = [root.joinpath(*tail, "__init__.py")]
            if tail:
                paths.append(root.joinpath(*tail[:-1], f"{tail[-1]}.py"))
            for path in paths:
                if path.is_file() and not path.is_symlink():
                    text, _ = _decode(_read(path, str(path)), str(path))
                    return text
        return None

    return source


def _validate_directory(root: Path, shown: str, policy: Policy) -> PostureVerdict:
    sources, findings = _package_files(root, shown, policy)
    if not sources:
        raise UsageError(f"{shown}: no Python files to validate in this directory")
    local = _local_roots(root)
    modules = LocalModules(functools.lru_cache(maxsize=None)(_module_source(root)), policy, local)
    digests: list[FileDigest] = []
    for path in sources:
        rel = path.relative_to(root).as_posix()
        display = os.path.join(shown, rel)
        data = _read(path, display)
        digests.append(FileDigest(path=rel, sha256=_sha256(data)))
        findings.extend(_analyse_bytes(data, display, policy, local, modules))
    for name in sorted(local):
        shadow = _shadowing(name, os.path.join(shown, name))
        if shadow is not None:
            findings.append(shadow)
    digest = sha256_json([d.model_dump(mode="json") for d in digests])
    return _verdict(policy, digests, digest, findings)


def validate_path(
    path: str | os.PathLike[str], policy: str | os.PathLike[str] | Policy = DEFAULT_POLICY
) -> PostureVerdict:
    """The posture verdict for a ``.py`` file or a package directory (every ``.py`` in it).

    Raises ``UsageError`` for a missing path, an unreadable or empty file, a directory
    without Python files, or a bad policy; a refusal is the returned verdict.
    """
    resolved = load_policy(policy)
    shown = os.fspath(path)
    target = Path(shown)
    if not target.exists():
        raise UsageError(f"no such file or directory: {shown}")
    if target.is_dir():
        return _validate_directory(target, shown, resolved)
    if not target.is_file():
        raise UsageError(f"{shown} is neither a file nor a directory")
    return _validate_file(target, shown, resolved)
