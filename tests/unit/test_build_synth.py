"""``--synth``: readable Python from contracts that pin their results, judged like any code.

The synthesised module is checked three ways: the test engine (the real oracle) runs every
obligation against it in-process; a differential test calls each function on random inputs
and compares with the evaluator's value of the pinned expression; and the static posture
validator accepts it under the default policy.  Contracts it cannot write are refused with
every reason named.
"""

from __future__ import annotations

import enum
import itertools
import math
import re
import tempfile
import textwrap
import types
from collections.abc import Callable
from datetime import date
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from derivative import _regex, api
from derivative._eval import Evaluator
from derivative._types import TBool, TDate, TEnum, TInt, TList, TReal, TStr, Ty
from derivative._values import UNDEFINED, EnumValue
from derivative.forge.build import (
    GenerationRequest,
    SynthesisRefused,
    SynthGenerator,
    normalised_ast_hash,
    synth_source,
    synthesize,
)
from derivative.forge.build._synth import pinned
from derivative.forge.posture import validate_path
from derivative.forge.testing import Engine, EngineOptions, InProcessCaller, load_target

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
_FOLDER = Path(tempfile.mkdtemp(prefix="derivative-synth-"))
_COUNTER = itertools.count()

# Many constructs at once: dates, reals, lists, strings, quantifiers, generators, ranges,
# chains, enums, an exception hierarchy, constants, and parameters named like Python
# keywords and built-ins.
RICH = """\
spec rich version 1

enum Color { red, green, blue }
exception Bad(ValueError)
exception Worse(Bad)

const BASE: date = date("2024-01-31")
const STEP: real = 0.5
const NAMES: list[str] = ["a", "bb"]
const LIMIT: int = 2 * 50

function shift(start: date, days: int in -400..400) -> date
    requires: date("1900-01-01") <= start <= date("2900-01-01")
    ensures: result == start + days

function gap(a: date, b: date) -> int
    ensures: result == a - b

function back(a: date, n: int in 0..400) -> date
    requires: a >= date("1900-01-01")
    ensures: result == a - n

function from_base(n: int in 0..100) -> date
    ensures: result == n + BASE

function halves(x: int, y: int) -> real
    raises ZeroDivisionError when y == 0
    ensures: result == x / y + STEP

function floors(x: int, y: int) -> int
    raises Worse when y == 0
    ensures: result == x // y + x % y * -1

function stats(xs: list[int]) -> list[int]
    requires: len(xs) >= 1
    ensures: result == sorted(xs) + [
        min(xs), max(xs), sum(xs), abs(xs[0]), len(xs), occurrences(xs, 0)]

function checks(xs: list[int], n: int in -5..20) -> bool
    ensures: result == ((all(x > 0 for x in xs) implies any(x > n for x in xs))
        iff (forall i in 0..n: i * i != 49))

function inrange(x: int, lo: int, hi: int) -> bool
    ensures: result == (x in lo..hi and x not in 5..6 and lo < x <= hi)

function texty(s: str, n: int in -1000..1000) -> str
    ensures: result == (if startswith(s, "a") or endswith(s, "z") or contains(s, "q")
        then str(n) + s else s + "-" + (if len(s) > 0 then s[0] else ""))

function colorful(c: Color, flag: bool) -> Color
    raises Bad when c == Color.red and not flag
    ensures: result == (if c == Color.green then Color.blue else Color.green)

function keywords(class: int, lambda: int, len: int) -> int
    requires: len >= 0
    ensures: len >= 0 and result == class + lambda + len + LIMIT

function pick(names: list[str], i: int in 0..1) -> str
    ensures: result == NAMES[i] + (if i < len(names) then names[i] else "")

function lists(xs: list[int], k: int in -6..6, s: str) -> list[int]
    ensures: result == xs[k:] + xs[:k] + reversed(xs[-2:]) + [
        product(xs[1:3]), count(x > k for x in xs), len(s[k:])] + [
        x * 2 for x in xs if x % 3 != 0]

function mm(a: real, b: real) -> real
    ensures: result == max(a, b) - min(a, b) * 2.25

function neg(x: int) -> int
    ensures: result >= 0 or result < 0
    ensures: -x * 3 == result

function digits(t: str matching "[0-9]{1,30}") -> int
    ensures: result == int(t) + 1

function realy(x: real, xs: list[real]) -> int
    raises ValueError when x > 10.5
    ensures: result == (if x in xs then occurrences(xs, x)
        else if xs == [x, 0.25] or x / 2 >= 2.5 then -1 else 0)

function text_or_digits(t: str) -> bool
    raises KeyError when len(t) > 5
    ensures: result == (matches(t, "[a-c]+[0-9]?") or not matches(t, ".*x.*"))
"""


