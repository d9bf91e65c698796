"""Every spec shown in the documentation parses and type-checks.

Fenced blocks marked ```req are complete specs and are loaded exactly as written;
templates (forms with ``...`` or placeholders) are marked ```text and are not.  An
unmarked block in the language reference is an error, so nobody can slip an
unchecked example in by forgetting the marker.
"""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

import derivative
from derivative import api

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "docs" / "language.md", ROOT / "docs" / "cli.md"]

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
ALLOWED_LANGUAGES = {"req", "text", "sh", "console", "json"}


def fenced_blocks(path: Path) -> list[tuple[int, str, str]]:
    """(line, language, body) of every fenced code block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(1).strip(), m.group(2))
        for m in FENCE.finditer(text)
    ]


REQ_BLOCKS = [
    pytest.param(body, f"{path.relative_to(ROOT)}:{line}", id=f"{path.name}:{line}")
    for path in DOCS
    for line, lang, body in fenced_blocks(path)
    if lang == "req"
]


@pytest.mark.parametrize(("body", "where"), REQ_BLOCKS)
def test_req_block_parses_and_type_checks(body: str, where: str) -> None:
    loaded = api.parse_text(body, where)
    assert loaded.contract.name


def test_docs_have_spec_examples() -> None:
    per_file = {
        path.name: sum(1 for _, lang, _ in fenced_blocks(path) if lang == "req") for path in DOCS
    }
    assert per_file["README.md"] >= 1
    assert per_file["language.md"] >= 10


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_block_is_marked(path: Path) -> None:
    unmarked = [line for line, lang, _ in fenced_blocks(path) if lang not in ALLOWED_LANGUAGES]
    assert not unmarked, f"{path.name}: blocks at lines {unmarked} need ```req or ```text"


def test_fence_reader_finds_blocks(tmp_path: Path) -> None:
    md = tmp_path / "x.md"
    md.write_text("intro\n```req\nspec a version 1\n```\ntext\n```\nplain\n```\n", "utf-8")
    assert fenced_blocks(md) == [(2, "req", "spec a version 1\n"), (6, "", "plain\n")]


def test_package_docstring_example_runs() -> None:
    result = doctest.testmod(derivative, verbose=False)
    assert result.attempted >= 1 and result.failed == 0
