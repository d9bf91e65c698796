"""``**`` and the text built-ins ``lower upper strip split join ord chr`` (docs/language.md §7.5).

The random differential tests (``tests/property``, through ``_exprgen``) hold the
readings to each other; these pin the edges each reading must agree on by name: the
ASCII-only case mapping and white space, ``split``'s pieces, the domains of ``ord``,
``chr`` and ``**``, the grammar of ``**`` (binding, grouping, printing), the type
errors, and that what Z3 cannot decide comes back ``unknown``.  Every edge is run
through all readings at once (evaluator, Z3 over literals, the SMT-LIB script in z3
and in cvc5, the generated Python), so none can drift alone.
"""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import cvc5
import pytest
import z3

from derivative._ast import BinOp, Compare, Expr, Unary
from derivative._eval import EvaluationLimitError, Evaluator
from derivative._printer import to_source
from derivative._types import INT, REAL, STR, TList, Ty
from derivative._values import UNDEFINED
from derivative.certificates._smtlib import CoreScope, SmtEncoder, value_term
from derivative.forge.codegen._embed import runtime
from derivative.forge.codegen._generate import _doc
from derivative.forge.codegen._python import PyCompiler
from derivative.grammar import parse_text
from derivative.solver._encode import Encoder
from derivative.solver._terms import Term, literal
from derivative.solver._z3util import make_solver, true
from tests.unit.test_typecheck import one_error

ROOT = Path(__file__).resolve().parents[2]

VARS: dict[str, Ty] = {"s": STR, "t": STR, "n": INT, "k": INT, "x": REAL, "ys": TList(STR)}
ENV: dict[str, Any] = {
    "s": " Ab\tc\x0b",
    "t": ",",
    "n": -3,
    "k": 2,
    "x": Fraction(3, 2),
    "ys": ("a", "", "b,c"),
}


def expr(text: str) -> Expr:
    """``text`` parsed as an expression (inside a throwaway requirement)."""
    contract = parse_text(f"spec t version 1\nrequirement R: {text} == {text}\n", "<t>")
    e = contract.obligations[0].expr
    assert isinstance(e, Compare)
    return e.operands[0]


# --------------------------------------------------------------------------- every reading


def _z3_value(e: Expr) -> Any:
    """Z3's value of ``e`` with every name fixed (a closed question: must be decided)."""
    env = {n: Term(literal(ENV[n], ty), true(), ty) for n, ty in VARS.items()}
    term = Encoder(env).encode(e)
    s = make_solver(rlimit=5_000_000, timeout_ms=20_000)
    s.add(z3.Not(term.defined))
    undefined = s.check()
    assert undefined != z3.unknown, f"z3 cannot decide whether {to_source(e)} is defined"
    if undefined == z3.sat:
        s2 = make_solver(rlimit=5_000_000, timeout_ms=20_000)
        s2.add(term.defined)
        assert s2.check() == z3.unsat, f"{to_source(e)} is neither defined nor undefined"
        return UNDEFINED
    return term


def _smt_script(e: Expr, claim: str) -> str:
    enc = SmtEncoder(CoreScope(variables=VARS, fixed=ENV))
    t = enc.term(e)
    claim = claim.replace("@D", t.defined).replace("@V", t.value)
    return "\n".join([*enc.preamble(), f"(assert (not {claim}))"])


def _cvc5(script: str) -> str:
    solver = cvc5.Solver()
    symbols = cvc5.SymbolManager(solver)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, script, "text")
    out = ""
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        out += command.invoke(solver, symbols)
    return out.strip()


def _z3_smt(script: str) -> str:
    ctx = z3.Context()
    return str(z3.Z3_eval_smtlib2_string(ctx.ref(), script)).strip()


def _smt_agrees(e: Expr, expected: Any, ty: Ty) -> None:
    """Both solvers prove the SMT-LIB reading's definedness and value."""
    claims = ["(not @D)"]
    if expected is not UNDEFINED:
        claims = ["@D", f"(= @V {value_term(expected, ty)})"]
    for claim in claims:
        script = _smt_script(e, claim) + "\n(check-sat)\n"
        assert _z3_smt(script) == "unsat", (to_source(e), claim, "z3")
        assert _cvc5(script) == "unsat", (to_source(e), claim, "cvc5")


RT = runtime()


def _generated(e: Expr) -> Any:
    source = PyCompiler(VARS).compile(e)
    try:
        return eval(compile(source, "<generated>", "eval"), {**RT, **ENV})
    except RT["Undefined"]:
        return UNDEFINED


