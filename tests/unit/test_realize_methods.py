"""How realizability is decided, and what the report says about it (docs/decisions.md,
"How realizability is decided").

Each function's witness call and each ``unrealizable`` core carries the method that
decided it; an undecided realizability question names the clauses that make it hard.
The building blocks (shaped inputs, conversion facts, lifting a result into a term,
quantifiers unrolled to a proven cap) are tested on their own below.
"""

from __future__ import annotations

import json

import pytest
import z3

from derivative import api
from derivative._ast import Obligation
from derivative.solver import CheckOptions, CheckResult, check, render_json, render_text
from derivative.solver._candidates import lifted
from derivative.solver._context import call_scope, clauses_of
from derivative.solver._encode import Encoder
from derivative.solver._hardness import hard_clauses
from derivative.solver._result import METHODS
from derivative.solver._scope import owners
from derivative.solver._shapes import Shapes, conversion_facts, input_shapes
from derivative.solver._terms import Term, var
from derivative.solver._z3util import ctx as z3ctx
from derivative.solver._z3util import fresh_context, str_from_z3, str_val, true


def run(text: str, **options: object) -> CheckResult:
    loaded = api.parse_text(text, "spec.req")
    return check(loaded.contract, loaded.types, CheckOptions(**options))  # type: ignore[arg-type]


def method_of(text: str, function: str) -> str | None:
    result = run(text)
    assert result.status == "feasible", result.reason
    assert result.witness is not None
    return result.witness.functions[function].method


# --------------------------------------------------------------------------- the method


@pytest.mark.parametrize(
    ("body", "method"),
    [
        # result == E pins the result: no quantifier at all.
        ("function f(x: int) -> int\n    ensures: result == x + 1", "quantifier-free"),
        # Linear arithmetic over the result: quantifier elimination.
        ("function f(x: int) -> int\n    ensures: result > x", "z3 quantifier elimination"),
        # A bounded list of ints: one case per length.
        (
            "function f(xs: list[int]) -> int\n    requires: 1 <= len(xs) <= 3\n"
            "    ensures: result in xs\n    ensures: all(x <= result for x in xs)",
            "unrolled lengths",
        ),
        # A string built from the input and a literal.
        (
            'function f(name: str) -> str\n    ensures: startswith(result, "id:")\n'
            "    ensures: endswith(result, name)",
            "candidate result terms",
        ),
    ],
)
def test_every_witness_call_names_its_method(body: str, method: str) -> None:
    assert method_of(f"spec m version 1\n{body}\n", "f") == method


def test_an_unrealizable_core_names_its_method() -> None:
    pinned = run(
        "spec m version 1\nfunction f(text: str) -> int\n    ensures E1: result == int(text)\n"
    )
    assert pinned.status == "infeasible_proven"
    assert [(c.kind, c.method) for c in pinned.cores] == [("unrealizable", "quantifier-free")]
    terms = run(
        "spec m version 1\nfunction f(name: str) -> str\n    requires: len(name) <= 3\n"
        '    ensures E1: endswith(result, ".txt")\n    ensures E2: len(result) <= len(name)\n'
    )
    assert terms.status == "infeasible_proven"
    assert [c.method for c in terms.cores] == ["candidate result terms"]
    assert set(terms.cores[0].ids) == {"E1", "E2"}


def test_the_reports_carry_the_method() -> None:
    result = run(
        "spec m version 1\nfunction f(n: int in 0..99) -> str\n    ensures: int(result) == n\n"
        "function g(text: str) -> int\n    ensures: result == int(text)\n"
    )
    doc = render_json(result)
    assert doc["status"] == "infeasible_proven"
    assert doc["cores"][0]["method"] == "quantifier-free"
    text = render_text(result)
    assert "     decided by: quantifier-free\n" in text
    feasible = run(
        "spec m version 1\nfunction f(n: int in 0..99) -> str\n    ensures: int(result) == n\n"
    )
    doc = render_json(feasible)
    assert doc["witness"]["functions"]["f"]["method"] == "candidate result terms"
    assert "[realizable: candidate result terms]" in render_text(feasible)
    assert set(METHODS) >= {doc["witness"]["functions"]["f"]["method"]}
    json.dumps(doc)


