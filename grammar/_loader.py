"""Requirement sets: reading files, resolving ``use``, merging, identifiers.

A requirement set is one or more files forming one namespace (docs/language.md §3).
Files are visited depth first in the order given (each file before the files it
``use``s); a file reached twice is included once, a ``use`` cycle is an error
naming the cycle.  The set takes its name, version and description from the first
file.  A ``tolerance`` may be written in any file; two files that set different
tolerances are an error naming both.

Identifiers: an explicit identifier must be unique in the set.  An obligation
without one gets an identifier derived from its owner, kind and content
(``_canon.content_digest``), never from its position:

- ``<owner>.raises.<Exc>`` for an unnamed ``raises``; if one owner has several
  unnamed ``raises`` of the same exception, each gets ``.<6hex>`` appended;
- ``requirement.<6hex>`` for a global requirement;
- ``<owner>.<kind>.<6hex>`` otherwise (``is_strong.ensures.3f9a1c``,
  ``TokenStore.reset.requires.…``, ``TokenStore.invariant.…``).

Where two different contents of one stem share the six hex digits, both take as many
more (an even number) as tells them apart.  Two obligations that end up with the same
identifier are an error naming both places (for generated identifiers this means
identical content).
"""

from __future__ import annotations

import hashlib
import linecache
import os
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from derivative._ast import Contract, Obligation, SourceFile
from derivative._canon import content_sha, distinct_prefixes
from derivative._errors import SourcePos, SpecError, UsageError
from derivative._files import MAX_SPEC_BYTES, FileRefused, read_regular_file
from derivative._gcpause import collector_paused
from derivative._timed_ast import TimedComponent

from ._parser import parse_source, pos_in, source_line
from ._timed import read_blocks, split_blocks
from ._transform import Clause, ParsedFile, UseLine


