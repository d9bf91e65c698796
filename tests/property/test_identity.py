"""The contract's identity follows meaning, not form (docs/language.md §2).

A spec is kept as top-level blocks (a header line plus indented clause lines) and
rendered with Hypothesis-chosen form: order of blocks and clauses, indentation
width, blank lines, comments, line continuations inside brackets, quoted texts and
tags, and a split into files joined by ``use``.  The identity must not move.  Each
single change of meaning must move it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from derivative._canon import contract_identity
from derivative.grammar import load, parse_text

# (header line, clause lines); clause lines may hold {text} and {tags} slots.
Block = tuple[str, tuple[str, ...]]

BLOCKS: tuple[Block, ...] = (
    ("enum Outcome { ok, rejected, expired }", ()),
    ("exception TokenExpired(ValueError)", ()),
    ("const MIN_LENGTH: int = 12", ()),
    ("param max_attempts: int", ()),
    ("param lockout_minutes: int in 0..1440", ()),
    ("param window_minutes: int", ()),
    ("requirement R1 {tags} {text}: max_attempts >= 3", ()),
    ("requirement R2 {tags}: max_attempts shall be at most 5", ()),
    ("requirement {text}: when max_attempts > 4, lockout_minutes >= 2 * window_minutes", ()),
    (
        "function is_strong(password: str) -> bool",
        (
            "requires P1 {tags}: len(password) <= 128",
            "ensures S1 {text}: result == (len(password) >= MIN_LENGTH)",
            'example X1: is_strong("correct horse battery") == true',
            "raises ValueError {tags} when len(password) == 0",
            "ensures {text}: result implies len(password) >= 1",
        ),
    ),
    (
        "system TokenStore",
        (
            "operation issue(user: str) -> str",
            "operation reset(token: str from issue, password: str) -> Outcome",
            "invariant single_use {tags}: count(reset where result == Outcome.ok, per token) <= 1",
            "invariant {text}: count(issue) >= 0",
        ),
    ),
)

HEADER = 'spec password_policy version 3\n"Rules."\n'

# Continuation: the same clause written across lines inside brackets.
CONTINUED = {
    "requires P1 {tags}: len(password) <= 128": "requires P1 {tags}: (len(password)\n<= 128)",
    "invariant {text}: count(issue) >= 0": "invariant {text}: count(\nissue) >= 0",
}


def render(
    blocks: Sequence[Block],
    *,
    indent: int = 4,
    blank: int = 0,
    comments: bool = False,
    continued: bool = False,
    text: str = '"why"',
    tags: str = "[source: policy]",
    header: str = HEADER,
) -> str:
    out = [header]
    for head, clauses in blocks:
        line = head.replace("{text}", text).replace("{tags}", tags)
        out.append(line + ("  # note" if comments else "") + "\n")
        for clause in clauses:
            body = CONTINUED.get(clause, clause) if continued else clause
            body = body.replace("{text}", text).replace("{tags}", tags)
            pad = " " * indent
            lines = body.split("\n")
            out.append(pad + lines[0] + "\n")
            out.extend(pad + " " * 3 + rest + "\n" for rest in lines[1:])
            if comments:
                out.append(pad + "# a comment between clauses\n")
        out.append("\n" * blank)
    return "".join(out)


BASE_ID = contract_identity(parse_text(render(BLOCKS)))


def shuffled_blocks(data: st.DataObject) -> list[Block]:
    order = data.draw(st.permutations(range(len(BLOCKS))))
    blocks: list[Block] = []
    for i in order:
        head, clauses = BLOCKS[i]
        if head.startswith("system"):
            ops = [c for c in clauses if c.startswith("operation")]
            invs = data.draw(st.permutations([c for c in clauses if c.startswith("invariant")]))
            clauses = (*ops, *invs) if data.draw(st.booleans()) else (*invs, *ops)
        else:
            clauses = tuple(data.draw(st.permutations(clauses)))
        blocks.append((head, clauses))
    return blocks


@settings(max_examples=40)
@given(st.data())
def test_identity_ignores_form(data: st.DataObject) -> None:
    blocks = shuffled_blocks(data)
    text = render(
        blocks,
        indent=data.draw(st.sampled_from([1, 2, 4, 8])),
        blank=data.draw(st.integers(0, 2)),
        comments=data.draw(st.booleans()),
        continued=data.draw(st.booleans()),
        text=data.draw(st.sampled_from(['"why"', '"another text"', "'single'", ""])),
        tags=data.draw(st.sampled_from(["[source: policy]", '[a: "b c", d: v2.1]', "", "[]"])),
    )
    contract = parse_text(text)
    assert contract_identity(contract) == BASE_ID


@settings(max_examples=15)
@given(st.data())
def test_identity_ignores_split_into_files(data: st.DataObject) -> None:
    blocks = shuffled_blocks(data)
    cut = data.draw(st.integers(0, len(blocks)))
    with tempfile.TemporaryDirectory() as tmp:
        first = os.path.join(tmp, "main.req")
        second = os.path.join(tmp, "part.req")
        by_use = data.draw(st.booleans())
        head = HEADER + ('use "part.req"\n' if by_use else "")
        with open(first, "w", encoding="utf-8") as fh:
            fh.write(render(blocks[:cut], header=head))
        with open(second, "w", encoding="utf-8") as fh:
            fh.write(render(blocks[cut:], header="spec part version 1\n"))
        contract = load([first] if by_use else [first, second])
    assert contract_identity(contract) == BASE_ID


@settings(max_examples=20)
@given(st.data())
def test_generated_ids_survive_reordering(data: st.DataObject) -> None:
    def ids(text: str) -> dict[tuple[str, str | None, str], str]:
        contract = parse_text(text)
        return {(o.kind, o.owner, str(o.expr.model_dump())): o.id for o in contract.obligations}

    base = ids(render(BLOCKS))
    assert ids(render(shuffled_blocks(data), text='"other"', tags="")) == base


MEANING_CHANGES = [
    ("const MIN_LENGTH: int = 12", "const MIN_LENGTH: int = 13"),
    ("max_attempts >= 3", "max_attempts > 3"),
    ("shall be at most 5", "shall be at most 6"),
    ("int in 0..1440", "int in 0..1441"),
    ("int in 0..1440", "int in -1..1440"),
    ("requirement R1 ", "requirement R9 "),
    ("requires P1 ", "requires "),
    ("{ ok, rejected, expired }", "{ ok, rejected, expired, unknown }"),
    ("{ ok, rejected, expired }", "{ ok, refused, expired }"),
    ("TokenExpired(ValueError)", "TokenExpired(KeyError)"),
    ("raises ValueError", "raises KeyError"),
    ("(password: str) -> bool", "(password: str) -> int"),
    ("per token", "per password"),
    ("2 * window_minutes", "window_minutes * 2"),
    ("when max_attempts > 4, ", ""),
    ('"correct horse battery"', '"correct horse"'),
    ("result implies", "result iff"),
    ('"Rules."\n', '"Rules."\ntolerance 0.001\n'),
]


def test_identity_changes_with_meaning() -> None:
    base_text = render(BLOCKS)
    seen = {BASE_ID}
    for old, new in MEANING_CHANGES:
        assert old in base_text, old
        changed = contract_identity(parse_text(base_text.replace(old, new, 1)))
        assert changed != BASE_ID, (old, new)
        seen.add(changed)
    assert len(seen) == len(MEANING_CHANGES) + 1


def test_english_and_core_forms_have_one_identity() -> None:
    english = render(BLOCKS)
    core = english.replace("max_attempts shall be at most 5", "max_attempts <= 5").replace(
        "when max_attempts > 4, lockout_minutes >= 2 * window_minutes",
        "max_attempts > 4 implies lockout_minutes >= 2 * window_minutes",
    )
    assert core != english
    assert contract_identity(parse_text(core)) == BASE_ID
