"""Writing the ``.req`` text of an import: the header, one ``timed`` block per component,
and the account of what was not translated as comments.

Everything that comes from the export and lands in the file goes through ``quote`` (a
string literal of the language) or ``comment`` (one line after ``#``), so no text of an
export can end a string, start a line or break the layout.
"""

from __future__ import annotations

from collections.abc import Sequence

from derivative._record import record

from ._model import NotTranslated

__all__ = ["Block", "Requirement", "Signal", "comment", "quote", "render_spec"]

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote(text: str) -> str:
    """``text`` as a double-quoted string literal of the language: backslashes, quotes and
    line ends escaped, other control characters as ``\\xNN``, and what the language
    refuses (lone surrogates, characters above U+2FFFF) replaced by U+FFFD."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif 0xD800 <= code <= 0xDFFF or code > 0x2FFFF:
            out.append("\ufffd")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def comment(text: str) -> str:
    """``text`` on one line, fit to follow ``#``."""
    flat = " ".join(text.split())
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF or ord(c) > 0x2FFFF else c
                   for c in flat)


@record
class Signal:
    direction: str
    name: str
    type: str
    original: str


@record
class Requirement:
    id: str
    tags: tuple[tuple[str, str], ...]
    text: str
    body: str


@record
class Block:
    name: str
    original: str
    signals: tuple[Signal, ...]
    modes: tuple[tuple[str, str], ...]
    requirements: tuple[Requirement, ...]


def _requirement(r: Requirement) -> str:
    tags = ", ".join(f"{key}: {quote(value)}" for key, value in r.tags)
    label = r.id + (f" [{tags}]" if tags else "") + (f" {quote(r.text)}" if r.text else "")
    return f"    requirement {label}: {r.body}"


def _block(b: Block) -> list[str]:
    lines = [f"timed {b.name}"]
    if b.original != b.name:
        lines.insert(0, f"# component {comment(b.original)!s} is written {b.name}")
    for s in b.signals:
        if s.original != s.name:
            lines.append(f"    # {s.name} is {comment(s.original)} in the export")
        lines.append(f"    {s.direction} {s.name}: {s.type}")
    for name, condition in b.modes:
        lines.append(f"    mode {name}: {condition}")
    if b.requirements:
        lines.append("")
    lines.extend(_requirement(r) for r in b.requirements)
    return lines


def render_spec(
    *,
    name: str,
    description: str,
    blocks: Sequence[Block],
    untranslated: Sequence[NotTranslated],
    skipped: Sequence[NotTranslated],
) -> str:
    """The whole ``.req`` file."""
    lines = [f"spec {name} version 1", quote(description), ""]
    for item in untranslated:
        lines.append(f"# not translated: {comment(item.source_id)}: {comment(item.reason)}")
    for item in skipped:
        lines.append(f"# skipped: {comment(item.source_id)}: {comment(item.reason)}")
    if untranslated or skipped:
        lines.append("")
    for b in blocks:
        lines.extend(_block(b))
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