def _load(text: str) -> Any:
    return api.parse_text(textwrap.dedent(text), "<test>")


def _module(loaded: Any) -> types.ModuleType:
    path = _FOLDER / f"synth_{next(_COUNTER)}.py"
    path.write_text(synth_source(loaded), encoding="utf-8")
    return load_target(str(path))


def _engine_statuses(loaded: Any) -> dict[str, str]:
    mod = _module(loaded)
    caller = InProcessCaller.for_contract(mod, loaded.types)
    evidence = Engine(loaded.types, caller, EngineOptions(examples=40)).run()
    return {o.id: o.status for o in evidence.obligations}


def _all_pass(statuses: dict[str, str]) -> bool:
    return all(s in ("passed", "vacuous") for s in statuses.values())


# --------------------------------------------------------------------------- bundled examples


def test_discount_is_synthesised_readably_and_passes_every_obligation() -> None:
    loaded = api.load([EXAMPLES / "discount.req"])
    source = synth_source(loaded)
    assert "def discounted(price_cents: int, percent: int) -> int:" in source
    assert "return price_cents - price_cents * percent // 100" in source
    assert "class Tier(enum.Enum):" in source
    assert "return 10 if tier == Tier.gold else 5 if tier == Tier.silver else 0" in source
    assert "if re.fullmatch('[0-9]+', text) is None:" in source
    assert "raise ValueError(" in source
    statuses = _engine_statuses(loaded)
    assert statuses and _all_pass(statuses), statuses


def test_synthesised_code_passes_the_default_posture() -> None:
    for loaded in (api.load([EXAMPLES / "discount.req"]), _load(RICH)):
        folder = _FOLDER / f"posture_{next(_COUNTER)}"
        folder.mkdir()
        for name, data in synthesize(loaded).items():
            (folder / name).write_bytes(data)
        verdict = validate_path(str(folder))
        assert verdict.accepted, verdict


def test_password_policy_is_refused_for_its_system() -> None:
    with pytest.raises(SynthesisRefused) as info:
        synth_source(api.load([EXAMPLES / "password_policy.req"]))
    assert [name for name, _ in info.value.reasons] == ["system TokenStore"]
    assert "state" in info.value.reasons[0][1]
    assert info.value.exit_code == 2
    assert "TokenStore" in str(info.value)


def test_a_contract_without_functions_is_refused() -> None:
    with pytest.raises(SynthesisRefused, match="nothing to synthesise"):
        synth_source(api.load([EXAMPLES / "limits" / "feature.req"]))


def test_synthesize_names_the_module_and_the_generator_stalls_honestly() -> None:
    loaded = api.load([EXAMPLES / "discount.req"])
    assert list(synthesize(loaded)) == ["discount.py"]
    assert list(synthesize(loaded, module="impl")) == ["impl.py"]
    gen = SynthGenerator(loaded)
    first = gen()
    assert first.origin == "synth" and first.number == 1 and first.command is None
    request = GenerationRequest(contract={}, module="discount", attempt=2)
    again = gen.generate(request)
    assert again.number == 2 and again.request is request
    assert again.ast_hash == first.ast_hash == normalised_ast_hash(first.files)


# --------------------------------------------------------------------------- constructed specs


def test_the_rich_spec_passes_every_obligation_in_the_engine() -> None:
    statuses = _engine_statuses(_load(RICH))
    assert len(statuses) > 20
    assert _all_pass(statuses), {k: v for k, v in statuses.items() if v != "passed"}


