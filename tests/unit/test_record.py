"""``derivative._record.record`` behaves as ``@dataclass(frozen=True)`` wherever the project
relies on it: each check below runs the same class body under both and compares."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pytest

from derivative._record import record, record_fields, replace


def _pair(body: Callable[[Callable[[type], type]], type]) -> tuple[type, type]:
    return body(record), body(dataclass(frozen=True))


def _shapes(deco: Callable[[type], type]) -> type:
    @deco
    class Base:
        a: int
        b: str = "x"

    @deco
    class Shape(Base):
        """Inherits a and b, adds fields with factories and flags."""

        c: list[int] = field(default_factory=list, compare=False)
        d: int = field(default=5, repr=False)
        e: int = 0
        K: ClassVar[int] = 3

    return Shape


def _module_level(cls: type, name: str) -> type:
    """Reachable by name, so that pickle can find it."""
    cls.__qualname__ = cls.__name__ = name
    globals()[name] = cls
    return cls


OURS = _module_level(_shapes(record), "OursShape")
THEIRS = _module_level(_shapes(dataclass(frozen=True)), "TheirsShape")

CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((1,), {}),
    ((1, "y"), {}),
    ((1, "y", [2], 6, 7), {}),
    ((), {"a": 1, "e": 9}),
    ((1,), {"c": [3], "b": "q"}),
    ((), {}),  # missing a
    ((1, "y", [], 1, 2, 3), {}),  # too many
    ((1,), {"a": 2}),  # twice
    ((1,), {"zz": 2}),  # unknown
]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_construction_repr_equality_and_hash_agree(args: tuple[Any, ...],
                                                   kwargs: dict[str, Any]) -> None:
    ours, theirs = OURS, THEIRS
    try:
        want = theirs(*args, **kwargs)
    except TypeError:
        with pytest.raises(TypeError):
            ours(*args, **kwargs)
        return
    got = ours(*args, **kwargs)
    assert repr(got).replace("Ours", "") == repr(want).replace("Theirs", "")
    assert vars(got) == vars(want)
    again = ours(*args, **kwargs)
    assert got == again and hash(got) == hash(again)
    assert got != replace(got, b="other")
    assert got == replace(got, c=[123]), "a field left out of == does not count"
    assert got != replace(got, e=123)
    assert ours.__match_args__ == theirs.__match_args__  # type: ignore[attr-defined]
    assert got.c is not ours(1).c, "a factory runs once per instance"
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.a = 4
    with pytest.raises(AttributeError):
        del got.b
    assert pickle.loads(pickle.dumps(got)) == got
    assert copy.deepcopy(got) == got and copy.copy(got) == got
    assert record_fields(got) == tuple(f.name for f in dataclasses.fields(want))


def test_methods_a_class_writes_and_post_init_are_kept() -> None:
    def body(deco: Callable[[type], type]) -> type:
        @deco
        class P:
            x: int
            y: int = 0

            def __post_init__(self) -> None:
                if self.x < 0:
                    raise ValueError("negative")

            def __repr__(self) -> str:
                return f"P<{self.x}>"

        return P

    ours, theirs = _pair(body)
    assert repr(ours(1)) == repr(theirs(1)) == "P<1>"
    for cls in (ours, theirs):
        with pytest.raises(ValueError, match="negative"):
            cls(-1)
    assert hash(ours(1, 2)) == hash(ours(1, 2)), "writing __eq__ or __repr__ keeps a hash"


def test_order_and_keyword_only() -> None:
    @record(order=True)
    class V:
        major: int
        minor: int

    assert sorted([V(1, 2), V(0, 9), V(1, 0)]) == [V(0, 9), V(1, 0), V(1, 2)]

    @record(kw_only=True)
    class K:
        a: int

    with pytest.raises(TypeError):
        K(1)  # type: ignore[call-arg]
    assert K(a=1).a == 1 and K.__match_args__ == ()


def test_replace_refuses_unknown_fields_and_serves_real_dataclasses() -> None:
    @record
    class R:
        a: int

    with pytest.raises(TypeError):
        replace(R(1), b=2)

    @dataclass(frozen=True)
    class D:
        a: int

    assert replace(D(1), a=2) == D(2)


def test_an_untimed_check_declares_no_dataclass_but_the_options_and_slotted_ones() -> None:
    # Start-up is the feature: every value class on the check path is a record (frozen,
    # or ``frozen=False`` for a mutable one); only the published options (documented as
    # frozen dataclasses) and the parser's slotted classes remain.
    code = (
        "import dataclasses, io, sys\n"
        "seen = []\n"
        "real = dataclasses._process_class\n"
        "def spy(cls, *a, **k):\n"
        "    seen.append((cls.__qualname__, a[5]))\n"
        "    return real(cls, *a, **k)\n"
        "dataclasses._process_class = spy\n"
        "from derivative.cli import main\n"
        "main(['check', 'examples/password_policy.req'], stdout=io.StringIO(),"
        " stderr=io.StringIO())\n"
        "print(sorted(seen))\n"
    )
    from pathlib import Path

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).parents[2], timeout=120, check=True)
    declared = eval(done.stdout)  # (name, frozen) pairs printed above
    options = [n for n, frozen in declared if frozen]
    assert options and all(n.endswith("Options") for n in options), declared
    mutable = [n for n, frozen in declared if not frozen]
    # the parser's per-clause classes keep ``slots=True`` (attribute access at scale)
    assert set(mutable) <= {"Label", "Clause", "Header", "UseLine", "ToleranceLine",
                            "ParsedFile", "_OperationParts"}, declared


def test_a_mutable_record_assigns_and_is_unhashable_as_a_dataclass() -> None:
    def body(deco: Callable[[type], type]) -> type:
        @deco
        class Box:
            a: int
            items: list[int] = field(default_factory=list)

        return Box

    ours, theirs = body(record(frozen=False)), body(dataclass)
    got, want = ours(1), theirs(1)
    got.a = 2
    want.a = 2
    got.items.append(3)
    want.items.append(3)
    assert vars(got) == vars(want)
    assert repr(got).replace("Box", "") == repr(want).replace("Box", "")
    assert got == ours(2, [3]) and got != ours(2, [])
    assert ours.__hash__ is None and theirs.__hash__ is None
    with pytest.raises(TypeError):
        hash(got)
    del got.a  # nothing blocks deletion on a mutable record
    assert "a" not in vars(got)
