"""Throughput of generated tests against hand-written Hypothesis tests, same run.

Run as ``python -m pytest benchmarks/test_throughput.py -q -s`` (or ``python
benchmarks/test_throughput.py``).  Not part of CI: the figures depend on the machine.

1. **Examples per second.**  For three properties the module that ``derivative tests
   -o`` writes is generated, imported, and its test for the property is run with
   ``N`` examples; so is a hand-written in-process Hypothesis test of the same property
   against the same implementation, with the same settings.  Both count the calls of
   the implementation.  The figure is the ratio of examples per second, generated /
   hand-written (goal >= 0.8), best of ``REPEAT`` alternating runs (these machines are
   noisy).  The engine (``derivative tests`` without ``-o``) is timed too, for the
   record.
2. **Time to first failure** for the boundary bugs of the corpus: from the start of the
   test to the first call that shows the bug, for the generated test (solver-chosen
   boundary inputs run first, as ``@example``s) and for a hand-written random test of
   the same property (which may not find it at all within ``N`` examples).

The assertions are sanity bounds only (a ratio above 0.3, boundary bugs found by the
generated tests); the printed figures are the measurement.  ``figures(quick)`` gives
``benchmarks/run_all.py`` one row per property and one for the boundary bugs.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
import time
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hypothesis import Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from benchmarks._rows import TableRow, table_row  # noqa: E402
from derivative.api import load  # noqa: E402
from derivative.forge.codegen._generate import generate_module  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"
N = int(os.environ.get("THROUGHPUT_EXAMPLES", "400"))
REPEAT = int(os.environ.get("THROUGHPUT_REPEAT", "3"))
# One profile for both sides: the generated module's SETTINGS inherit it when imported.
settings.register_profile("throughput", derandomize=True, database=None, deadline=None)
settings.load_profile("throughput")


def _settings(examples: int) -> settings:
    """Both sides' settings for ``examples`` examples (``run_all`` asks for fewer)."""
    return settings(max_examples=examples, phases=[p for p in Phase if p is not Phase.explain])


SETTINGS = _settings(N)