# --------------------------------------------------------------------------- undecided


MIRROR = """spec mirror version 1
function mirror(text: str) -> str
    requires R1: len(text) <= 40
    ensures E1: len(result) == 2 * len(text)
    ensures E2: forall i in 0..len(result) - 1: result[i] == result[len(result) - 1 - i]
    ensures E3: startswith(result, text)
"""


def test_an_undecided_question_names_the_clause_that_makes_it_hard() -> None:
    result = run(MIRROR, rlimit=200_000)
    assert result.status == "unknown"
    (unknown,) = result.unknowns
    assert unknown.hard == ("E2",)
    assert "what makes it hard: E2 (forall i in 0..len(result) - 1:" in unknown.reason
    assert "has a quantifier that reads the result" in unknown.reason
    doc = render_json(result)
    assert doc["unknowns"][0]["hard"] == ["E2"]


def _clauses(text: str, function: str) -> list[tuple[str, str]]:
    loaded = api.parse_text(text, "spec.req")
    with fresh_context():
        ctx_owner = next(
            o for o in owners(loaded.contract, loaded.types.signatures) if o.name == function
        )
        from derivative.solver._check import _context

        ctx = _context(loaded.contract, loaded.types, CheckOptions())
        cl = clauses_of(ctx, ctx_owner, record=False)
        return [(ob.id, why) for ob, why in hard_clauses(cl, ctx.consts)]


def test_hard_features_are_named_one_per_clause() -> None:
    found = _clauses(
        "spec h version 1\nconst K: int = 7\n"
        "function f(n: int, xs: list[int], s: str) -> str\n"
        "    requires R1: all(x > 0 for x in xs)\n"
        "    requires R2: n * K > 0\n"
        "    raises ValueError V1 when int(s) > n * n\n"
        "    ensures E1: int(result) == n\n"
        "    ensures E2: result[n] == s\n"
        "    ensures E3: len(result) * len(result) == n\n"
        "    ensures E4: len(result) == len(s) + 1\n",
        "f",
    )
    assert found == [
        ("E1", "converts between text and integer on the result (int(result))"),
        ("E2", "indexes the result at a position that varies (result[n])"),
        ("E3", "multiplies or divides two unknowns (non-linear) (len(result) * len(result))"),
        ("R1", "has a quantifier that reads the inputs"),  # the whole clause: not repeated
        ("V1", "converts between text and integer on the inputs (int(s))"),
    ]


# --------------------------------------------------------------------------- building blocks


def test_conversion_facts_hold_for_every_value() -> None:
    """The facts are SMT-LIB's definitions: true at every concrete string and integer."""
    with fresh_context():
        s, n = z3.String("s", z3ctx()), z3.Int("n", z3ctx())
        facts = conversion_facts([z3.StrToInt(s) == n, z3.IntToStr(n) == s])
        assert len(facts) == 6
        for text in ("", "0", "007", "12", "a1", "-3"):
            for number in (-5, 0, 7, 120):
                for fact in facts:
                    at = z3.substitute(fact, (s, str_val(text)), (n, z3.IntVal(number, z3ctx())))
                    assert z3.is_true(z3.simplify(at)), (text, number, fact)
        assert len(conversion_facts([z3.StrToInt(s) == n], every=False)) == 1


def _shapes_of(text: str) -> tuple[Shapes, dict[str, Term]]:
    loaded = api.parse_text(text, "spec.req")
    owner = next(o for o in owners(loaded.contract, loaded.types.signatures) if o.name == "f")
    from derivative.solver._check import _context

    ctx = _context(loaded.contract, loaded.types, CheckOptions())
    cl = clauses_of(ctx, owner, record=False)
    sc = call_scope(owner)
    return input_shapes(cl.requires, cl.raises, sc.inputs), sc.inputs


