"""The timed layer: parsing, the unrolled meaning against a direct monitor, and check.

The monitor below is a second, independent reading of docs/language.md §14: it walks a
concrete trace step by step with plain Python loops (no unrolling, no solver).  The
unrolled expression of every requirement form, evaluated by the language's evaluator on
the same trace, must agree with it on every trace Hypothesis draws.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from derivative import api
from derivative._errors import SpecErrors
from derivative._eval import Evaluator
from derivative.timed import TimedOptions, contract_at, step_name

ROOT = Path(__file__).resolve().parents[2]

HEAD = """spec t version 1

timed c
    input a: bool
    input x: int in 0..3
    output b: bool
    mode m: x >= 2
"""

# (body, monitor) pairs: monitor(tr, t, k) -> does the requirement hold from trigger t
FORMS = [
    "always b",
    "never b",
    "b",
    "immediately b",
    "at the next step b",
    "within 2 steps b",
    "for 2 steps b",
    "after 2 steps b",
    "until a, b",
    "before a, b",
    "when a, within 1 steps b",
    "upon a, for 1 steps b",
    "when previously a, b",
    "when a has held for 2 steps, not b",
    "when a occurred within 2 steps, b",
    "when a becomes true, b",
    "when a becomes false, not b",
    "in m mode, always b",
    "in m mode, when a, within 2 steps b",
    "not in m mode, until a, b",
    "before m mode, always b",
    "after m mode, when a, at the next step b",
    "only in m mode, b",
    "when a implies b, b iff previously a",
]


def _cond(word: str, tr: list[dict[str, object]], t: int) -> bool:
    return {
        "a": bool(tr[t]["a"]), "b": bool(tr[t]["b"]), "m": int(tr[t]["x"]) >= 2,  # type: ignore[call-overload]
    }[word]


def _monitor(body: str, tr: list[dict[str, object]]) -> bool:
    """The requirement ``body`` on the finite trace ``tr``, read directly."""
    k = len(tr)
    a = [bool(s["a"]) for s in tr]
    b = [bool(s["b"]) for s in tr]
    m = [int(s["x"]) >= 2 for s in tr]  # type: ignore[call-overload]
    if body == "only in m mode, b":
        return all((not b[t]) or m[t] for t in range(k))
    applies = [True] * k
    cont = [True] * k
    if body.startswith("in m mode"):
        applies, cont = m[:], m[:]
    elif body.startswith("not in m mode"):
        applies = [not v for v in m]
        cont = applies[:]
    elif body.startswith("before m mode"):
        applies = [not any(m[: t + 1]) for t in range(k)]
        cont = applies[:]
    elif body.startswith("after m mode"):
        applies = [any(m[:t]) for t in range(k)]
    rest = body.split("mode, ", 1)[1] if " mode, " in body else body
    prev_a = [False, *a[:-1]]
    trig_words = {
        "when a, ": a,
        "upon a, ": [a[t] and (t == 0 or not a[t - 1] or not applies[t - 1]) for t in range(k)],
        "when previously a, ": prev_a,
        "when a has held for 2 steps, ": [t >= 2 and all(a[t - 2 : t + 1]) for t in range(k)],
        "when a occurred within 2 steps, ": [any(a[max(0, t - 2) : t + 1]) for t in range(k)],
        "when a becomes true, ": [t > 0 and a[t] and not a[t - 1] for t in range(k)],
        "when a becomes false, ": [t > 0 and not a[t] and a[t - 1] for t in range(k)],
        "when a implies b, ": [(not a[t]) or b[t] for t in range(k)],
    }
    trig = [applies[t] and (t == 0 or not applies[t - 1]) for t in range(k)]
    for word, cond in trig_words.items():
        if rest.startswith(word):
            rest = rest[len(word):]
            trig = [applies[t] and cond[t] for t in range(k)]
            if word == "upon a, ":
                trig = [applies[t] and cond[t] for t in range(k)]
    resp = b
    if rest.startswith("not b") or rest.endswith("not b"):
        resp = [not v for v in b]
    if rest == "b iff previously a":
        resp = [b[t] == prev_a[t] for t in range(k)]

    def inside(t: int, s: int) -> bool:
        return all(cont[u] for u in range(t + 1, s + 1))

    def holds_from(t: int) -> bool:
        if rest.startswith("always") or rest.startswith("never"):
            r = b if rest.startswith("always") else [not v for v in b]
            return all(r[s] for s in range(t, k) if inside(t, s))
        if rest.startswith("at the next step"):
            return t + 1 >= k or not inside(t, t + 1) or resp[t + 1]
        if rest.startswith("within"):
            n = int(rest.split()[1])
            if t + n >= k:
                return True
            return any(resp[s] or not inside(t, s) for s in range(t, t + n + 1))
        if rest.startswith("for"):
            n = int(rest.split()[1])
            return all(resp[s] for s in range(t, min(t + n, k - 1) + 1) if inside(t, s))
        if rest.startswith("after"):
            n = int(rest.split()[1])
            ok = all(not resp[s] for s in range(t, min(t + n, k)) if inside(t, s))
            if t + n < k and inside(t, t + n):
                ok = ok and resp[t + n]
            return ok
        if rest.startswith("until"):
            for s in range(t, k):
                if s > t and not inside(t, s):
                    return True
                if a[s]:
                    return True
                if not b[s]:
                    return False
            return True
        if rest.startswith("before"):
            for s in range(t, k):
                if s > t and not inside(t, s):
                    return True
                if a[s]:
                    return False
                if b[s]:
                    return True
            return True
        return resp[t]  # immediately

    return all(holds_from(t) for t in range(k) if trig[t])


def _loaded(body: str) -> api.LoadedContract:
    return api.parse_text(HEAD + f"    requirement R: {body}\n")


_traces = st.integers(1, 6).flatmap(
    lambda k: st.lists(
        st.fixed_dictionaries({"a": st.booleans(), "b": st.booleans(), "x": st.integers(0, 3)}),
        min_size=k, max_size=k,
    )
)


@pytest.mark.parametrize("body", FORMS)
@settings(max_examples=60, deadline=None)
@given(trace=_traces)
def test_unrolling_agrees_with_a_direct_monitor(body: str, trace: list[dict[str, object]]) -> None:
    loaded = _loaded(body)
    comp = loaded.timed[0]
    unrolled = contract_at(loaded.contract, comp, len(trace))
    env = {step_name(n, t): v for t, step in enumerate(trace) for n, v in step.items()}
    got = Evaluator({}).holds(unrolled.obligations[0].expr, env)
    assert got is _monitor(body, trace), (body, trace)


def test_the_forms_parse_to_their_nodes() -> None:
    comp = _loaded("in m mode, upon a, within 3 steps b has held for 1 steps").timed[0]
    r = comp.requirements[0]
    assert r.scope is not None and (r.scope.kind, r.scope.mode) == ("in", "m")
    assert r.trigger is not None and r.trigger.kind == "upon"
    assert r.timing.kind == "within" and r.timing.steps == 3
    assert r.timing.response.kind == "held"


@pytest.mark.parametrize(
    ("body", "message", "column"),
    [
        ("when a +, b", "the expression ends too early", 28),
        ("within two steps b", "expected a number of steps", 27),
        ("in q mode, always b", "unknown mode 'q'", 20),
        ("always x", "bool", 27),
        ("until a b", "expected `,` after the `until` condition", 28),
    ],
)
def test_mistakes_point_at_their_place(body: str, message: str, column: int) -> None:
    with pytest.raises((SpecErrors, Exception)) as info:
        _loaded(body)
    text = info.value.render() if hasattr(info.value, "render") else str(info.value)
    assert message in text, text
    assert f":8:{column}:" in text, text


def test_a_timed_block_leaves_the_rest_of_the_language_alone() -> None:
    loaded = api.parse_text(
        "spec s version 1\nparam next: int\nrequirement R: next > 2\n\n" + HEAD.split("\n", 2)[2]
        + "    requirement T: always b\n"
    )
    assert [o.id for o in loaded.obligations] == ["R"]
    assert [r.id for r in loaded.timed[0].requirements] == ["T"]



@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_blocks_are_found_and_placed_by_the_lexers_line_ends(newline: str) -> None:
    """Only \\n, \\r\\n and \\r end a line (as in the lexer): a U+2028 or \\v inside a
    comment neither hides a block nor shifts the lines that follow it."""
    lines = [
        "spec s version 1",
        "# a comment with\u2028 odd\x0b breaks",
        "param p: int",
        "requirement R: p > 2",
        *HEAD.split("\n")[2:-1],
        "    requirement T: always b",
    ]
    loaded = api.parse_text(newline.join(lines) + newline)
    assert [o.id for o in loaded.obligations] == ["R"]
    assert [r.id for r in loaded.timed[0].requirements] == ["T"]
    lines[-1] = "    requirement T: always x"
    with pytest.raises(SpecErrors) as info:
        api.parse_text(newline.join(lines) + newline)
    assert ":10:" in info.value.render(), info.value.render()

EXAMPLES = {
    "timed_fsm": {"FSM3", "FSM6"},
    "timed_mixer": {"MX3", "MX5"},
    "timed_autopilot": {"AP3", "AP4"},
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_example_shows_its_planted_conflict(name: str) -> None:
    loaded = api.load(str(ROOT / "examples" / f"{name}.req"))
    (result,) = api.check_timed(loaded, TimedOptions(depth=10))
    assert result.status == "infeasible_proven"
    assert EXAMPLES[name] <= set(result.core), result.core
    assert result.trace, "a conflict comes with its trace"


def test_no_conflict_is_bounded_and_shows_a_run() -> None:
    loaded = _loaded("when a, within 2 steps b")
    (result,) = api.check_timed(loaded, TimedOptions(depth=7))
    assert result.status == "no_conflict"
    assert "up to depth 7" in result.explanation
    assert len(result.trace) == 7


def test_outputs_that_must_foresee_inputs_are_a_causal_conflict() -> None:
    loaded = api.parse_text(HEAD + "    requirement P1: when b, at the next step a\n"
                            "    requirement P2: when not b, at the next step not a\n")
    (result,) = api.check_timed(loaded, TimedOptions(depth=6))
    assert result.status == "infeasible_proven"
    assert result.kind == "unrealizable_causal"
    assert set(result.core) == {"P1", "P2"}


@pytest.mark.parametrize("name", ["timed_mixer"])
def test_cli_writes_a_certificate_both_solvers_recheck(name: str, tmp_path: Path) -> None:
    cert = tmp_path / "c.json"
    cmd = [sys.executable, "-m", "derivative", "check", str(ROOT / "examples" / f"{name}.req"),
           "--depth", "10", "--certificate", str(cert)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 3, done.stdout + done.stderr
    assert "timed mixer: conflict (unrealizable)" in done.stdout
    document = json.loads(cert.read_text())
    members = {m["id"] for m in document["core"]}
    assert {"MX3", "MX5"} <= members
    verify = subprocess.run([sys.executable, "-m", "derivative", "certificate", "verify",
                             str(cert)], capture_output=True, text=True, timeout=600)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "z3" in verify.stdout and "unsat" in verify.stdout
    # with the spec, every member is compared with the spec's requirement unrolled again
    spec = ROOT / "examples" / f"{name}.req"
    against = subprocess.run([sys.executable, "-m", "derivative", "certificate", "verify",
                              str(cert), "--spec", str(spec)],
                             capture_output=True, text=True, timeout=600)
    assert against.returncode == 0, against.stdout + against.stderr
    changed = tmp_path / "changed.req"
    changed.write_text(spec.read_text().replace(
        "for 3 steps not valve_in and not valve_out", "for 3 steps not valve_out"))
    rejected = subprocess.run([sys.executable, "-m", "derivative", "certificate", "verify",
                               str(cert), "--spec", str(changed)],
                              capture_output=True, text=True, timeout=600)
    assert rejected.returncode != 0
    assert "core member MX3 asserts" in rejected.stdout


def test_cli_refuses_a_depth_beyond_the_bound(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "derivative", "check", str(ROOT / "examples" / "timed_fsm.req"),
           "--depth", "500"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


def test_identity_follows_the_meaning_of_timed_blocks() -> None:
    base = _loaded("when a, within 2 steps b")
    assert base.identity == _loaded("when a ,  within 2 steps   b").identity
    assert base.identity != _loaded("when a, within 3 steps b").identity
    texted = api.parse_text(HEAD + '    requirement R [k: v] "words": when a, within 2 steps b\n')
    assert texted.identity == base.identity
    untimed = api.parse_text("spec t version 1\n")
    assert base.identity != untimed.identity


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ("    mode m: not m\n    requirement R: always m\n", "defined in terms of itself"),
        ("    mode m: n\n    mode n: m and a\n    requirement R: always m\n",
         "defined in terms of itself"),
        ("    requirement R: always " + "previously " * 150 + "a\n", "nested more than 100"),
        ("    requirement R: always " + "previously (" * 60 + "a" + ")" * 60 + "\n",
         "nested more than 100"),
        ("    requirement R: always " + "not " * 5000 + "a\n", "nested more than 100"),
        ("    output a: bool\n    requirement R: always a\n", "declared twice"),
        ("    input x__1: bool\n", "cannot contain '__'"),
        ("    requirement R: only in m mode, when a, b\n", "takes a response only"),
    ],
)
def test_hostile_blocks_are_bad_input_with_a_place(
    members: str, message: str, tmp_path: Path
) -> None:
    spec = tmp_path / "s.req"
    head = "spec t version 1\n\ntimed c\n    input a: bool\n    output b: bool\n"
    declares_modes = "mode m" in members or "mode n" in members
    spec.write_text(head + ("" if declares_modes else "    mode m: a\n") + members)
    done = subprocess.run([sys.executable, "-m", "derivative", "check", str(spec)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert f"{spec}:" in done.stderr


PLANTED = {"timed_fsm": "FSM6", "timed_mixer": "MX5", "timed_autopilot": "AP4"}


@pytest.mark.parametrize("name", sorted(PLANTED))
def test_each_example_has_only_its_planted_conflict(name: str) -> None:
    path = ROOT / "examples" / f"{name}.req"
    lines = path.read_text().splitlines(keepends=True)
    kept = [x for x in lines if not x.lstrip().startswith(f"requirement {PLANTED[name]} ")]
    assert len(kept) == len(lines) - 1
    loaded = api.parse_text("".join(kept), str(path))
    (result,) = api.check_timed(loaded, TimedOptions(depth=10))
    assert result.status == "no_conflict", result.explanation