def _import(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


class Counter:
    """Wraps a function and counts its calls (and when a check first failed)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.calls = 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.fn(*args)


@dataclass
class Property:
    case: str
    function: str
    obligation: str
    hand: Callable[[types.ModuleType, Counter, settings], Callable[[], None]]


def _hand_is_strong(impl: types.ModuleType, calls: Counter,
                    s: settings = SETTINGS) -> Callable[[], None]:
    @s
    @given(st.text(max_size=128))
    def test(password: str) -> None:
        assert calls(password) == (len(password) >= 12)

    return test


def _hand_discounted(impl: types.ModuleType, calls: Counter,
                     s: settings = SETTINGS) -> Callable[[], None]:
    @s
    @given(st.integers(min_value=0), st.integers(min_value=0, max_value=50))
    def test(price: int, percent: int) -> None:
        result = calls(price, percent)
        assert 0 <= result <= price
        assert result == price - price * percent // 100

    return test


def _hand_unique(impl: types.ModuleType, calls: Counter,
                 s: settings = SETTINGS) -> Callable[[], None]:
    @s
    @given(st.lists(st.integers(0, 9), max_size=12))
    def test(xs: list[int]) -> None:
        result = calls(list(xs))
        assert all(result.count(x) == 1 for x in xs)

    return test


PROPERTIES = [
    Property("password_strength", "is_strong", "S1", _hand_is_strong),
    Property("discount_cents", "discounted", "discounted.ensures", _hand_discounted),
    Property("dedupe_keeps_order", "unique", "unique.ensures", _hand_unique),
]


def _generated(case: str, folder: Path, examples: int = N) -> types.ModuleType:
    info = load([CORPUS / case / "spec.req"]).types
    source = generate_module(info, str(CORPUS / case / "correct.py"), examples=examples)
    path = folder / f"test_gen_{case}.py"
    path.write_text(source, encoding="utf-8")
    os.environ.pop("DERIVATIVE_TARGET", None)
    os.environ["DERIVATIVE_EXAMPLES"] = str(examples)
    return _import(path, f"_gen_{case}")


def _generated_tests(mod: types.ModuleType, prefix: str) -> list[Callable[[], None]]:
    names = [n for n in dir(mod) if n.startswith("test_" + prefix.replace(".", "__"))]
    return [getattr(mod, n) for n in sorted(names)]


def _time(test: Callable[[], None]) -> float:
    start = time.perf_counter()
    test()
    return time.perf_counter() - start


def measure_examples_per_second(examples: int = N, repeat: int = REPEAT) -> list[dict[str, Any]]:
    """Per property: the best examples/s of each side over ``repeat`` alternating runs."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for prop in PROPERTIES:
            gen = _generated(prop.case, Path(tmp), examples)
            target = gen._target()
            calls_gen = Counter(getattr(target, prop.function))
            setattr(target, prop.function, calls_gen)
            tests = _generated_tests(gen, prop.obligation)
            assert tests, prop.obligation
            test_gen = tests[0]
            impl = _import(CORPUS / prop.case / "correct.py", f"_impl_{prop.case}")
            calls_hand = Counter(getattr(impl, prop.function))
            test_hand = prop.hand(impl, calls_hand, _settings(examples))
            best_gen = best_hand = 0.0
            for _ in range(repeat):
                calls_gen.calls = 0
                t = _time(test_gen)
                best_gen = max(best_gen, calls_gen.calls / t)
                calls_hand.calls = 0
                t = _time(test_hand)
                best_hand = max(best_hand, calls_hand.calls / t)
            rows.append({"property": f"{prop.case}:{prop.obligation}",
                         "generated": best_gen, "hand": best_hand,
                         "ratio": best_gen / best_hand})
    return rows


def measure_engine(case: str, examples: int = N) -> float:
    """Examples per second of the in-process engine on a whole spec (for the record)."""
    from derivative.forge.testing import Engine, EngineOptions, InProcessCaller, load_target

    info = load([CORPUS / case / "spec.req"]).types
    module = load_target(str(CORPUS / case / "correct.py"))
    engine = Engine(info, InProcessCaller.for_contract(module, info),
                    EngineOptions(examples=examples, settings=_settings(examples)))
    start = time.perf_counter()
    evidence = engine.run()
    elapsed = time.perf_counter() - start
    inputs = sum(s.get("valid_inputs", 0) for s in engine.stats.values() if isinstance(s, dict))
    assert evidence.status == "passed"
    return float(inputs) / elapsed


def _hand_clamp(impl: types.ModuleType, calls: Counter,
                s: settings = SETTINGS) -> Callable[[], None]:
    @s
    @given(st.integers(), st.integers(), st.integers())
    def test(x: int, lo: int, hi: int) -> None:
        if lo > hi:
            lo, hi = hi, lo
        result = calls(x, lo, hi)
        assert lo <= result <= hi and (not lo <= x <= hi or result == x)

    return test


def _hand_shipping(impl: types.ModuleType, calls: Counter,
                   s: settings = SETTINGS) -> Callable[[], None]:
    @s
    @given(st.integers(1, 30000))
    def test(w: int) -> None:
        want = 499 if w <= 1000 else 899 if w <= 5000 else 899 + (w - 5000) // 1000 * 100
        assert calls(w) == want

    return test


def _hand_username(impl: types.ModuleType, calls: Counter,
                   s: settings = SETTINGS) -> Callable[[], None]:
    import re

    @s
    @given(st.text(max_size=32))
    def test(name: str) -> None:
        want = 3 <= len(name) <= 16 and re.fullmatch("[a-z0-9_]*", name) is not None
        assert calls(name) == want

    return test


BOUNDARY_BUGS: list[tuple[str, str, str, Any]] = [
    ("password_strength", "is_strong", "S1", _hand_is_strong),
    ("age_category_boundary", "category", "category.ensures", None),
    ("clamp_upper_off_by_one", "clamp", "clamp.ensures", _hand_clamp),
    ("shipping_cost_tiers", "shipping", "shipping.ensures", _hand_shipping),
    ("min_length_username", "valid_username", "valid_username.ensures", _hand_username),
    ("date_subscription_end", "end_date", "E1", None),
]


def measure_time_to_first_failure(examples: int = N) -> list[dict[str, Any]]:
    """Seconds and calls until the generated tests first see each boundary bug."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case, function, obligation, hand in BOUNDARY_BUGS:
            gen = _generated(case, Path(tmp), examples)
            wrong = _import(CORPUS / case / "wrong.py", f"_wrong_{case}")
            setattr(gen, "_TARGET_MODULE", wrong)  # noqa: B010 - a generated module
            calls = Counter(getattr(wrong, function))
            first: dict[str, float] = {}
            original = getattr(gen, "check_function")  # noqa: B009 - a generated module

            def check(owner: Any, inp: Any, focus: str, original: Any = original,
                      first: dict[str, float] = first, calls: Counter = calls) -> None:
                try:
                    original(owner, inp, focus)
                except AssertionError:
                    first.setdefault("calls", calls.calls)
                    first.setdefault("t", time.perf_counter())
                    raise

            setattr(gen, "check_function", check)  # noqa: B010 - a generated module
            setattr(wrong, function, calls)
            found = False
            start = time.perf_counter()
            for test in _generated_tests(gen, obligation):
                # Per test: the obligation with the bug is the one that counts.
                calls.calls = 0
                start = time.perf_counter()
                try:
                    test()
                except AssertionError:
                    found = True
                    break
            row: dict[str, Any] = {"case": case, "found": found,
                                   "seconds": first.get("t", time.perf_counter()) - start,
                                   "calls": first.get("calls")}
            if hand is not None:
                hcalls = Counter(getattr(wrong, function).fn)
                htest = hand(wrong, hcalls, _settings(examples))
                hstart = time.perf_counter()
                try:
                    htest()
                    row["hand_found"] = False
                except AssertionError:
                    row["hand_found"] = True
                row["hand_seconds"] = time.perf_counter() - hstart
            rows.append(row)
    return rows


# --------------------------------------------------------------------------- run_all

GOAL = 0.8
"""Examples per second, generated / hand-written, for every property."""


def _throughput_row(r: dict[str, Any], examples: int, repeat: int) -> TableRow:
    return table_row(
        "test_throughput", f"generated test examples/s, {r['property']}",
        baseline=f"hand-written Hypothesis {r['hand']:,.0f}/s", ratio=r["ratio"],
        goal=f">= {GOAL}", met=r["ratio"] >= GOAL,
        detail=f"generated {r['generated']:,.0f}/s; {examples} examples, best of {repeat}",
    )


def _boundary_row(found: list[dict[str, Any]]) -> TableRow:
    """Every boundary bug found by the generated tests, with a hand-written random test's
    record (where one exists) as the baseline."""
    hands = [r for r in found if "hand_found" in r]
    caught = sum(1 for r in found if r["found"])
    worst = max((r["calls"] or 0) for r in found)
    return table_row(
        "test_throughput", "boundary bugs of the corpus found by the generated tests",
        baseline=(f"hand-written random test: {sum(r['hand_found'] for r in hands)} of "
                  f"{len(hands)} found"),
        ratio=f"{caught} of {len(found)} found, within {worst} calls",
        goal="all found", met=caught == len(found),
        detail="; ".join(f"{r['case']} after {r['calls']} calls, {r['seconds'] * 1000:.0f} ms"
                         for r in found),
    )


def figures(quick: bool = True) -> list[TableRow]:
    """``run_all``'s rows, with ``N`` examples, best of ``REPEAT`` (400 and 3 unless the
    environment says otherwise) either way: it takes seconds, and with fewer examples the
    generated tests' fixed start (their boundary examples) would weigh on the ratio."""
    examples, repeat = N, REPEAT
    rows = [_throughput_row(r, examples, repeat)
            for r in measure_examples_per_second(examples, repeat)]
    return [*rows, _boundary_row(measure_time_to_first_failure(examples))]


# --------------------------------------------------------------------------- pytest entry points


def test_generated_tests_keep_up_with_hand_written_ones() -> None:
    rows = measure_examples_per_second()
    for r in rows:
        print(f"{r['property']:45s} generated {r['generated']:8.0f}/s  "
              f"hand-written {r['hand']:8.0f}/s  ratio {r['ratio']:.2f} (goal >= 0.8)")
        assert r["ratio"] > 0.3, r
    engine = measure_engine("password_strength")
    print(f"engine (password_strength, whole spec, in-process): {engine:.0f} inputs/s")


def test_boundary_bugs_are_found_first_thing() -> None:
    for r in measure_time_to_first_failure():
        hand = ""
        if "hand_found" in r:
            hand = (f"; hand-written random test: {'found' if r['hand_found'] else 'NOT found'}"
                    f" in {r['hand_seconds']:.2f} s")
        print(f"{r['case']:28s} first failure after {r['calls']} calls, "
              f"{r['seconds'] * 1000:.0f} ms{hand}")
        assert r["found"], r


if __name__ == "__main__":
    test_generated_tests_keep_up_with_hand_written_ones()
    test_boundary_bugs_are_found_first_thing()