CASES: list[tuple[str, Any, Ty]] = [
    # ASCII-only case mapping: the letters next to A-Z/a-z and non-ASCII letters stay
    ('lower("AZaz@[`{ÉßΣ")', "azaz@[`{ÉßΣ", STR),
    ('upper("AZaz@[`{éßσ")', "AZAZ@[`{éßσ", STR),
    ("upper(s)", " AB\tC\x0b", STR),
    # strip: space, tab, newline, CR, vertical tab, form feed; nothing else
    ("strip(s)", "Ab\tc", STR),
    (r'strip(" \t\n\r\x0b\x0cx\x0c")', "x", STR),
    (r'strip("\x1cx\xa0")', "\x1cx\xa0", STR),
    ('strip("  ")', "", STR),
    # split: one piece more than there are separators; empty separator undefined
    ('split(",a,,b,", t)', ("", "a", "", "b", ""), TList(STR)),
    ('split("", ",")', ("",), TList(STR)),
    ('split("aaa", "aa")', ("", "a"), TList(STR)),
    ('split(s, "")', UNDEFINED, TList(STR)),
    ("join(t, ys)", "a,,b,c", STR),
    ('join("-", [])', "", STR),
    ("join(t, [[]][0])", "", STR),
    ('join(t, split("a,b", t))', "a,b", STR),
    # ord of one character only; chr of 0..0x2FFFF only
    ("ord(s[1])", 65, INT),
    ('ord("")', UNDEFINED, INT),
    ('ord("ab")', UNDEFINED, INT),
    ("chr(196607)", "\U0002ffff", STR),
    ("chr(196608)", UNDEFINED, STR),
    ("chr(n)", UNDEFINED, STR),
    ("chr(0)", "\x00", STR),
    ("ord(chr(k + 64))", 66, INT),
    # **: exponents >= 0; 0 ** 0 == 1; a real base stays exact
    ("n ** k", 9, INT),
    ("n ** 3", -27, INT),
    ("0 ** 0", 1, INT),
    ("n ** 0", 1, INT),
    ("n ** -1", UNDEFINED, INT),
    ("n ** (k - 3)", UNDEFINED, INT),
    ("x ** k", Fraction(9, 4), REAL),
    ("x ** 0", 1, REAL),
    ("2 ** 100", 2**100, INT),
    ("k ** k ** k", 16, INT),
    ("-k ** 2", -4, INT),
]


@pytest.mark.parametrize(("text", "expected", "ty"), CASES, ids=[c[0] for c in CASES])
def test_every_reading_gives_the_documented_value(text: str, expected: Any, ty: Ty) -> None:
    e = expr(text)
    assert Evaluator().eval(e, ENV) == expected or (
        expected is UNDEFINED and Evaluator().eval(e, ENV) is UNDEFINED
    ), "the evaluator"
    generated = _generated(e)
    assert generated == expected or generated is expected, "the generated Python"
    term = _z3_value(e)
    if expected is UNDEFINED:
        assert term is UNDEFINED, "z3"
    else:
        s = make_solver(rlimit=5_000_000, timeout_ms=20_000)
        env = {n: Term(literal(ENV[n], t), true(), t) for n, t in VARS.items()}
        value = Encoder(env).encode(e).value
        s.add(value != literal(expected, ty))
        assert s.check() == z3.unsat, "z3"
    _smt_agrees(e, expected, ty)


# --------------------------------------------------------------------------- the evaluator


def test_a_float_base_stays_a_float_and_overflow_is_undefined() -> None:
    ev = Evaluator()
    assert ev.eval(expr("x ** 2"), {"x": 1.5}) == 2.25
    assert ev.eval(expr("x ** 2000"), {"x": 1e10}) is UNDEFINED


def test_a_power_too_large_to_compute_is_a_resource_limit_not_undefined() -> None:
    with pytest.raises(EvaluationLimitError):
        Evaluator().eval(expr("n ** 100000000"), {"n": 3})
    # 0, 1 and -1 to any power are small, and computed
    assert Evaluator().eval(expr("n ** 100000001"), {"n": -1}) == -1
    assert Evaluator().eval(expr("n ** 100000000"), {"n": 0}) == 0


def test_wrong_sorts_are_undefined() -> None:
    ev = Evaluator()
    assert ev.eval(expr("join(t, ys)"), {"t": ",", "ys": ("a", 1)}) is UNDEFINED
    assert ev.eval(expr("lower(s)"), {"s": 5}) is UNDEFINED
    assert ev.eval(expr("n ** k"), {"n": True, "k": 2}) is UNDEFINED
    assert ev.eval(expr("n ** k"), {"n": 2, "k": Fraction(1, 2)}) is UNDEFINED


