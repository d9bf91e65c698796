"""Requirement sets: `use`, several files, cycles, duplicates, identifiers, linecache."""

from __future__ import annotations

import hashlib
import linecache
import os
from pathlib import Path

import pytest

from derivative._canon import content_digest, content_sha, distinct_prefixes
from derivative._errors import SpecError, UsageError
from derivative.grammar import load, parse_text


def write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_use_resolves_relative_to_the_including_file(tmp_path: Path) -> None:
    write(tmp_path, "main.req", 'spec main version 2\n"Main."\nuse "lib/a.req"\nparam x: int\n')
    write(tmp_path, "lib/a.req", 'spec a version 1\nuse "../common/b.req"\nparam y: int\n')
    write(tmp_path, "common/b.req", "spec b version 9\nrequirement B1: true\n")
    main = os.path.join(str(tmp_path), "main.req")
    c = load([main])
    assert (c.name, c.version, c.description) == ("main", 2, "Main.")
    paths = [f.path for f in c.files]
    assert paths == [
        main,
        os.path.normpath(os.path.join(str(tmp_path), "lib/a.req")),
        os.path.normpath(os.path.join(str(tmp_path), "common/b.req")),
    ]
    assert [d.name for d in c.declarations] == ["x", "y"]
    assert c.obligations[0].file == paths[2]
    data = (tmp_path / "lib/a.req").read_bytes()
    assert c.files[1].sha256 == hashlib.sha256(data).hexdigest()


def test_paths_as_given_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "specs/a.req", 'spec a version 1\nuse "b.req"\n')
    write(tmp_path, "specs/b.req", "spec b version 1\nparam p: int\n")
    monkeypatch.chdir(tmp_path)
    c = load(["./specs/a.req"])
    assert [f.path for f in c.files] == ["./specs/a.req", os.path.join("specs", "b.req")]
    assert c.declarations[0].file == os.path.join("specs", "b.req")


def test_file_reached_twice_is_included_once(tmp_path: Path) -> None:
    write(tmp_path, "a.req", 'spec a version 1\nuse "b.req"\nuse "c.req"\n')
    write(tmp_path, "b.req", 'spec b version 1\nuse "d.req"\n')
    write(tmp_path, "c.req", 'spec c version 1\nuse "d.req"\n')
    write(tmp_path, "d.req", "spec d version 1\nparam shared: int\n")
    c = load([tmp_path / "a.req", tmp_path / "d.req", str(tmp_path / "b.req")])
    assert [d.name for d in c.declarations] == ["shared"]
    assert [Path(f.path).name for f in c.files] == ["a.req", "b.req", "d.req", "c.req"]


def test_use_cycle_names_the_cycle(tmp_path: Path) -> None:
    write(tmp_path, "a.req", 'spec a version 1\nuse "b.req"\n')
    write(tmp_path, "b.req", 'spec b version 1\nuse "a.req"\n')
    with pytest.raises(SpecError) as info:
        load([tmp_path / "a.req"])
    e = info.value
    assert "cycle" in e.message
    chain = e.message.split(": ", 1)[1].split(" -> ")
    assert [Path(p).name for p in chain] == ["a.req", "b.req", "a.req"]
    assert (Path(e.file or "").name, e.line, e.column) == ("b.req", 2, 5)


def test_self_use_is_a_cycle(tmp_path: Path) -> None:
    write(tmp_path, "a.req", 'spec a version 1\nuse "./a.req"\n')
    with pytest.raises(SpecError, match="cycle"):
        load([tmp_path / "a.req"])


