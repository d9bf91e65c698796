"""Every spec shown in the documentation parses and type-checks; the API example runs.

Fenced blocks marked ```req are complete specs and are loaded exactly as written;
templates (forms with ``...`` or placeholders) are marked ```text and are not.  An
unmarked block in the language reference is an error, so nobody can slip an
unchecked example in by forgetting the marker.  The ```python blocks of docs/api.md are
one program, run as written from the repository root.  The exit-code tables of the
README and docs/cli.md list exactly the codes of ``derivative._errors.ExitCode``.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import derivative
from derivative import api
from derivative._errors import EXIT_LABELS, ExitCode

ROOT = Path(__file__).resolve().parents[2]
API_DOC = ROOT / "docs" / "api.md"
DOCS = [ROOT / "README.md", ROOT / "docs" / "language.md", ROOT / "docs" / "cli.md", API_DOC]

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
ALLOWED_LANGUAGES = {"req", "text", "sh", "console", "json", "python"}


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


# --------------------------------------------------------------------------- docs/api.md


def test_the_api_example_runs_as_written() -> None:
    blocks = [body for _, lang, body in fenced_blocks(API_DOC) if lang == "python"]
    program = "\n".join(blocks)
    for call in ("derivative.load(", "derivative.check(", "derivative.certify(",
                 "derivative.verify_certificate(", "derivative.run_candidate(",
                 "derivative.generate_tests(", "derivative.run_tests("):
        assert call in program, f"docs/api.md shows no {call}...)"
    path = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    done = subprocess.run(
        [sys.executable, "-c", program],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.startswith("password_policy: passed: "), done.stdout


# --------------------------------------------------------------------------- exit codes

EXIT_ROW = re.compile(r"^\| (\d+) \|", re.MULTILINE)


def _exit_table(path: Path) -> set[int]:
    text = path.read_text(encoding="utf-8")
    section = text[text.index("xit codes"):]
    table = section[section.index("\n| exit |"):]
    table = table[: table.index("\n\n")]
    return {int(code) for code in EXIT_ROW.findall(table)}


def test_the_exit_code_tables_are_the_one_in_the_code() -> None:
    assert _exit_table(ROOT / "README.md") == {int(c) for c in EXIT_LABELS}
    assert _exit_table(ROOT / "docs" / "cli.md") == {int(c) for c in ExitCode}