def register_source(file: str, text: str) -> None:
    """Make ``linecache.getline(file, n)`` return this text's lines (for carets)."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    linecache.cache[file] = (len(text), None, lines, file)


def _is_pseudo(file: str) -> bool:
    return file.startswith("<") and file.endswith(">")


def _decode(data: bytes, file: str) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8", errors="replace")
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        shown = before.splitlines()[-1] if before and not before.endswith("\n") else ""
        raise SpecError(
            "the file is not valid UTF-8",
            SourcePos(file, line, column, shown),
            hint="save the spec as UTF-8",
        ) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


SPEC_SUFFIX = ".req"
"""The ending of every file ``use`` may name."""

_HEADER = re.compile(r"spec +[A-Za-z_][A-Za-z0-9_]* +version +[0-9][0-9_]* *(#.*)?")
_SKIPPED = re.compile(r"[ \t\f]*(#.*)?")
_LINE_END = re.compile(r"\r\n|\n|\r")


def begins_with_header(text: str) -> bool:
    """Whether ``text`` is recognisably a spec: after blank and comment lines, its first
    line is the header ``spec NAME version N``."""
    for line in _LINE_END.split(text):
        if _SKIPPED.fullmatch(line):
            continue
        return _HEADER.fullmatch(line) is not None
    return False


def _used_text(data: bytes, file: str, use: SourcePos) -> str:
    """The text of a file reached by ``use``, refused unless it is recognisably a spec.

    A ``use`` line can name any ``.req`` path on the machine, and an error inside the
    file it names shows the file's text (the line and the unexpected token).  So a file
    reached by ``use`` is quoted only once it is recognisably a spec: UTF-8 text whose
    first line (after blank and comment lines) is ``spec NAME version N``.  Anything
    else is refused at the ``use`` line, and the message quotes nothing of the file.
    """
    hint = ("a file reached by `use` is quoted in messages only once it is UTF-8 text "
            "that begins with `spec NAME version N`; nothing of this one is shown")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if begins_with_header(data[: exc.start].decode("utf-8").removeprefix("\ufeff")):
            _decode(data, file)  # a spec with a bad byte further on: say where
        raise SpecError(
            f"the used file {file!r} is not a spec file: it is not UTF-8 text", use, hint=hint
        ) from None
    text = text.removeprefix("\ufeff")
    if not begins_with_header(text):
        raise SpecError(
            f"the used file {file!r} is not a spec file: its first line is not "
            "`spec NAME version N`",
            use,
            hint=hint,
        )
    return text


class _SetBuilder:
    """Collects the files of one requirement set, then assembles the Contract."""

    def __init__(self) -> None:
        self.files: list[ParsedFile] = []
        self.sources: list[SourceFile] = []
        self.texts: dict[str, str] = {}
        self.seen: set[str] = set()
        self.stack: list[tuple[str, str]] = []  # (real path, shown path)
        self.timed: list[TimedComponent] = []

    # -------------------------------------------------------------- reading

    def _pos(self, file: str, line: int, column: int) -> SourcePos:
        text = self.texts.get(file)
        if text is None:
            return SourcePos(file, line, column, linecache.getline(file, line).rstrip("\r\n"))
        return pos_in(text, file, line, column)

    def add_path(self, path: str, via: tuple[str, UseLine] | None) -> None:
        key = os.path.realpath(path)
        for i, (k, _) in enumerate(self.stack):
            if k == key:
                assert via is not None
                chain = [shown for _, shown in self.stack[i:]] + [path]
                src, use = via
                raise SpecError(
                    "`use` cycle: " + " -> ".join(chain),
                    self._pos(src, use.line, use.column),
                    hint="remove one of the `use` lines of the cycle",
                )
        if key in self.seen:
            return
        if via is not None and not path.endswith(SPEC_SUFFIX):
            src, use = via
            raise SpecError(
                f"`use` reads only spec files, and {use.path!r} does not end in {SPEC_SUFFIX}",
                self._pos(src, use.line, use.column),
                hint="a file reached by `use` is a spec file named NAME.req",
            )
        try:
            data = read_regular_file(path, limit=MAX_SPEC_BYTES, what="spec")
        except FileRefused as exc:
            if via is None:
                raise
            src, use = via
            unreadable = exc.reason.startswith("cannot be read")
            raise SpecError(
                f"the used file {path!r} {exc.reason}",
                self._pos(src, use.line, use.column),
                hint="`use` paths are relative to the file that contains the `use` line"
                if unreadable else None,
            ) from None
        sha = hashlib.sha256(data).hexdigest()
        if via is None:
            self.add_text(_decode(data, path), path, key, sha)
            return
        self.add_text(_used_text(data, path, self._pos(via[0], via[1].line, via[1].column)),
                      path, key, sha)

    def add_text(self, text: str, file: str, key: str | None, sha: str | None = None) -> None:
        register_source(file, text)
        self.texts[file] = text
        untimed, blocks = split_blocks(text)
        parsed = parse_source(untimed, file)
        if blocks:
            self.timed.extend(read_blocks(text, file, blocks))
        if key is not None:
            self.seen.add(key)
        self.files.append(parsed)
        if sha is None:
            sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self.sources.append(SourceFile(path=file, sha256=sha))
        if not parsed.uses:
            return
        if key is None:
            use = parsed.uses[0]
            raise SpecError(
                "`use` needs the spec to be read from a file",
                self._pos(file, use.line, use.column),
                hint="load the spec with derivative.grammar.load([...]) or give its path",
            )
        self.stack.append((key, file))
        base = os.path.dirname(file)
        for use in parsed.uses:
            target = os.path.normpath(os.path.join(base, use.path))
            self.add_path(target, (file, use))
        self.stack.pop()

    # -------------------------------------------------------------- assembling

    def _twice(self, what: str, first: Any, second: Any, hint: str | None = None) -> SpecError:
        return SpecError(
            f"{what} is declared twice",
            self._pos(second.file, second.line, second.column),
            hint=hint,
            related=[("first declared here", self._pos(first.file, first.line, first.column))],
        )

    def _check_names(self, decls: Sequence[Any]) -> None:
        names: dict[str, Any] = {}
        binds: dict[str, Any] = {}
        for d in decls:
            table = binds if d.kind == "bind" else names
            prev = table.get(d.name)
            if prev is not None:
                label = f"a binding for {d.name!r}" if d.kind == "bind" else f"name {d.name!r}"
                raise self._twice(label, prev, d, "every name of a requirement set is unique")
            table[d.name] = d

    def _tolerance(self) -> str | None:
        chosen: tuple[str, ParsedFile] | None = None
        for pf in self.files:
            tol = pf.tolerance
            if tol is None:
                continue
            if chosen is None:
                chosen = (tol.value, pf)
            elif chosen[0] != tol.value:
                first = chosen[1]
                assert first.tolerance is not None
                raise SpecError(
                    f"conflicting tolerances {first.tolerance.value} and {tol.value}",
                    self._pos(pf.file, tol.line, tol.column),
                    hint="the files of one requirement set must agree on the tolerance",
                    related=[
                        (
                            "the other tolerance",
                            self._pos(first.file, first.tolerance.line, first.tolerance.column),
                        )
                    ],
                )
        return chosen[0] if chosen else None

    def _obligations(self, clauses: list[Clause]) -> list[Obligation]:
        unnamed_raises = Counter(
            (c.owner, c.exception)
            for c in clauses
            if c.kind == "raises" and c.label.ident is None
        )
        ids: dict[str, tuple[Clause, bool]] = {}
        out: list[Obligation] = []
        generated_ids = self._generated_ids(clauses, unnamed_raises)
        for c, generated_id in zip(clauses, generated_ids, strict=True):
            ident = c.label.ident
            if ident is not None:
                oid = str(ident.value)
                generated = False
            else:
                assert generated_id is not None
                oid, generated = generated_id, True
            prev = ids.get(oid)
            if prev is not None:
                raise self._duplicate_id(oid, prev, (c, generated))
            ids[oid] = (c, generated)
            out.append(
                Obligation(
                    id=oid,
                    generated_id=generated,
                    kind=c.kind,
                    owner=c.owner,
                    expr=c.expr,
                    exception=c.exception,
                    tags=c.label.tags,
                    text=c.label.text,
                    file=c.file,
                    line=c.line,
                    column=c.column,
                )
            )
        return out

    @staticmethod
    def _generated_ids(clauses: list[Clause], unnamed_raises: Counter[Any]) -> list[str | None]:
        """The generated identifier of each unnamed clause (None for a named one).

        ``<stem>.<digest>``, where the digest is the first six hex digits of the content's
        SHA-256, or more where two different contents of one stem share those
        (``_canon.distinct_prefixes``): the ids of a large set must not collide by chance.
        """
        out: list[str | None] = [None] * len(clauses)
        stems: dict[str, list[tuple[int, str]]] = {}
        for k, c in enumerate(clauses):
            if c.label.ident is not None:
                continue
            if c.kind == "raises" and unnamed_raises[(c.owner, c.exception)] == 1:
                out[k] = f"{c.owner}.raises.{c.exception}"
                continue
            if c.kind == "raises":
                stem = f"{c.owner}.raises.{c.exception}"
            elif c.owner is None:
                stem = c.kind
            else:
                stem = f"{c.owner}.{c.kind}"
            sha = content_sha(c.kind, c.owner, c.expr, c.exception)
            stems.setdefault(stem, []).append((k, sha))
        for stem, members in stems.items():
            lengths = distinct_prefixes([sha for _, sha in members])
            for (k, sha), length in zip(members, lengths, strict=True):
                out[k] = f"{stem}.{sha[:length]}"
        return out

    def _where(self, c: Clause) -> SourcePos:
        ident = c.label.ident
        if ident is not None:
            return self._pos(c.file, ident.line, ident.column)
        return self._pos(c.file, c.line, c.column)

    def _duplicate_id(
        self, oid: str, first: tuple[Clause, bool], second: tuple[Clause, bool]
    ) -> SpecError:
        if first[1] and second[1]:
            return SpecError(
                f"two obligations have identical content (identifier {oid!r})",
                self._where(second[0]),
                hint="remove the duplicate, or give each an explicit identifier",
                related=[("the same obligation", self._where(first[0]))],
            )
        return SpecError(
            f"identifier {oid!r} is used twice",
            self._where(second[0]),
            hint="identifiers are unique within a requirement set",
            related=[("first used here", self._where(first[0]))],
        )

    def assemble(self) -> Contract:
        first = self.files[0]
        decls: list[Any] = []
        clauses: list[Clause] = []
        for pf in self.files:
            decls.extend(pf.declarations)
            clauses.extend(pf.clauses)
        self._check_names(decls)
        tolerance = self._tolerance()
        obligations = self._obligations(clauses)
        return Contract(
            name=first.header.name,
            version=first.header.version,
            description=first.header.description,
            tolerance=tolerance,
            files=tuple(self.sources),
            declarations=tuple(decls),
            obligations=tuple(obligations),
        )


def load(paths: Sequence[str | os.PathLike[str]]) -> Contract:
    """Read the files of one requirement set (resolving ``use``) into a Contract
    (``timed`` blocks are read but left out: ``load_set`` returns them)."""
    return load_set(paths)[0]


def load_set(
    paths: Sequence[str | os.PathLike[str]],
) -> tuple[Contract, tuple[TimedComponent, ...]]:
    """Read the files of one requirement set (resolving ``use``) into a Contract.

    Raises ``UsageError`` for a missing command-line file and ``SpecError`` for
    anything wrong inside the files.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if not paths:
        raise UsageError("no spec file given")
    with collector_paused():
        builder = _SetBuilder()
        for p in paths:
            builder.add_path(os.fspath(p), None)
        return builder.assemble(), tuple(builder.timed)


def parse_text(text: str, file: str = "<string>") -> Contract:
    """Parse one spec given as text (``timed`` blocks left out: see ``parse_text_set``)."""
    return parse_text_set(text, file)[0]


def parse_text_set(
    text: str, file: str = "<string>"
) -> tuple[Contract, tuple[TimedComponent, ...]]:
    """Parse one spec given as text.

    ``use`` lines are resolved relative to ``file``'s directory when ``file`` is a
    real path; with a pseudo name such as ``<string>`` they are an error.
    """
    with collector_paused():
        builder = _SetBuilder()
        key = None if _is_pseudo(file) else os.path.realpath(file)
        builder.add_text(text, file, key)
        return builder.assemble(), tuple(builder.timed)


__all__ = ["load", "load_set", "parse_text", "parse_text_set", "register_source", "source_line"]
