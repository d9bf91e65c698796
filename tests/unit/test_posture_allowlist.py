"""The default posture policy is an allow-list in substance (docs/decisions.md, posture).

Every route by which a *name* chosen at run time reaches an attribute (getattr and its
relatives, functools.update_wrapper/wraps, format templates, __match_args__, class
patterns, string annotations that typing evaluates, metaclasses and the hooks a class
can define) must take that name from a literal the policy allows; module-level dunders
that tell a candidate where it runs are refused; and the ordinary business logic the
corpus and the examples hold stays accepted with no finding.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from derivative.forge.posture._policy import load_policy
from derivative.forge.posture._validate import PostureVerdict, validate_path, validate_source

ROOT = Path(__file__).resolve().parents[2]


def check(source: str, policy: str = "default") -> PostureVerdict:
    return validate_source(textwrap.dedent(source).lstrip("\n"), file="c.py", policy=policy)


def shown(verdict: PostureVerdict) -> list[str]:
    return [f.render() for f in verdict.findings]


# --------------------------------------------------------------------------- refusals

REFUSED: list[tuple[str, str, str, int]] = [
    # (id, source, strategy, line)
    # names handed to APIs that read or write attributes
    (
        "update_wrapper_assigned_computed",
        "import functools\ndef f(s, w):\n"
        "    functools.update_wrapper(s, w, assigned=('__glo' + 'bals__',), updated=())\n",
        "attribute_access",
        3,
    ),
    (
        "update_wrapper_positional_computed",
        "import functools\ndef f(s, w, names):\n    functools.update_wrapper(s, w, names)\n",
        "attribute_access",
        3,
    ),
    (
        "update_wrapper_starred",
        "import functools\ndef f(args):\n    functools.update_wrapper(*args)\n",
        "attribute_access",
        3,
    ),
    (
        "update_wrapper_literal_denied",
        "import functools\ndef f(s, w):\n"
        "    functools.update_wrapper(s, w, assigned=('__sizeof__',), updated=())\n",
        "attribute_access",
        3,
    ),
    (
        "wraps_updated_computed",
        "from functools import wraps\nU = ('__glo' + 'bals__',)\n"
        "def deco(g):\n    @wraps(g, updated=U)\n    def w():\n        return g()\n    return w\n",
        "attribute_access",
        4,
    ),
    (
        "update_wrapper_as_value",
        "import functools\nuw = functools.update_wrapper\n",
        "attribute_access",
        2,
    ),
    ("hasattr_computed", "def f(o, n):\n    return hasattr(o, n)\n", "builtin_policy", 2),
    (
        "update_wrapper_dunder_call",
        "import functools\ndef f(s, w, n):\n"
        "    return functools.update_wrapper.__call__(s, w, assigned=n)\n",
        "attribute_access",
        3,
    ),
    ("getattr_template", "def f(t):\n    return getattr(t, 'format')\n", "attribute_access", 2),
    (
        "methodcaller_template",
        "import operator\nm = operator.methodcaller('format_map', {})\n",
        "attribute_access",
        2,
    ),
    (
        "setattr_method_as_value",
        "s = object.__setattr__\ndef f(o, n):\n    s(o, n, 1)\n",
        "attribute_access",
        1,
    ),
    (
        "namedtuple_computed_fields",
        "from collections import namedtuple\ndef f(names):\n    return namedtuple('P', names)\n",
        "attribute_access",
        3,
    ),
    (
        "typed_namedtuple_computed_pair",
        "import typing\nP = typing.NamedTuple('P', [('gi_' + 'frame', int)])\n",
        "attribute_access",
        2,
    ),
    (
        "enum_functional_computed",
        "import enum\ndef f(names):\n    return enum.Enum('E', names)\n",
        "attribute_access",
        3,
    ),
    (
        "enum_functional_dunder",
        "import enum\nE = enum.Enum('E', {'__match_args__': ('a',), 'A': 1})\n",
        "attribute_access",
        2,
    ),
    (
        "enum_subclass_functional_computed",
        "import enum\nclass Base(enum.Enum):\n    pass\ndef f(names):\n"
        "    return Base('E', names)\n",
        "attribute_access",
        5,
    ),
    (
        "typed_namedtuple_keywords",
        "import typing\ndef f(kw):\n    return typing.NamedTuple('P', **kw)\n",
        "attribute_access",
        3,
    ),
    (
        "enum_convert",
        "import enum\nE = enum.Enum._convert_('E', 'os', lambda n: True)\n",
        "attribute_access",
        2,
    ),
    (
        "enum_subclass_convert",
        "import enum\nclass C(enum.Enum):\n    pass\nE = C._convert_('E', 'os', lambda n: True)\n",
        "attribute_access",
        4,
    ),
    (
        "private_stdlib_attribute",
        "import fractions\nop = fractions.Fraction._operator_fallbacks\n",
        "import_policy",
        2,
    ),
    ("global_enum", "from enum import global_enum\n", "import_policy", 1),
    ("contextlib_chdir", "import contextlib\nc = contextlib.chdir('/')\n", "import_policy", 2),
    (
        "forward_reference_evaluated",
        "import typing\ndef f(s):\n    a = typing.List['in' + s]\n"
        "    return list(typing.get_args(a))[0]._evaluate({}, {}, frozenset())\n",
        "attribute_access",
        4,
    ),
    (
        "typing_subscript_computed",
        "import typing\ndef f(s):\n    return typing.List[s]\n",
        "recursive_control",
        3,
    ),
    (
        "typing_subscript_code_string",
        "import typing\nA = typing.List['open(0).read()']\n",
        "recursive_control",
        2,
    ),
    (
        "private_attribute_of_library_object",
        "import typing\nx = typing.get_args(typing.List[int])[0]._name\n",
        "import_policy",
        2,
    ),
    # format templates
    (
        "format_bound_method",
        "def f(t, o):\n    r = t.format\n    return r(o)\n",
        "attribute_access",
        2,
    ),
    (
        "format_map_bound_method",
        "def f(t, o):\n    r = t.format_map\n    return r(o)\n",
        "attribute_access",
        2,
    ),
    ("str_format_unbound", "r = str.format\n", "attribute_access", 1),
    (
        "map_str_format",
        "def f(ts, os_):\n    return list(map(str.format, ts, os_))\n",
        "attribute_access",
        2,
    ),
    # __match_args__, __slots__ and class patterns
    (
        "match_args_computed",
        "class G:\n    __match_args__ = ('__glo' + 'bals__',)\n",
        "attribute_access",
        2,
    ),
    (
        "match_args_variable",
        "N = ('x',)\nclass G:\n    __match_args__ = N\n",
        "attribute_access",
        3,
    ),
    (
        "slots_computed",
        "def names():\n    return ('a',)\nclass G:\n    __slots__ = names()\n",
        "attribute_access",
        4,
    ),
    (
        "match_args_augmented",
        "class G:\n    __match_args__ = ('a',)\n    __match_args__ += ('b',)\n",
        "attribute_access",
        3,
    ),
    (
        "class_pattern_unknown_class",
        "def f(cls, v):\n    match v:\n        case cls(a):\n            return a\n",
        "attribute_access",
        3,
    ),
    (
        "class_pattern_computed_class",
        "def make():\n    return int\nC = make()\ndef f(v):\n    match v:\n"
        "        case C(a):\n            return a\n",
        "attribute_access",
        6,
    ),
    (
        "dataclass_field_named_frame",
        "from dataclasses import dataclass\n@dataclass\nclass P:\n    gi_frame: object\n",
        "attribute_access",
        4,
    ),
    (
        "method_named_f_back",
        "class P:\n    def f_back(self):\n        return 1\n",
        "attribute_access",
        2,
    ),
    # metaclasses and class building
    ("metaclass_definition", "class M(type):\n    pass\n", "reflection", 1),
    (
        "metaclass_keyword",
        "class M:\n    pass\nclass A(metaclass=M):\n    pass\n",
        "reflection",
        3,
    ),
    ("class_keywords_splat", "def f(kw):\n    class A(**kw):\n        pass\n", "reflection", 2),
    (
        "computed_base",
        "def make():\n    return object\nclass A(make()):\n    pass\n",
        "reflection",
        3,
    ),
    ("type_of_called_three", "t = type(0)\nC = t('C', (), {})\n", "recursive_control", 2),
    ("type_starred", "def f(parts):\n    return type(*parts)\n", "recursive_control", 2),
    ("type_new", "C = type.__new__(type, 'C', (), {})\n", "recursive_control", 1),
    ("abcmeta_three", "import abc\nC = abc.ABCMeta('C', (), {})\n", "recursive_control", 2),
    (
        "type_through_partial",
        "import functools\nmk = functools.partial(type(int), 'C')\n",
        "recursive_control",
        2,
    ),
    ("type_as_default", "def f(t=type):\n    return t\n", "recursive_control", 1),
    ("type_as_decorator", "@type\nclass K:\n    pass\n", "recursive_control", 1),
    (
        "type_method_alias_called",
        "n = type.__new__\nC = n(type, 'C', (), {})\n",
        "recursive_control",
        2,
    ),
    # hooks a class may not define
    (
        "instancecheck",
        "class M:\n    def __instancecheck__(cls, o):\n        return True\n",
        "attribute_access",
        2,
    ),
    (
        "getattr_definition",
        "class P:\n    def __getattr__(self, n):\n        return n\n",
        "attribute_access",
        2,
    ),
    (
        "setattr_definition",
        "class P:\n    def __setattr__(self, n, v):\n        pass\n",
        "attribute_access",
        2,
    ),
    (
        "getattribute_lambda",
        "class P:\n    __getattribute__ = lambda self, n: n\n",
        "attribute_access",
        2,
    ),
    (
        "init_subclass",
        "class P:\n    def __init_subclass__(cls, **kw):\n        pass\n",
        "attribute_access",
        2,
    ),
    (
        "class_getitem",
        "class P:\n    def __class_getitem__(cls, item):\n        return item\n",
        "attribute_access",
        2,
    ),
    (
        "reduce",
        "class P:\n    def __reduce__(self):\n        return (int, ())\n",
        "attribute_access",
        2,
    ),
    ("del_hook", "class P:\n    def __del__(self):\n        pass\n", "attribute_access", 2),
    (
        "set_name",
        "class D:\n    def __set_name__(self, owner, name):\n        pass\n",
        "attribute_access",
        2,
    ),
    ("module_getattr", "def __getattr__(name):\n    return name\n", "attribute_access", 1),
    ("import_as_dunder", "from json import dumps as __getattr__\n", "attribute_access", 1),
    # annotations that typing evaluates
    (
        "singledispatch_computed_annotation",
        "import functools\nH = 'in' + 't'\n@functools.singledispatch\ndef d(v):\n    return v\n"
        "@d.register\ndef _(v: H):\n    return v\n",
        "recursive_control",
        7,
    ),
    (
        "string_annotation_call",
        "def f(v: 'int.bit_length()'):\n    return v\n",
        "recursive_control",
        1,
    ),
    ("annotation_operator", "def f(v: 'in' + 't'):\n    return v\n", "recursive_control", 1),
    ("annotation_call", "def f(v: make()):\n    return v\n", "recursive_control", 1),
    (
        "annotation_parameter",
        "def outer(t):\n    def inner(v: t):\n        return v\n    return inner\n",
        "recursive_control",
        2,
    ),
    (
        "annotation_subscript_of_data",
        "NAMES = ['int']\ndef f(v: NAMES[0]):\n    return v\n",
        "recursive_control",
        2,
    ),
    (
        "annotation_alias_of_computed",
        "import typing\nN = 'in' + 't'\nA = typing.List[N]\ndef f(v: A):\n    return v\n",
        "recursive_control",
        4,
    ),
    (
        "annotation_class_attribute",
        "class C:\n    T = 'int'\ndef f(v: 'C.T'):\n    return v\n",
        "recursive_control",
        3,
    ),
    (
        "literal_with_call",
        "from typing import Literal\ndef f(v: 'Literal[print(1)]'):\n    return v\n",
        "recursive_control",
        2,
    ),
    (
        "string_annotation_not_code",
        "def f(v: 'not code!'):\n    return v\n",
        "recursive_control",
        1,
    ),
    (
        "future_annotation_call",
        "from __future__ import annotations\ndef f(v: make()):\n    return v\n",
        "recursive_control",
        2,
    ),
    # where the candidate runs
    ("file", "JUDGED = __file__.startswith('/sandbox/')\n", "name_resolution", 1),
    ("cached", "c = __cached__\n", "name_resolution", 1),
    ("path", "p = __path__\n", "name_resolution", 1),
    ("package", "p = __package__\n", "name_resolution", 1),
    ("class_cell", "class A:\n    def f(self):\n        return __class__\n", "name_resolution", 3),
    ("rebind_name", "__name__ = 'other'\n", "attribute_access", 1),
    ("module_as_value", "import json\nm = json\n", "name_resolution", 2),
    ("module_in_fstring", "import math\ns = f'{math}'\n", "name_resolution", 2),
    # names that come from nowhere
    ("undefined_global", "def f():\n    return sys.modules\n", "name_resolution", 2),
]


@pytest.mark.parametrize(
    ("source", "strategy", "line"),
    [(s, st, ln) for _, s, st, ln in REFUSED],
    ids=[name for name, *_ in REFUSED],
)
def test_refused(source: str, strategy: str, line: int) -> None:
    verdict = validate_source(source, file="c.py")
    assert not verdict.accepted, shown(verdict)
    assert (strategy, line) in {(f.strategy, f.line) for f in verdict.findings}, shown(verdict)


@pytest.mark.parametrize(
    "source", [s for _, s, _, _ in REFUSED], ids=[name for name, *_ in REFUSED]
)
def test_permissive_reports_the_same_and_accepts(source: str) -> None:
    strict = validate_source(source, file="c.py", policy="default")
    lenient = validate_source(source, file="c.py", policy="permissive")
    assert lenient.accepted and not lenient.enforced
    assert [(f.strategy, f.line, f.column) for f in lenient.findings] == [
        (f.strategy, f.line, f.column) for f in strict.findings
    ]


def test_messages_say_what_was_refused_and_why() -> None:
    verdict = check(
        """
        import functools

        def f(s, w):
            functools.update_wrapper(s, w, assigned=('__glo' + 'bals__',))
        """
    )
    [finding] = verdict.by_strategy("attribute_access")
    assert "functools.update_wrapper" in finding.message
    assert "assigned" in finding.message and "literal" in finding.message
    assert (finding.file, finding.line, finding.column) == ("c.py", 4, 5)
    file_finding = check("x = __file__\n").by_strategy("name_resolution")[0]
    assert "__file__" in file_finding.message and "where it runs" in file_finding.message
    hook = check("class A:\n    def __setattr__(self, n, v):\n        pass\n")
    assert any("update_wrapper" in f.message for f in hook.findings), shown(hook)


def test_a_local_module_cannot_be_used_as_a_value(tmp_path: Path) -> None:
    pkg = tmp_path / "cand"
    pkg.mkdir()
    (pkg / "main.py").write_text("import helpers\nWHERE = repr(helpers)\n")
    (pkg / "helpers.py").write_text("def g(x):\n    return x\n")
    verdict = validate_path(pkg)
    assert not verdict.accepted
    assert {(f.strategy, f.line) for f in verdict.findings} == {("name_resolution", 2)}


def test_a_local_module_attribute_cannot_be_rebound(tmp_path: Path) -> None:
    pkg = tmp_path / "cand"
    pkg.mkdir()
    (pkg / "main.py").write_text("import helpers\nhelpers.LIMIT = 3\n")
    (pkg / "helpers.py").write_text("LIMIT = 1\n")
    verdict = validate_path(pkg)
    assert ("attribute_access", 2) in {(f.strategy, f.line) for f in verdict.findings}


def test_importing_a_missing_name_from_a_local_module_is_refused(tmp_path: Path) -> None:
    # the ImportError message names the module's file: where the candidate runs
    pkg = tmp_path / "cand"
    pkg.mkdir()
    (pkg / "main.py").write_text("try:\n    from helpers import nothing\nexcept ImportError:\n"
                                 "    pass\n")
    (pkg / "helpers.py").write_text("def g(x):\n    return x\n")
    verdict = validate_path(pkg)
    assert ("import_policy", 2) in {(f.strategy, f.line) for f in verdict.findings}


def test_type_aliases_are_followed_into_sibling_modules(tmp_path: Path) -> None:
    pkg = tmp_path / "cand"
    pkg.mkdir()
    (pkg / "hints.py").write_text("HINT = 'in' + 't'\nclass Model:\n    pass\nALIAS = 'Model'\n")
    (pkg / "main.py").write_text(
        "import functools\nfrom hints import HINT, Model, ALIAS\nimport hints\n"
        "@functools.singledispatch\ndef d(v):\n    return v\n"
        "@d.register\ndef _(v: HINT):\n    return v\n"
        "def g(m: Model, a: ALIAS, b: hints.Model) -> 'hints.Model':\n    return m\n"
    )
    verdict = validate_path(pkg)
    assert {(f.strategy, f.line) for f in verdict.findings} == {("recursive_control", 8)}, (
        shown(verdict)
    )


def test_the_syntax_forms_are_an_allow_list(tmp_path: Path) -> None:
    data = load_policy("default").model_dump(mode="json")
    data["name"] = "no-lambdas"
    data["syntax"] = [kind for kind in data["syntax"] if kind != "Lambda"]
    path = tmp_path / "no_lambdas.json"
    path.write_text(json.dumps(data))
    verdict = validate_source("f = lambda: 1\n", policy=str(path))
    assert [(f.strategy, f.line) for f in verdict.findings] == [("ast_structure", 1)]
    assert "Lambda" in verdict.findings[0].message


def test_the_builtins_are_an_allow_list(tmp_path: Path) -> None:
    data = load_policy("default").model_dump(mode="json")
    data["name"] = "no-memoryview"
    data["allowed_builtins"] = [b for b in data["allowed_builtins"] if b != "memoryview"]
    path = tmp_path / "no_memoryview.json"
    path.write_text(json.dumps(data))
    verdict = validate_source("m = memoryview(b'ab')\n", policy=str(path))
    assert [(f.strategy, f.line) for f in verdict.findings] == [("builtin_policy", 1)]
    assert validate_source("m = memoryview(b'ab')\n").accepted


def test_every_metaclass_of_an_allowed_module_is_a_class_builder() -> None:
    import importlib

    from derivative.forge.posture._scope import public_api

    policy = load_policy("default")
    for module, rule in policy.modules.items():
        names = rule.allow if rule.allow is not None else (public_api(module) or frozenset())
        mod = importlib.import_module(module)
        for name in sorted(set(names) - set(rule.deny)):
            obj = getattr(mod, name, None)
            if isinstance(obj, type) and issubclass(obj, type):
                assert f"{module}.{name}" in policy.class_builders, (module, name)


def test_every_builtin_is_allowed_or_forbidden_by_name() -> None:
    import builtins

    policy = load_policy("default")
    for name in dir(builtins):
        # "_" appears in builtins once anything used sys.displayhook (a doctest, say)
        if name.startswith("__") or name in ("True", "False", "None", "_"):
            continue
        assert (name in policy.allowed_builtins) != (name in policy.forbidden_builtins), name


# --------------------------------------------------------------------------- ordinary code

ACCEPTED: list[tuple[str, str]] = [
    (
        "dataclasses",
        """
        from dataclasses import dataclass, field, replace, asdict

        @dataclass(frozen=True, order=True)
        class Money:
            cents: int
            currency: str = "EUR"
            tags: list[str] = field(default_factory=list)

            def __post_init__(self) -> None:
                object.__setattr__(self, "cents", int(self.cents))

        def bump(m: Money) -> Money:
            return replace(m, cents=m.cents + 1)

        def as_dict(m: Money) -> dict[str, object]:
            return asdict(m)
        """,
    ),
    (
        "enums",
        """
        import enum
        from enum import Enum, IntEnum, auto, unique

        @unique
        class Color(Enum):
            RED = auto()
            GREEN = auto()

            @classmethod
            def _missing_(cls, value: object) -> "Color":
                return cls.RED

        class Level(IntEnum):
            LOW = 1
            HIGH = 2

        Shape = Enum("Shape", "CIRCLE SQUARE")
        Size = enum.Enum("Size", ["S", "M"])
        names = [c.name for c in Color] + list(Level.__members__)
        """,
    ),
    (
        "wraps_and_caches",
        """
        import functools

        def logged(fn):
            @functools.wraps(fn)
            def wrapper(*args, **kwargs):
                return fn(*args, **kwargs)
            return wrapper

        @functools.lru_cache(maxsize=None)
        def fib(n: int) -> int:
            return n if n < 2 else fib(n - 1) + fib(n - 2)

        @functools.cache
        def square(n: int) -> int:
            return n * n

        part = functools.partial(int, base=2)
        total = functools.reduce(lambda a, b: a + b, [1, 2, 3])
        """,
    ),
    (
        "locks",
        """
        import threading

        class Counter:
            def __init__(self) -> None:
                self._lock = threading.Lock()
                self._n = 0

            def bump(self) -> int:
                with self._lock:
                    self._n += 1
                    return self._n
        """,
    ),
    (
        "forward_references",
        """
        from __future__ import annotations

        from dataclasses import dataclass
        from typing import Generic, Optional, TypeVar, Callable, ClassVar, Annotated, Literal

        T = TypeVar("T", bound="Node")
        Handler = Callable[[int, str], "list[Node] | None"]

        @dataclass
        class Node:
            value: int
            children: "list[Node] | None" = None
            parent: Optional["Node"] = None
            kind: ClassVar[str] = "node"
            mode: Literal["a", "b"] = "a"
            weight: Annotated[float, "kilograms"] = 0.0

            def first(self) -> "Node | None":
                return self.children[0] if self.children else None

        class Box(Generic[T]):
            def __init__(self, item: T) -> None:
                self.item = item

        def walk(n: Node, visit: Handler) -> list[Node]:
            return [n]
        """,
    ),
    (
        "string_forward_references_without_future",
        """
        from typing import Optional

        class Node:
            def __init__(self, nxt: "Optional[Node]" = None) -> None:
                self.nxt = nxt

            def last(self) -> "Node":
                return self if self.nxt is None else self.nxt.last()

        def chain(n: "list[Node] | None") -> int:
            return len(n or [])
        """,
    ),
    (
        "named_tuples_and_protocols",
        """
        from collections import namedtuple
        from typing import NamedTuple, Protocol, runtime_checkable

        Point = namedtuple("Point", "x y")
        Pair = namedtuple("Pair", ["left", "right"])
        origin = Point._make([0, 0])._replace(x=1)._asdict()

        class Span(NamedTuple):
            start: int
            end: int

        class Vec(namedtuple("Vec", "dx dy")):
            def length(self) -> float:
                return (self.dx ** 2 + self.dy ** 2) ** 0.5

        @runtime_checkable
        class Sized(Protocol):
            def size(self) -> int: ...

        def area(p: Point, s: Span) -> int:
            return p.x * p.y + s.end - s.start
        """,
    ),
    (
        "data_model",
        """
        import abc

        class Shape(abc.ABC):
            @abc.abstractmethod
            def area(self) -> float: ...

        class Base(metaclass=abc.ABCMeta):
            pass

        class Money:
            __slots__ = ("cents",)
            __match_args__ = ("cents",)

            def __init__(self, cents: int) -> None:
                self.cents = cents

            def __eq__(self, other: object) -> bool:
                return isinstance(other, Money) and other.cents == self.cents

            def __hash__(self) -> int:
                return hash((type(self), self.cents))

            def __repr__(self) -> str:
                return f"{type(self).__name__}({self.cents})"

            def __lt__(self, other: "Money") -> bool:
                return self.cents < other.cents

            def __add__(self, other: "Money") -> "Money":
                return type(self)(self.cents + other.cents)

            def __format__(self, spec: str) -> str:
                return format(self.cents / 100, spec)

            @property
            def euros(self) -> float:
                return self.cents / 100

            @staticmethod
            def zero() -> "Money":
                return Money(0)

            @classmethod
            def of(cls, cents: int) -> "Money":
                return cls(cents)

        class Frozen:
            __hash__ = None

        class Pretty(Money):
            def __init__(self, cents: int) -> None:
                super().__init__(cents)
                super().__setattr__("cents", cents)

        def same_kind(a: object, b: object) -> bool:
            return type(a) is type(b) and isinstance(a, type(b)) and not isinstance(a, type)
        """,
    ),
    (
        "pattern_matching",
        """
        from dataclasses import dataclass

        @dataclass
        class Point:
            x: int
            y: int

        def where(p: object) -> str:
            match p:
                case Point(0, y):
                    return f"on the y axis at {y}"
                case Point(x=0):
                    return "x is zero"
                case int(n) | float(n):
                    return str(n)
                case {"x": x, **rest}:
                    return str(x) + str(rest)
                case [a, b, *more]:
                    return str(a + b + len(more))
                case _:
                    return "elsewhere"
        """,
    ),
    (
        "singledispatch",
        """
        import functools

        @functools.singledispatch
        def describe(value: object) -> str:
            return "value"

        @describe.register
        def _(value: int) -> str:
            return "int"

        @describe.register(str)
        def _describe_str(value: str) -> str:
            return "str"
        """,
    ),
    (
        "formatting",
        """
        def table(rows: list[tuple[str, float]]) -> str:
            line = "{:<10}|{:>8.2f}".format
            heading = "{name:^10}".format_map({"name": "total"})
            cells = ", ".join(map("{:.2f}".format, [v for _, v in rows]))
            return "\\n".join([heading, cells] + [line(n, v) for n, v in rows])
        """,
    ),
    (
        "module_names",
        """
        __all__ = ["main"]
        __version__ = "1.0"

        def main() -> str:
            return __name__ + (__doc__ or "")

        class A:
            label = __qualname__ + __module__

        if __name__ == "__main__":
            print(main())
        """,
    ),
    (
        "getattr_with_literal_names",
        """
        import operator

        def size(o: object) -> int:
            if hasattr(o, "size"):
                return getattr(o, "size", 0)
            return 0

        by_name = operator.attrgetter("name", "owner.id")
        strip = operator.methodcaller("strip")
        """,
    ),
]


@pytest.mark.parametrize("source", [s for _, s in ACCEPTED], ids=[name for name, _ in ACCEPTED])
def test_ordinary_code_stays_accepted(source: str) -> None:
    verdict = check(source)
    assert verdict.findings == (), shown(verdict)
    assert verdict.accepted


# --------------------------------------------------------------------------- the corpus

NOT_CANDIDATES = {
    "examples/contracts/good/cli.py": "a command-line wrapper (argparse, sys)",
    "examples/contracts/wrong/cli.py": "a command-line wrapper (argparse, sys)",
    "examples/contracts/good/tests/test_cli.py": "the example's own tests (os, tempfile)",
    "examples/contracts/wrong/tests/test_cli.py": "the example's own tests (os, tempfile)",
    "examples/generators/openai_chat.py": "a generator script that calls a model (os, sys)",
    "examples/generators/scripted.py": "a generator script (os, shutil, sys)",
}
"""Python files of examples/ that are tools around candidates, not candidates."""


def _candidates() -> list[str]:
    files = sorted(
        p.relative_to(ROOT).as_posix()
        for pattern in ("tests/corpus/*/*.py", "examples/**/*.py")
        for p in ROOT.glob(pattern)
    )
    return [f for f in files if f not in NOT_CANDIDATES]


def test_the_tool_scripts_listed_exist() -> None:
    for rel in NOT_CANDIDATES:
        assert (ROOT / rel).is_file(), rel
    assert len(_candidates()) >= 60


@pytest.mark.parametrize("rel", _candidates())
def test_every_corpus_and_example_candidate_is_accepted(rel: str) -> None:
    verdict = validate_path(ROOT / rel, "default")
    assert verdict.accepted and verdict.findings == (), shown(verdict)