def test_missing_files(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as info:
        load([tmp_path / "nope.req"])
    assert "nope.req" in str(info.value)
    write(tmp_path, "a.req", 'spec a version 1\n\nuse "gone.req"\n')
    with pytest.raises(SpecError) as info2:
        load([tmp_path / "a.req"])
    assert "gone.req" in info2.value.message and info2.value.line == 3
    with pytest.raises(UsageError):
        load([])


def test_directory_is_not_a_spec(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        load([tmp_path])


def test_duplicate_name_across_files_names_both_places(tmp_path: Path) -> None:
    write(tmp_path, "a.req", "spec a version 1\nparam limit: int\n")
    write(tmp_path, "b.req", "spec b version 1\n\nconst limit: int = 3\n")
    with pytest.raises(SpecError) as info:
        load([tmp_path / "a.req", tmp_path / "b.req"])
    e = info.value
    assert "'limit'" in e.message and Path(e.file or "").name == "b.req" and e.line == 3
    ((_, first),) = e.related
    assert Path(first.file).name == "a.req" and first.line == 2 and first.source_line
    assert "a.req:2:7: note" in e.render()


def test_duplicate_explicit_id_across_files(tmp_path: Path) -> None:
    write(tmp_path, "a.req", "spec a version 1\nparam x: int\nrequirement R1: x > 0\n")
    write(tmp_path, "b.req", "spec b version 1\nfunction f(a: int) -> int\n    ensures R1: true\n")
    with pytest.raises(SpecError) as info:
        load([tmp_path / "a.req", tmp_path / "b.req"])
    e = info.value
    assert "'R1'" in e.message and (e.line, e.column) == (3, 13)
    assert e.related[0][1].line == 3 and Path(e.related[0][1].file).name == "a.req"


def test_conflicting_tolerances(tmp_path: Path) -> None:
    write(tmp_path, "a.req", "spec a version 1\ntolerance 1e-6\n")
    write(tmp_path, "b.req", "spec b version 1\ntolerance 0.000001\n")
    write(tmp_path, "c.req", "spec c version 1\ntolerance 1e-3\n")
    assert load([tmp_path / "a.req", tmp_path / "b.req"]).tolerance == "0.000001"
    assert load([tmp_path / "b.req"]).tolerance == "0.000001"
    with pytest.raises(SpecError, match="conflicting tolerances"):
        load([tmp_path / "a.req", tmp_path / "c.req"])


def test_names_visible_across_files_is_not_the_parsers_business(tmp_path: Path) -> None:
    """The parser merges; a use of a name from another file is just a Name node."""
    write(tmp_path, "a.req", 'spec a version 1\nuse "b.req"\nrequirement R: limit > 0\n')
    write(tmp_path, "b.req", "spec b version 1\nparam limit: int\n")
    c = load([tmp_path / "a.req"])
    assert c.obligations[0].expr.operands[0].id == "limit"  # type: ignore[union-attr]


def test_parse_text_use_relative_to_a_real_path(tmp_path: Path) -> None:
    write(tmp_path, "b.req", "spec b version 1\nparam q: int\n")
    text = 'spec a version 1\nuse "b.req"\n'
    c = parse_text(text, str(tmp_path / "a.req"))
    assert [d.name for d in c.declarations] == ["q"]
    with pytest.raises(SpecError, match="read from a file"):
        parse_text(text)


def test_generated_ids() -> None:
    c = parse_text(
        "spec s version 1\n"
        "param x: int\n"
        "requirement: x > 0\n"
        "function f(a: int) -> int\n"
        "    raises ValueError when a < 0\n"
        "    raises KeyError when a == 1\n"
        "    raises KeyError when a == 2\n"
        "    raises KeyError K3 when a == 3\n"
        "    ensures: result >= 0\n"
        "system S\n"
        "    operation o(k: int) -> int\n"
        "        requires: k > 0\n"
        "    invariant: count(o) <= 3\n"
    )
    ids = [o.id for o in c.obligations]
    by = {o.id: o for o in c.obligations}
    req = c.obligations[0]
    assert ids[0] == "requirement." + content_digest("requirement", None, req.expr, None)
    assert ids[1] == "f.raises.ValueError"
    k1, k2 = c.obligations[2], c.obligations[3]
    assert k1.id == "f.raises.KeyError." + content_digest("raises", "f", k1.expr, "KeyError")
    assert k2.id.startswith("f.raises.KeyError.") and k2.id != k1.id
    assert ids[4] == "K3" and not by["K3"].generated_id
    assert ids[5].startswith("f.ensures.") and len(ids[5]) == len("f.ensures.") + 6
    assert ids[6].startswith("S.o.requires.")
    assert ids[7].startswith("S.invariant.")
    assert all(o.generated_id for o in c.obligations if o.id != "K3")


def test_generated_ids_do_not_depend_on_position() -> None:
    a = parse_text(
        "spec s version 1\nfunction f(a: int) -> int\n"
        "    requires: a > 0\n    ensures: result > a\n    ensures: result < 100\n"
    )
    b = parse_text(
        "spec s version 1\n\n\nfunction f(a: int) -> int\n"
        "    ensures: result < 100\n    requires: a > 0\n\n    ensures: result > a\n"
    )
    assert sorted(o.id for o in a.obligations) == sorted(o.id for o in b.obligations)


def test_identical_unnamed_obligations_are_an_error() -> None:
    with pytest.raises(SpecError) as info:
        parse_text(
            "spec s version 1\nfunction f(a: int) -> int\n"
            "    requires: a > 0\n    requires:   a>0\n"
        )
    e = info.value
    assert "identical content" in e.message and e.line == 4 and e.related[0][1].line == 3


def test_different_contents_sharing_six_digits_get_longer_ids() -> None:
    """``x != 99`` and ``x != 3220`` of one owner share the first six hex digits of their
    content digests (found by search): both ids grow to the shortest even prefix that tells
    them apart, a third clause keeps six, and nothing is reported as identical content."""
    c = parse_text(
        "spec s version 1\nfunction f(x: int) -> int\n"
        "    requires: x != 99\n    requires: x != 3220\n    requires: x != 5\n"
    )
    ids = [o.id for o in c.obligations]
    digests = [content_sha("requires", "f", o.expr, None) for o in c.obligations]
    assert digests[0][:6] == digests[1][:6] and digests[0][:7] != digests[1][:7]
    assert ids == [f"f.requires.{digests[0][:8]}", f"f.requires.{digests[1][:8]}",
                   f"f.requires.{digests[2][:6]}"]


@pytest.mark.parametrize(
    ("digests", "lengths"),
    [
        (["abcdef01", "123456ab"], [6, 6]),
        (["abcdef01", "abcdef02"], [8, 8]),
        (["abcdef01", "abcdef11", "99999999"], [8, 8, 6]),
        (["abcdef01", "abcdef01"], [6, 6]),  # identical content still collides
        (["abcdefa1", "abcdefa2", "abcdefb3"], [8, 8, 8]),
    ],
)
def test_distinct_prefixes(digests: list[str], lengths: list[int]) -> None:
    assert distinct_prefixes(digests) == lengths


def test_sources_registered_in_linecache() -> None:
    parse_text("spec s version 1\nparam x: int\n", "<memory-1>")
    assert linecache.getline("<memory-1>", 2) == "param x: int\n"
    linecache.checkcache()
    assert linecache.getline("<memory-1>", 1) == "spec s version 1\n"


def test_bad_utf8(tmp_path: Path) -> None:
    p = tmp_path / "bad.req"
    p.write_bytes(b'spec s version 1\nconst S: str = "\xff"\n')
    with pytest.raises(SpecError) as info:
        load([p])
    assert "UTF-8" in info.value.message and (info.value.line, info.value.column) == (2, 17)


def test_load_accepts_a_single_path(tmp_path: Path) -> None:
    write(tmp_path, "a.req", "spec a version 1\n")
    assert load(tmp_path / "a.req").name == "a"  # type: ignore[arg-type]
