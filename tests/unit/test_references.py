"""Every file the project's own texts point at exists in this repository.

A user has this repository and nothing else, so a message, a docstring, a schema
description or a page of the documentation that names a file must name one that is here:
``docs/language.md §7`` must be a section of docs/language.md, a link must lead to a file
(and a ``#anchor`` to a heading of it), ``forge/posture/_policy.py`` must exist.  And no text
may name the design documents the project was written from (upper-case names such as the
language or certificate design files) or the folder beside the repository they lived in:
a user does not have them.

What is read: every Python source of the package (``derivative/``, ``grammar/``, ``solver/``,
``certificates/``, ``forge/``: messages, docstrings and comments), the descriptions of the
published JSON Schemas, ``docs/*.md``, ``README.md`` and ``examples/README.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

PACKAGE_DIRS = ("derivative", "grammar", "solver", "certificates", "forge")
"""The package's sources (the layers are real folders at the top; ``derivative/`` holds
symbolic links to them, which are not followed so that nothing is read twice)."""

DOCS = (*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "examples" / "README.md")

SCHEMAS = (*sorted((ROOT / "derivative" / "schemas").glob("*.json")),
           *sorted((ROOT / "certificates" / "schema").glob("*.json")))

TOP = ("docs", "forge", "tests", "examples", "grammar", "solver", "certificates", "derivative",
       "benchmarks")

# A path under one of the top folders: `docs/cli.md`, `forge/posture/policies/*.json`.
PATH = re.compile(
    r"(?<![\w./<>{}-])((?:" + "|".join(TOP) + r")/[\w./*<>{}-]*[\w/*>}])"
)
# A Markdown file named on its own: `decisions.md`, `README.md` (a path is matched above).
MARKDOWN_NAME = re.compile(r"(?<![\w./-])([\w-]+\.md)\b")
# `file.md §7`, `docs/language.md §6-7`, `language.md §8.3`; a bare `§7` in a page means
# that page (in a Python source: docs/language.md, the only numbered one).
SECTION = re.compile(r"(?:([\w/.-]+\.md)\s+)?§\s?(\d+(?:\.\d+)?)(?:\s*-\s*(\d+(?:\.\d+)?))?")
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")

FORBIDDEN = ("../" + "shared", "LANGUAGE" + ".md", "CERTIFICATES" + ".md",
             "ARCHITECTURE" + ".md", "PRIOR_ART" + ".md")
"""The design files and the folder they came from (spelt in pieces so that this file does
not name them itself)."""


@dataclass(frozen=True)
class Text:
    """One text to read: where it comes from (for messages), its folder, its content."""

    where: str
    folder: Path
    content: str


def _python_sources() -> Iterator[Path]:
    for top in PACKAGE_DIRS:
        for path in sorted((ROOT / top).rglob("*.py")):
            first = path.relative_to(ROOT / top).parts[0]
            if not (ROOT / top / first).is_symlink():
                yield path


def _descriptions(node: Any) -> Iterator[str]:
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in ("description", "title") and isinstance(value, str):
                    yield value
                else:
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)


def texts() -> list[Text]:
    out = [Text(str(p.relative_to(ROOT)), p.parent, p.read_text(encoding="utf-8"))
           for p in _python_sources()]
    for schema in SCHEMAS:
        document = json.loads(schema.read_text(encoding="utf-8"))
        out.append(Text(str(schema.relative_to(ROOT)), ROOT, "\n".join(_descriptions(document))))
    out.extend(Text(str(p.relative_to(ROOT)), p.parent, p.read_text(encoding="utf-8"))
               for p in DOCS)
    return out


def _exists(reference: str, folder: Path) -> bool:
    """Whether ``reference`` names something here, from the root or from ``folder``; a
    pattern (``*``, ``<case>``, ``{name}``) must at least have its fixed folder, and
    ``module.NAME`` (``certificates/_solvers.RLIMITS``) a module that defines ``NAME``."""
    cut = re.split(r"[*<{]", reference, maxsplit=1)[0]
    if cut != reference:
        cut = cut.rsplit("/", 1)[0] if "/" in cut else ""
    if any((base / cut).exists() for base in (ROOT, folder)):
        return True
    module, dot, name = reference.rpartition(".")
    source = ROOT / f"{module}.py"
    return bool(dot) and source.is_file() and re.search(
        rf"^(?:def |class )?{re.escape(name)}\b", source.read_text("utf-8"), re.MULTILINE
    ) is not None


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to ``-``."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _headings(path: Path) -> tuple[set[str], set[str]]:
    """The anchors of a Markdown file and its section numbers (``7``, ``7.8``)."""
    anchors: set[str] = set()
    numbers: set[str] = set()
    in_fence = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        match = None if in_fence else re.match(r"#{1,6}\s+(.*)", line)
        if match:
            anchors.add(slug(match.group(1)))
            number = re.match(r"(\d+(?:\.\d+)?)\.?\s", match.group(1))
            if number:
                numbers.add(number.group(1))
    return anchors, numbers


def _problems(text: Text) -> list[str]:
    out: list[str] = []
    content = text.content
    for name in FORBIDDEN:
        if name in content:
            out.append(f"{text.where}: names {name}, which a user does not have")
    for match in PATH.finditer(content):
        if not _exists(match.group(1), text.folder):
            out.append(f"{text.where}: {match.group(1)} does not exist")
    for match in MARKDOWN_NAME.finditer(content):
        name = match.group(1)
        if not any((base / name).exists() for base in (ROOT, ROOT / "docs", text.folder)):
            out.append(f"{text.where}: {name} does not exist")
    for match in SECTION.finditer(content):
        out.extend(_section_problems(text, match))
    if text.where.endswith(".md"):
        for match in LINK.finditer(content):
            out.extend(_link_problems(text, match.group(1)))
    return out


def _section_problems(text: Text, match: re.Match[str]) -> list[str]:
    named = match.group(1)
    if named is None:
        target = ROOT / text.where if text.where.endswith(".md") else ROOT / "docs/language.md"
    else:
        candidates = [base / named for base in (ROOT, ROOT / "docs", text.folder)]
        found = [c for c in candidates if c.is_file()]
        if not found:
            return [f"{text.where}: {named} (of {match.group(0)!r}) does not exist"]
        target = found[0]
    _, numbers = _headings(target)
    first, last = match.group(2), match.group(3)
    missing = [n for n in (first, last) if n is not None and n not in numbers]
    out = [f"{text.where}: {match.group(0)!r}: {target.relative_to(ROOT)} has no section {n}"
           for n in missing]
    if last is not None and _key(last) <= _key(first):
        out.append(f"{text.where}: {match.group(0)!r} is not a range of sections")
    return out


def _key(number: str) -> tuple[int, ...]:
    return tuple(int(part) for part in number.split("."))


def _link_problems(text: Text, target: str) -> list[str]:
    if re.match(r"[a-z]+:", target):
        return []  # https:, mailto:
    file_part, _, anchor = target.partition("#")
    path = (text.folder / file_part).resolve() if file_part else ROOT / text.where
    if not path.exists():
        return [f"{text.where}: the link {target} leads nowhere"]
    if anchor and path.suffix == ".md" and anchor not in _headings(path)[0]:
        return [f"{text.where}: the link {target} names no heading of {path.name}"]
    return []


def test_texts_are_read() -> None:
    read = {t.where for t in texts()}
    assert {"docs/cli.md", "README.md", "examples/README.md", "grammar/_loader.py",
            "derivative/api.py", "forge/posture/_policy.py",
            "derivative/schemas/derivative.certificate.v1.schema.json"} <= read
    assert not any(w.startswith("derivative/forge/") for w in read)


@pytest.mark.parametrize("text", texts(), ids=lambda t: t.where)
def test_every_reference_names_a_file_here(text: Text) -> None:
    assert _problems(text) == []


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("see docs/language.md §7.8", []),
        ("see docs/language.md §7.9", ["x.py: 'docs/language.md §7.9': docs/language.md has no "
                                       "section 7.9"]),
        ("see " + "LANGUAGE" + ".md §4", ["x.py: names " + "LANGUAGE" + ".md, which a user does "
                                          "not have", "x.py: " + "LANGUAGE" + ".md does not "
                                          "exist", "x.py: " + "LANGUAGE" + ".md (of '"
                                          + "LANGUAGE" + ".md §4') does not exist"]),
        ("the ../" + "shared folder", ["x.py: names ../" + "shared, which a user does not have"]),
        ("in forge/_boundary.py", ["x.py: forge/_boundary.py does not exist"]),
        ("docs/language.md §11-8", ["x.py: 'docs/language.md §11-8' is not a range of sections"]),
        ("docs/language.md §6-7", []),
        ("certificates/_solvers.RLIMITS", []),
        ("certificates/_solvers.NOTHING", ["x.py: certificates/_solvers.NOTHING does not exist"]),
        ("in forge/posture/policies/*.json", []),
        ("in tests/golden/check/<case>/", []),
        ("in tests/nowhere/<case>/", ["x.py: tests/nowhere/<case>/ does not exist"]),
    ],
)
def test_the_reader_finds_what_it_should(content: str, expected: list[str]) -> None:
    assert _problems(Text("x.py", ROOT / "derivative", content)) == expected


def test_links_and_anchors_are_checked() -> None:
    page = Text("docs/x.md", ROOT / "docs", "[a](cli.md#input-files) [b](cli.md#nowhere) "
                "[c](missing.md) [d](https://example.org/x.md) [e](../tests/README.md)")
    assert _problems(page) == [
        "docs/x.md: missing.md does not exist",
        "docs/x.md: the link cli.md#nowhere names no heading of cli.md",
        "docs/x.md: the link missing.md leads nowhere",
    ]