def test_names_python_cannot_use_are_renamed_and_builtins_stay_reachable() -> None:
    source = synth_source(_load(RICH))
    assert "def keywords(class_: int, lambda_: int, len_: int) -> int:" in source
    assert "return class_ + lambda_ + len_ + LIMIT" in source
    shadowing = """\
        spec shadow version 1
        function max(xs: list[int]) -> int
            requires: len(xs) >= 1
            ensures: result == max(xs) + len(xs)
        function len(s: str) -> int
            ensures: result == len(s) * 2
    """
    loaded = _load(shadowing)
    source = synth_source(loaded)
    assert "_max = max" in source and "_len = len" in source
    assert "return _max(xs) + _len(xs)" in source
    assert _all_pass(_engine_statuses(loaded))


def test_pins_are_found_in_conjuncts_and_on_either_side() -> None:
    loaded = _load("""\
        spec pins version 1
        function f(x: int) -> int
            ensures: result >= x + x - 1 and (x * 2 == result and true)
        function g(x: int) -> int
            ensures: result > x - 5
            ensures: result == x + 1
    """)
    c = loaded.contract
    pin_f, pin_g = pinned(c, "f"), pinned(c, "g")
    assert pin_f is not None and pin_g is not None
    assert "return x * 2" in synth_source(loaded)
    assert "return x + 1" in synth_source(loaded)
    assert _all_pass(_engine_statuses(loaded))


@pytest.mark.parametrize(
    ("spec", "name", "why"),
    [
        ("function f(x: int) -> int\n    ensures: result >= x", "f", "no `ensures: result"),
        ("function f(x: int) -> int\n    ensures: x > 0 implies result == x", "f", "pins"),
        ("function f(x: int) -> int\n    ensures: result == result", "f", "pins"),
        ("function f(x: int) -> int\n    ensures: result == x / 2", "f", "is a real"),
        ("function f(x: int) -> int\n    raises UnicodeDecodeError when x < 0\n"
         "    ensures: result == x", "f", "with a message alone"),
        ("function f(x: int) -> int\n    raises SystemExit when x < 0\n"
         "    ensures: result == x", "f", "stop the sandbox"),
        ("function f(x: int) -> int\n    ensures: result == x\nbind f to \"lib.mod:f\"",
         "f", "another module"),
        ("enum E { a, class }\nfunction f(e: E) -> E\n    ensures: result == e", "E",
         "enum members"),
    ],
)
def test_refusals_name_the_function_and_the_reason(spec: str, name: str, why: str) -> None:
    loaded = _load("spec refuse version 1\n" + spec + "\n")
    with pytest.raises(SynthesisRefused) as info:
        synth_source(loaded)
    reasons = dict(info.value.reasons)
    assert name in reasons and why in reasons[name], info.value.reasons


def test_every_obstacle_is_reported_at_once() -> None:
    loaded = _load("""\
        spec many version 1
        function ok(x: int) -> int
            ensures: result == x
        function open_ended(x: int) -> int
            ensures: result > x
        function also(x: int) -> int
            ensures: result < x
        system S
            operation op(x: int) -> int
    """)
    with pytest.raises(SynthesisRefused) as info:
        synth_source(loaded)
    assert sorted(n for n, _ in info.value.reasons) == ["also", "open_ended", "system S"]


def test_reals_compare_with_the_language_tolerance() -> None:
    loaded = _load("""\
        spec reals version 1
        tolerance 0.001

        function clip(x: real) -> real
            raises ValueError when x > 0.1
            ensures: result == (if x >= 1 / 3 then x * 3 else x / 7)

        function near(x: real, ys: list[real]) -> bool
            ensures: result == (x == 1.0 or ys == [x] or x not in ys)
    """)
    source = synth_source(loaded)
    assert "_REL_TOL = 0.001" in source
    assert "if _real_lt(Fraction(\"0.1\"), x):" in source  # x > 0.1, with the tolerance
    assert "_real_le(Fraction(1, 3), x) else x / 7" in source
    assert _all_pass(_engine_statuses(loaded))


