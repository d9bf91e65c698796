"""The per-user grammar cache: used only when it is private, and it changes no parse.

A cached table decides what every spec parses to, so the tests below are about the
boundary (a file or directory someone else could have written is neither read nor
replaced), about equality with Lark's own parse, and about not importing Lark at all
once the table is there.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from derivative.grammar import grammar_text
from derivative.grammar._cache import cache_dir, table_path
from derivative.grammar._parser import _Front
from derivative.grammar._tables import FORMAT
from derivative.grammar._timed import split_blocks

SAMPLE = """spec s version 1
param x: int
enum Color { red, green }
requirement R1: x shall be at least 3
function f(a: list[int]) -> int
    requires: len(a) <= 4
    ensures: result >= 0 and forall i in 0..len(a) - 1: a[i] <= result
"""

# The LALR table never sees a ``timed`` block: the loader blanks them first, as here.
EXAMPLES = [
    split_blocks(p.read_text(encoding="utf-8"))[0]
    for p in sorted((Path(__file__).parents[2] / "examples").rglob("*.req"))
]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "c" / "derivative"
    monkeypatch.setenv("DERIVATIVE_CACHE_DIR", str(folder))
    monkeypatch.delenv("DERIVATIVE_NO_CACHE", raising=False)
    return folder


def _parse(front: _Front) -> str:
    return repr(front.run(SAMPLE))


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_first_run_stores_a_private_table_and_the_second_loads_it(cache: Path) -> None:
    fresh = _Front()
    assert (os.stat(cache).st_mode & 0o777) == 0o700
    [name] = _files(cache)
    assert name.startswith("grammar-") and name.endswith(".tables.json")
    assert (os.stat(cache / name).st_mode & 0o777) == 0o600
    found = table_path(grammar_text(), str(FORMAT))
    assert found == (cache / name, True)
    loaded = _Front()
    # State numbers may differ between a compiled and a reloaded table; the parses may not.
    for text in [SAMPLE, *EXAMPLES]:
        assert repr(loaded.run(text)) == repr(fresh.run(text))
    assert _files(cache) == [name]  # nothing else written, no temporary left behind


def test_the_cache_changes_no_parse(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _Front()
    cached = _parse(_Front())
    monkeypatch.setenv("DERIVATIVE_NO_CACHE", "1")
    assert cache_dir() is None
    assert _parse(_Front()) == cached


def test_a_table_others_can_write_is_never_read(cache: Path) -> None:
    _Front()
    [name] = _files(cache)
    target = cache / name
    target.write_bytes(b"not a pickle\n")  # would fail loudly if it were read
    os.chmod(target, 0o666)
    assert table_path(grammar_text(), str(FORMAT)) is None
    assert _parse(_Front()) is not None
    assert target.read_bytes() == b"not a pickle\n"  # and never replaced


def test_a_link_in_place_of_the_table_is_never_followed(cache: Path, tmp_path: Path) -> None:
    _Front()
    [name] = _files(cache)
    (cache / name).unlink()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"x")
    os.chmod(elsewhere, 0o600)
    (cache / name).symlink_to(elsewhere)
    assert table_path(grammar_text(), str(FORMAT)) is None
    assert _parse(_Front()) is not None
    assert elsewhere.read_bytes() == b"x"


def test_a_shared_directory_is_not_used(cache: Path) -> None:
    cache.mkdir(parents=True)
    os.chmod(cache, 0o777)
    assert table_path(grammar_text(), str(FORMAT)) is None
    assert _parse(_Front()) is not None
    assert _files(cache) == []


def test_a_damaged_table_of_our_own_is_rebuilt(cache: Path) -> None:
    fresh = _parse(_Front())
    [name] = _files(cache)
    (cache / name).write_bytes(b"truncated")
    assert _parse(_Front()) == fresh


def test_no_usable_directory_compiles_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("DERIVATIVE_CACHE_DIR", str(blocker / "sub"))
    assert table_path(grammar_text(), str(FORMAT)) is None
    assert _parse(_Front()) is not None


def test_the_key_follows_the_grammar(cache: Path) -> None:
    a = table_path(grammar_text(), str(FORMAT))
    b = table_path(grammar_text() + "\n", str(FORMAT))
    c = table_path(grammar_text(), str(FORMAT + 1))
    assert a is not None and b is not None and c is not None
    assert len({a[0], b[0], c[0]}) == 3


def test_a_process_with_the_table_never_imports_lark(cache: Path) -> None:
    _Front()  # writes the table
    code = (
        "import sys\n"
        "from derivative.grammar._parser import front\n"
        "front().run(open(sys.argv[1]).read())\n"
        "print('lark' in sys.modules)\n"
    )
    spec = Path(__file__).parents[2] / "examples" / "password_policy.req"
    env = {**os.environ, "DERIVATIVE_CACHE_DIR": str(cache)}
    out = subprocess.run(
        [sys.executable, "-c", code, str(spec)], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_the_driver_over_the_table_parses_as_lark_does(cache: Path) -> None:
    _Front()
    loaded = _Front()  # from the table: callbacks rebuilt without Lark
    for text in [SAMPLE, *EXAMPLES]:
        loaded.transformer.file = "<string>"
        ours = loaded.run(text)
        theirs = loaded.lark.parse(text)
        assert repr(ours) == repr(theirs)