# --------------------------------------------------------------------------- grammar


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ("-a ** 2", "-(a ** 2)"),
        ("a ** -b", "a ** (-b)"),
        ("a ** b ** c", "a ** (b ** c)"),
        ("(a ** b) ** c", "(a ** b) ** c"),
        ("2 * a ** 2", "2 * (a ** 2)"),
        ("xs[0] ** len(s)", "(xs[0]) ** (len(s))"),
    ],
)
def test_power_binds_like_python(text: str, shape: str) -> None:
    assert _shape(expr(text)) == shape
    assert to_source(expr(text)) == text
    assert expr(to_source(expr(text))).model_dump() == expr(text).model_dump()


def _shape(e: Expr) -> str:
    """``e`` fully parenthesised (operators only)."""
    if isinstance(e, BinOp):
        a, b = e.operands
        return f"{_wrap(a)} {e.op} {_wrap(b)}"
    if isinstance(e, Unary) and e.op == "-":
        return f"-{_wrap(e.operand)}"
    return to_source(e)


def _wrap(e: Expr) -> str:
    return to_source(e) if e.kind in ("name", "int") else f"({_shape(e)})"


def test_printer_brackets_a_negative_or_power_base() -> None:
    base = Unary(op="-", operand=expr("a"))
    assert to_source(BinOp(op="**", operands=(base, expr("2")))) == "(-a) ** 2"
    inner = expr("a ** b")
    assert to_source(BinOp(op="**", operands=(inner, expr("c")))) == "(a ** b) ** c"


# --------------------------------------------------------------------------- types


@pytest.mark.parametrize(
    ("text", "fragment", "hint"),
    [
        ("‸n ** r == 1", "operator `**` cannot combine int and real", "must be an int"),
        ('‸s ** 2 == 1', "operator `**` cannot combine str and int", None),
        ("lower(‸n) == s", "lower() needs a str, not int", None),
        ("split(s, ‸n) == ss", "split() needs a str, not int", None),
        ('join(‸ss, ",") == s', "join() needs a str separator, not list[str]", "separator first"),
        ("join(s, ‸xs) == s", "join() needs a list[str], not list[int]", None),
        ("ord(‸n) == 1", "ord() needs a str, not int", None),
        ('chr(‸s) == "a"', "chr() needs an int, not str", None),
        ("‸chr(1, 2) == s", "chr() takes 1 argument (2 given)", "chr(n)"),
        ("‸split(s) == ss", "split() takes 2 arguments (1 given)", "split(s, sep)"),
    ],
)
def test_type_errors(text: str, fragment: str, hint: str | None) -> None:
    one_error(
        f"""
        param n: int
        param r: real
        param s: str
        param xs: list[int]
        param ss: list[str]
        requirement R: {text}
        """,
        fragment,
        hint,
    )


def test_result_types() -> None:
    spec = (
        "spec t version 1\nparam n: int\nparam r: real\nparam s: str\n"
        "requirement A: r ** 2 >= 0.0 and n ** 2 + 1 > 0\n"
        'requirement B: split(s, ",")[0] + upper(s) + chr(ord("a")) != ""\n'
        'requirement C: len(join("", split(strip(lower(s)), " "))) >= 0\n'
    )
    from derivative._typecheck import check

    check(parse_text(spec, "<t>"))  # no error: each call has the type it is used at


# --------------------------------------------------------------------------- solver


def _check(spec: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "derivative", "check", "-", *args],
        input=spec,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_what_z3_cannot_decide_is_unknown_never_a_verdict() -> None:
    """x ** 3 + y ** 3 == z ** 3 has no positive solution (Fermat, n = 3): beyond Z3,
    which must say so, not claim a witness or a conflict."""
    spec = (
        "spec fermat version 1\nparam x: int\nparam y: int\nparam z: int\nparam e: int\n"
        "requirement R1: x >= 1 and y >= 1 and z >= 1 and e == 3\n"
        "requirement R2: x ** e + y ** e == z ** e\n"
    )
    out = _check(spec, "--rlimit", "500000")
    assert out.returncode == 6 and out.stdout.startswith("status: unknown"), out.stdout


def test_the_example_spec_is_decided_feasible() -> None:
    out = _check((ROOT / "examples" / "text.req").read_text(encoding="utf-8"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("status: feasible"), out.stdout


# --------------------------------------------------------------------------- generated tests


def test_a_docstring_ending_in_a_quote_still_closes() -> None:
    text = 'shout("a") == "A"'
    source = f'"""{_doc(text)}"""'
    assert eval(source) == text
    assert eval(f'"""{_doc(chr(92) + chr(34))}"""') == chr(92) + chr(34)
