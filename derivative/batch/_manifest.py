"""Reading a batch manifest: JSON Lines, one build per line, every error located.

Why JSON Lines and not one JSON document: a batch is usually written by a script (every
sample a code model produced for every task), appended to as samples arrive, and read by
people when one line is wrong. One task per line gives every error a line, a column and a
caret, lets ``grep`` and ``head`` work on the file, and keeps a 10,000-task manifest
readable without a JSON viewer.

A line is either the header (it has ``"format": "derivative.batch/v1"``; at most one, and
first) or a task. Paths are relative to the manifest's folder. Every problem is a
``SpecError`` at its line and column (exit 2); nothing is built before the whole manifest
has been read and every spec it names has been loaded.
"""

from __future__ import annotations

import os
import re
import shlex
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from derivative._errors import SourcePos, SpecError, UsageError
from derivative._files import read_regular_file
from derivative._strictjson import loads

BATCH_FORMAT: Final = "derivative.batch/v1"
MANIFEST_LIMIT: Final = 64 * 1024 * 1024
"""The largest manifest read (about 200,000 tasks of a few hundred bytes each)."""

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_SANDBOXES: Final = ("auto", "docker", "process")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value)


_OPTIONS: Final[dict[str, tuple[Callable[[object], bool], str]]] = {
    "module": (lambda v: isinstance(v, str) and all(p.isidentifier() for p in v.split(".")),
               "a dotted module name"),
    "sandbox": (lambda v: v in _SANDBOXES, " or ".join(_SANDBOXES)),
    "policy": (_text, "a policy name or file"),
    "examples": (lambda v: _is_int(v) and typing.cast(int, v) >= 1, "an integer of at least 1"),
    "seed": (_is_int, "an integer"),
    "max_repairs": (lambda v: _is_int(v) and typing.cast(int, v) >= 0,
                    "an integer of at least 0"),
    "image": (_text, "an image tag"),
}
"""Each build option a task may set: what it accepts, and how a refusal names it."""
_OPTION_KEYS: Final = tuple(_OPTIONS)
_SOURCE_KEYS: Final = ("candidate", "generator", "synth")
_TASK_KEYS: Final = frozenset(("id", "spec", *_SOURCE_KEYS, *_OPTION_KEYS))
_HEADER_KEYS: Final = frozenset(("format", "defaults", "description"))


@dataclass(frozen=True, kw_only=True)
class Task:
    """One build of a batch: which spec, where the code comes from, with which options.

    Paths are absolute (resolved against the manifest's folder), so a worker on the same
    file system reads exactly what the driver validated."""

    id: str
    index: int
    """The task's place in the manifest (0-based), kept in every result row."""
    line: int
    spec: tuple[str, ...]
    candidate: str | None = None
    generator: tuple[str, ...] | None = None
    synth: bool = False
    module: str | None = None
    sandbox: str = "auto"
    policy: str = "default"
    examples: int | None = None
    seed: int | None = None
    max_repairs: int | None = None
    image: str | None = None

    @property
    def source(self) -> str:
        """What the results table shows as the candidate's origin."""
        if self.candidate is not None:
            return self.candidate
        if self.generator is not None:
            return "generator: " + shlex.join(self.generator)
        return "synth"


@dataclass(frozen=True)
class Manifest:
    path: Path
    tasks: tuple[Task, ...]
    description: str | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)


class _Line:
    """One line of the manifest, to locate errors in it."""

    def __init__(self, file: str, number: int, text: str) -> None:
        self.file, self.number, self.text = file, number, text

    def error(self, message: str, key: str | None = None, hint: str | None = None) -> SpecError:
        column = 1
        if key is not None:
            found = self.text.find(f'"{key}"')
            column = found + 1 if found >= 0 else 1
        else:
            column = len(self.text) - len(self.text.lstrip()) + 1
        return SpecError(message, SourcePos(self.file, self.number, column, self.text[:300]),
                         hint=hint)


def read_manifest(path: str | os.PathLike[str]) -> Manifest:
    """The manifest at ``path``: its header (optional) and every task, checked."""
    shown = os.fspath(path)
    data = read_regular_file(shown, limit=MANIFEST_LIMIT, what="batch manifest")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{shown} is not UTF-8 text (byte {exc.start + 1})") from None
    base = Path(shown).resolve().parent
    header: dict[str, Any] = {}
    tasks: list[Task] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.split("\n"), start=1):
        line = _Line(shown, number, raw.rstrip("\r"))
        if not line.text.strip() or line.text.lstrip().startswith("#"):
            continue
        obj = _object(line)
        if "format" in obj:
            if header or tasks:
                raise line.error("the header line (with \"format\") must come first, once",
                                 "format")
            header = _header(line, obj)
            continue
        task = _task(line, obj, header.get("defaults", {}), base, len(tasks))
        if task.id in seen:
            raise line.error(f"task id {task.id!r} is used twice (first on line "
                             f"{seen[task.id]}): ids name the build folders", "id")
        seen[task.id] = number
        tasks.append(task)
    if not tasks:
        raise SpecError("the manifest names no task (one JSON object per line)",
                        SourcePos(shown, 1, 1, text.split("\n", 1)[0][:300]))
    return Manifest(Path(shown), tuple(tasks), header.get("description"),
                    header.get("defaults", {}))