# --------------------------------------------------------------------------- against the evaluator


def _strategy(ty: Ty) -> st.SearchStrategy[Any]:
    if isinstance(ty, TBool):
        return st.booleans()
    if isinstance(ty, TInt):
        lo = -60 if ty.lo is None else ty.lo
        return st.integers(lo, 60 if ty.hi is None else ty.hi)
    if isinstance(ty, TReal):
        return st.integers(-400, 400).map(lambda n: Fraction(n, 8))  # exact as floats
    if isinstance(ty, TStr):
        if ty.pattern is not None:
            return st.from_regex(_regex.to_python(ty.pattern), fullmatch=True)
        return st.text("abqxz09", max_size=7)
    if isinstance(ty, TDate):
        return st.dates(date(1950, 1, 1), date(2050, 12, 31))
    if isinstance(ty, TList):
        return st.lists(_strategy(ty.elem), max_size=5).map(tuple)
    if isinstance(ty, TEnum):
        return st.sampled_from([EnumValue(ty.name, m) for m in ty.members])
    raise AssertionError(ty)


def _language_value(v: object) -> object:
    if isinstance(v, enum.Enum):
        return EnumValue(type(v).__name__, v.name)
    if isinstance(v, list):
        return tuple(_language_value(x) for x in v)
    return v


def _same(expected: object, got: object) -> bool:
    if isinstance(got, float) or isinstance(expected, float):
        assert isinstance(expected, (int, Fraction, float)) and isinstance(got, (int, float))
        return math.isclose(float(expected), float(got), rel_tol=1e-9, abs_tol=1e-12)
    return expected == got and type(expected) is type(got)


RICH_LOADED = _load(RICH)
RICH_MODULE = _module(RICH_LOADED)


def _check_against_evaluator(name: str, data: st.DataObject) -> None:
    info = RICH_LOADED.types
    c = RICH_LOADED.contract
    ev = Evaluator(info.const_values)
    sig = info.signatures[name]
    env = {p: data.draw(_strategy(t), label=p) for p, t, _ in sig.params}
    requires = [o for o in c.obligations_of(name) if o.kind == "requires"]
    assume(all(ev.holds(o.expr, env) is True for o in requires))
    caller = InProcessCaller(RICH_MODULE)
    fn: Callable[..., object] = getattr(RICH_MODULE, name)
    args = [caller.to_candidate(env[p]) for p, _, _ in sig.params]
    for o in c.obligations_of(name):
        if o.kind == "raises" and ev.holds(o.expr, env) is True:
            with pytest.raises(Exception) as raised:
                fn(*args)
            names = [k.__name__ for k in type(raised.value).__mro__]
            assert o.exception in names
            return
    pin = pinned(c, name)
    assert pin is not None
    expected = ev.eval(pin[1], env)
    assume(expected is not UNDEFINED)
    got = _language_value(fn(*args))
    assert _same(expected, got), (name, env, expected, got)


@pytest.mark.parametrize("name", [f.name for f in RICH_LOADED.contract.functions()])
@settings(
    max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(data=st.data())
def test_synthesised_functions_agree_with_the_evaluator(name: str, data: st.DataObject) -> None:
    _check_against_evaluator(name, data)


def test_the_docs_specs_are_synthesised_or_refused_never_wrong() -> None:
    fence = re.compile(r"^```req\n(.*?)^```\s*$", re.MULTILINE | re.DOTALL)
    written = 0
    for doc in (ROOT / "README.md", ROOT / "docs" / "language.md"):
        for i, m in enumerate(fence.finditer(doc.read_text(encoding="utf-8"))):
            loaded = api.parse_text(m.group(1), f"{doc.name}#{i}")
            try:
                synth_source(loaded)
            except SynthesisRefused as exc:
                assert exc.reasons and all(why for _, why in exc.reasons)
                continue
            written += 1
            statuses = _engine_statuses(loaded)
            assert _all_pass(statuses), (doc.name, i, statuses)
    assert written >= 5