@pytest.mark.parametrize(
    ("function", "value", "expected_parts"),
    [
        ('function f(s: str matching r"[a-z]+@[a-z]+\\.com") -> str', "ab@cd.com", ["ab", "cd"]),
        (
            'function f(s: str) -> str\n    raises ValueError when not contains(s, "=")',
            "a=b=c",
            ["a", "b=c"],
        ),
        ('function f(s: str) -> str\n    requires: startswith(s, "v")', "v1.2", ["1.2"]),
    ],
)
def test_an_input_splits_into_the_parts_of_its_shape(
    function: str, value: str, expected_parts: list[str]
) -> None:
    spec = f"spec s version 1\n{function}\n    ensures: len(result) >= 0\n"
    with fresh_context():
        shapes, inputs = _shapes_of(spec)
        solver = z3.Solver(ctx=z3ctx())
        solver.add(*shapes.background, inputs["s"].value == str_val(value))
        assert solver.check() == z3.sat
        model = solver.model()
        got = [str_from_z3(model.eval(p, model_completion=True)) for p in shapes.parts]
        assert got == expected_parts
        assert shapes.spans


def test_a_result_is_lifted_into_a_term_over_the_inputs() -> None:
    """``"0042"`` at ``n = 42`` becomes zeros up to four digits, then ``str(n)``."""
    spec = (
        "spec z version 1\nfunction f(n: int in 0..9999) -> str\n"
        "    ensures: len(result) == 4\n    ensures: int(result) == n\n"
    )
    loaded = api.parse_text(spec, "spec.req")
    owner = next(o for o in owners(loaded.contract, loaded.types.signatures) if o.name == "f")
    from derivative.solver._check import _context

    check_ctx = _context(loaded.contract, loaded.types, CheckOptions())
    with fresh_context():
        cl = clauses_of(check_ctx, owner, record=False)
        sc = call_scope(owner)
        n = sc.inputs["n"].value
        solver = z3.Solver(ctx=z3ctx())
        solver.add(n == 42)
        assert solver.check() == z3.sat

        def bound(term: z3.ExprRef) -> int | None:
            return 8

        terms = lifted("0042", cl, sc, Shapes(), solver.model(), {"n": 42}, bound)
        assert len(terms) == 2  # the lifted term, then the value itself
        for k, text in ((7, "0007"), (42, "0042"), (123, "0123"), (2024, "2024")):
            value = z3.simplify(z3.substitute(terms[0], (n, z3.IntVal(k, z3ctx()))))
            assert str_from_z3(value) == text


def test_a_capped_quantifier_is_unrolled_and_means_the_same() -> None:
    spec = (
        "spec p version 1\nfunction f(text: str, width: int in 1..8) -> str\n"
        "    requires: len(text) <= width\n"
        '    ensures E1: forall i in 0..width - len(text) - 1: result[i] == " "\n'
    )
    loaded = api.parse_text(spec, "spec.req")
    ob: Obligation = next(o for o in loaded.contract.obligations if o.id == "E1")
    with fresh_context():
        env = {
            "text": var("text", loaded.types.signatures["f"].params[0][1]),
            "width": var("width", loaded.types.signatures["f"].params[1][1]),
        }
        result = z3.String("result", z3ctx())
        env["result"] = Term(result, true(), env["text"].ty)
        plain = Encoder(env).encode(ob.expr).holds
        capped_encoder = Encoder(env)
        capped_encoder.range_cap = 8
        capped = capped_encoder.encode(ob.expr).holds
        assert not any(z3.is_quantifier(c) for c in _subterms(capped))
        for text, width, res in (
            ("ab", 4, "  ab"),
            ("ab", 4, " xab"),
            ("", 8, " " * 8),
            ("x", 1, "x"),
            ("", 3, "  "),
        ):
            fixed = [
                (env["text"].value, str_val(text)),
                (env["width"].value, z3.IntVal(width, z3ctx())),
                (result, str_val(res)),
            ]
            want = z3.Solver(ctx=z3ctx())
            want.add(z3.substitute(plain, *fixed))
            got = z3.simplify(z3.substitute(capped, *fixed))
            assert z3.is_true(got) == (want.check() == z3.sat), (text, width, res)


def _subterms(e: z3.ExprRef) -> list[z3.ExprRef]:
    out, stack = [], [e]
    while stack:
        t = stack.pop()
        out.append(t)
        if z3.is_app(t):
            stack.extend(t.children())
    return out