def _object(line: _Line) -> dict[str, Any]:
    try:
        value = loads(line.text)
    except UsageError as exc:
        raise line.error(str(exc), hint="each line is one JSON object: a task, or the "
                         f"header {{\"format\": \"{BATCH_FORMAT}\"}}") from None
    if not isinstance(value, dict):
        raise line.error(f"a line must be a JSON object, not {type(value).__name__}")
    return value


def _header(line: _Line, obj: dict[str, Any]) -> dict[str, Any]:
    _unknown_keys(line, obj, _HEADER_KEYS, "header")
    if obj["format"] != BATCH_FORMAT:
        raise line.error(f"format {obj['format']!r} is not {BATCH_FORMAT!r}", "format")
    defaults = obj.get("defaults", {})
    if not isinstance(defaults, dict):
        raise line.error("\"defaults\" must be an object", "defaults")
    _unknown_keys(line, defaults, frozenset(_OPTION_KEYS), "defaults")
    for key, value in defaults.items():
        _option(line, key, value)
    description = obj.get("description")
    if description is not None and not isinstance(description, str):
        raise line.error("\"description\" must be a string", "description")
    return {"defaults": defaults, "description": description}


def _unknown_keys(line: _Line, obj: Mapping[str, Any], allowed: frozenset[str],
                  what: str) -> None:
    for key in obj:
        if key not in allowed:
            raise line.error(f"unknown key {key!r} in a {what}", key,
                             hint="known keys: " + ", ".join(sorted(allowed)))


def _task(line: _Line, obj: dict[str, Any], defaults: Mapping[str, Any], base: Path,
          index: int) -> Task:
    _unknown_keys(line, obj, _TASK_KEYS, "task")
    task_id = obj.get("id")
    if not isinstance(task_id, str) or not _ID.fullmatch(task_id):
        raise line.error("a task needs an \"id\": 1 to 100 letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit (it names the build folder)",
                         "id" if "id" in obj else None)
    sources = [k for k in _SOURCE_KEYS if k in obj and obj[k] not in (None, False)]
    if len(sources) != 1:
        raise line.error("a task needs exactly one of \"candidate\", \"generator\" or "
                         f"\"synth\" (found {len(sources)})", sources[1] if sources[1:] else
                         None)
    options: dict[str, Any] = {**defaults, **{k: obj[k] for k in _OPTION_KEYS if k in obj}}
    for key, value in options.items():
        _option(line, key, value)
    policy = options.get("policy")
    if isinstance(policy, str) and policy not in ("default", "permissive"):
        options["policy"] = _path(line, "policy", policy, base)
    return Task(
        id=task_id, index=index, line=line.number, spec=_specs(line, obj.get("spec"), base),
        candidate=_candidate(line, obj.get("candidate"), base),
        generator=_generator(line, obj.get("generator"), base),
        synth=obj.get("synth") is True, **{k: v for k, v in options.items()})


def _path(line: _Line, key: str, value: object, base: Path) -> str:
    if not isinstance(value, str) or not value:
        raise line.error(f"\"{key}\" must name a path (a non-empty string)", key)
    return str((base / value).resolve())


def _specs(line: _Line, value: object, base: Path) -> tuple[str, ...]:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names:
        raise line.error("\"spec\" must be a path or a list of paths of .req files",
                         "spec" if value is not None else None)
    out = tuple(_path(line, "spec", n, base) for n in names)
    for p in out:
        if not os.path.isfile(p):
            raise line.error(f"spec file {p} does not exist", "spec")
    return out


def _candidate(line: _Line, value: object, base: Path) -> str | None:
    if value is None:
        return None
    p = _path(line, "candidate", value, base)
    if not os.path.exists(p):
        raise line.error(f"candidate {p} does not exist", "candidate")
    return p


def _generator(line: _Line, value: object, base: Path) -> tuple[str, ...] | None:
    """A generator's argv; words naming an existing path relative to the manifest are made
    absolute (the generator runs in a folder of its own, as with ``build --generator``)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as exc:
            raise line.error(f"\"generator\": {exc}", "generator") from None
    elif isinstance(value, list) and all(isinstance(w, str) for w in value):
        words = list(value)
    else:
        raise line.error("\"generator\" must be a command line (a string or a list of "
                         "strings)", "generator")
    if not words:
        raise line.error("\"generator\" must name a program", "generator")
    return tuple(str((base / w).resolve())
                 if not os.path.isabs(w) and (os.sep in w or w.startswith("."))
                 and (base / w).exists() else w for w in words)


def _option(line: _Line, key: str, value: object) -> None:
    """The type and range of one build option; the build checks the rest (a module that
    is not in the candidate is that build's bad input, reported in its row)."""
    if value is None and key not in ("sandbox", "policy"):
        return
    accepts, want = _OPTIONS[key]
    if not accepts(value):
        raise line.error(f"\"{key}\" must be {want}, not {value!r}", key)


def group_specs(tasks: Sequence[Task]) -> dict[tuple[str, ...], list[Task]]:
    """Tasks by the spec files they name, so each requirement set is loaded once."""
    out: dict[tuple[str, ...], list[Task]] = {}
    for t in tasks:
        out.setdefault(t.spec, []).append(t)
    return out
