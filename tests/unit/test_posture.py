"""The static posture validator: each strategy refuses what it should and only that.

Every escape case names the strategy and the line that must be reported; every
ordinary case (business logic a candidate legitimately writes) must be accepted by
the default policy with no finding at all.  A refusal is a returned verdict; only
malformed requests raise ``UsageError``.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from derivative._errors import UsageError
from derivative.forge.posture._policy import Limits, Policy, available_policies
from derivative.forge.posture._validate import (
    STRATEGIES,
    PostureVerdict,
    load_policy,
    validate_path,
    validate_source,
)


def check(source: str, policy: str = "default") -> PostureVerdict:
    return validate_source(textwrap.dedent(source).lstrip("\n"), file="c.py", policy=policy)


def hits(verdict: PostureVerdict) -> set[tuple[str, int]]:
    return {(f.strategy, f.line) for f in verdict.findings}


# --------------------------------------------------------------------------- ordinary code

PASSWORD_CHECKER = '''
"""A password checker: ordinary business logic with re and a frozen dataclass."""
from __future__ import annotations

import re
import string
from dataclasses import dataclass, field

_UPPER = re.compile(r"[A-Z]")
SPECIALS = frozenset(string.punctuation)


class WeakPassword(ValueError):
    """Raised for a password that breaks the policy (mentions __subclasses__ harmlessly)."""


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reasons: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "reasons", tuple(self.reasons))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.ok}, {self.reasons})"


def check_password(pw: str, min_length: int = 12) -> Verdict:
    if not isinstance(pw, str):
        raise TypeError("pw must be a string")
    reasons = []
    if len(pw) < min_length:
        reasons.append("shorter than {} characters".format(min_length))
    if not _UPPER.search(pw):
        reasons.append("no upper-case letter")
    if not any(c in SPECIALS for c in pw):
        reasons.append("no special character")
    if re.fullmatch(r"[0-9]+", pw):
        reasons.append("digits only")
    return Verdict(not reasons, tuple(reasons))


def require_strong(pw: str) -> None:
    verdict = check_password(pw)
    if not verdict.ok:
        raise WeakPassword("; ".join(verdict.reasons))


if __name__ == "__main__":
    print(check_password("Tr0ub4dor&3xyz"))
'''

DATE_CALCULATOR = '''
"""A date calculator: datetime, decimal, fractions, functools, enum, collections."""
import datetime as dt
import enum
import functools
import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Literal, NamedTuple, Optional


class Unit(enum.Enum):
    DAYS = "days"
    WEEKS = "weeks"


class Span(NamedTuple):
    start: date
    end: date


WEEKEND = frozenset({5, 6})


def add_business_days(start: date, n: int) -> date:
    step = timedelta(days=1 if n >= 0 else -1)
    day, remaining = start, abs(n)
    while remaining:
        day += step
        if day.weekday() not in WEEKEND:
            remaining -= 1
    return day


def days_between(a: str, b: str, unit: Unit = Unit.DAYS) -> Fraction:
    days = (dt.date.fromisoformat(b) - dt.date.fromisoformat(a)).days
    return Fraction(days, 7) if unit is Unit.WEEKS else Fraction(days)


@functools.lru_cache(maxsize=128)
def interest(principal: Decimal, rate: Decimal, years: int) -> Decimal:
    amount = principal * (1 + rate) ** years
    return amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def busiest(days: Iterable[date]) -> Optional[int]:
    counts = Counter(d.weekday() for d in days)
    return max(counts, key=counts.__getitem__) if counts else None


def by_month(days: Iterable[date]) -> Mapping[int, list[date]]:
    out: defaultdict[int, list[date]] = defaultdict(list)
    for key, group in itertools.groupby(sorted(days), key=lambda d: d.month):
        out[key].extend(group)
    return out


def label(kind: "Literal['start', 'end']") -> str:
    return f"{kind:>8}|{math.pi:.2f}|{Unit.DAYS.__members__ if False else ''}"
'''

TOKEN_STORE = '''
"""A thread-safe token store: a dataclass with a threading.Lock."""
from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field


class TokenExpired(Exception):
    pass


@dataclass
class TokenStore:
    ttl: float = 60.0
    _tokens: dict[str, float] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _changed: threading.Condition = field(
        default_factory=lambda: threading.Condition(threading.RLock())
    )

    def __init__(self, ttl: float = 60.0) -> None:
        self.ttl = ttl
        self._tokens = {}
        self._lock = threading.Lock()
        self._slots = threading.Semaphore(3)

    def issue(self) -> str:
        token = secrets.token_hex(16)
        with self._lock:
            self._tokens[token] = time.monotonic() + self.ttl
        return token

    def check(self, token: str) -> bool:
        with self._lock:
            expires = self._tokens.get(token)
            if expires is None:
                return False
            if expires < time.monotonic():
                del self._tokens[token]
                raise TokenExpired(token)
            return True

    def digest(self, token: str) -> str:
        return hmac.new(b"k", token.encode(), hashlib.sha256).hexdigest()

    def __len__(self) -> int:
        with self._lock:
            return len(self._tokens)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TokenStore) and self._tokens == other._tokens

    def __hash__(self) -> int:
        return id(self)

    def __lt__(self, other: TokenStore) -> bool:
        return len(self) < len(other)

    def __contains__(self, token: str) -> bool:
        return self.check(token)
'''


@pytest.mark.parametrize(
    "source",
    [PASSWORD_CHECKER, DATE_CALCULATOR, TOKEN_STORE],
    ids=["password_checker", "date_calculator", "token_store"],
)
def test_ordinary_business_logic_is_accepted(source: str) -> None:
    verdict = check(source)
    assert verdict.findings == (), [f.render() for f in verdict.findings]
    assert verdict.accepted and verdict.enforced and verdict.policy == "default"


@pytest.mark.parametrize(
    "source",
    [
        # ordinary dunder definitions and calls
        "class A:\n    def __init__(self):\n        super().__init__()\n"
        "    def __eq__(self, o): return self is o\n    def __hash__(self): return 1\n"
        "    def __repr__(self): return type(self).__name__\n"
        "    def __lt__(self, o): return False\n",
        "import enum\nclass C(enum.Enum):\n    A = 1\nnames = list(C.__members__)\n",
        # a function-local binding hides a builtin name
        "def f(p):\n    open = lambda q: q\n    return open(p)\n",
        "def f(xs):\n    return [eval for eval in xs]\n",
        # library functions whose names look like forbidden builtins
        "import re\nPAT = re.compile('a+')\n",
        "import operator\nkey = operator.attrgetter('name', 'owner.id')\n"
        "call = operator.methodcaller('strip')\n",
        "x = '{:>10}|{0}'.format(3)\ny = f'{x!r:>12}'\nz = '%(a)s' % {'a': 1}\n",
        "def f(o):\n    return getattr(o, 'size', None), hasattr(o, 'name')\n",
        "from __future__ import annotations\nimport collections.abc\n"
        "from collections import abc\nfrom collections.abc import Mapping\n"
        "def f(m: 'Mapping[str, int]') -> 'list[int]':\n    return list(m.values())\n",
        "from typing import Literal\nMode = Literal['read only', 'a label: not code']\n",
        "print(memoryview(b'ab').tobytes(), type(3), id(4))\n",
        "if __name__ == '__main__':\n    print('hi')\n",
        "from dataclasses import dataclass, fields, asdict\n"
        "@dataclass(frozen=True)\nclass P:\n    x: int\n"
        "    def __post_init__(self):\n        object.__setattr__(self, 'x', int(self.x))\n",
        "import types\nns = types.SimpleNamespace(a=1)\n",
        "def f():\n    global counter\n    counter = 1\n",
    ],
)
def test_ordinary_constructs_are_accepted(source: str) -> None:
    verdict = check(source)
    assert verdict.accepted, [f.render() for f in verdict.findings]
    assert verdict.findings == ()


# --------------------------------------------------------------------------- each strategy

ESCAPES: list[tuple[str, str, str, int]] = [
    # (id, source, strategy, line)
    # ast_structure
    ("syntax_error", "x = 1\ndef f(:\n", "ast_structure", 2),
    ("return_outside_function", "x = 1\nreturn x\n", "ast_structure", 2),
    ("global_builtins", "def f():\n    global __builtins__\n    return 1\n", "ast_structure", 2),
    (
        "nonlocal_dunder",
        "def f():\n    __x__ = 1\n    def g():\n        nonlocal __x__\n",
        "ast_structure",
        4,
    ),
    ("null_byte", "x = 1\0\n", "ast_structure", 0),
    # import_policy
    ("import_os", "import math\nimport os\n", "import_policy", 2),
    ("from_os", "from os import path\n", "import_policy", 1),
    ("submodule_not_listed", "import json.decoder\n", "import_policy", 1),
    ("relative", "from . import helper\n", "import_policy", 1),
    ("wildcard", "from math import *\n", "import_policy", 1),
    ("dunder_import", "m = __import__('o' + 's')\n", "import_policy", 1),
    ("thread", "import threading\nt = threading.Thread(target=print)\n", "import_policy", 2),
    ("from_thread", "from threading import Thread\n", "import_policy", 1),
    ("private_member", "import random\nr = random._os\n", "import_policy", 2),
    ("module_of_allowed_module", "import typing\ns = typing.sys\n", "import_policy", 2),
    ("sleep", "import time\ntime.sleep(1)\n", "import_policy", 2),
    ("subprocess", "import subprocess\n", "import_policy", 1),
    ("socket_in_function", "def f():\n    import socket\n", "import_policy", 2),
    # builtin_policy
    ("eval", "x = eval('1')\n", "builtin_policy", 1),
    ("exec", "exec('x = 1')\n", "builtin_policy", 1),
    ("compile", "c = compile('1', 'f', 'eval')\n", "builtin_policy", 1),
    ("open", "def f(p):\n    return open(p).read()\n", "builtin_policy", 2),
    ("input", "x = input()\n", "builtin_policy", 1),
    ("breakpoint", "breakpoint()\n", "builtin_policy", 1),
    ("globals", "g = globals()\n", "builtin_policy", 1),
    ("locals", "def f():\n    return locals()\n", "builtin_policy", 2),
    ("vars", "v = vars()\n", "builtin_policy", 1),
    ("dir", "d = dir(object)\n", "builtin_policy", 1),
    ("help", "help(len)\n", "builtin_policy", 1),
    ("exit", "exit(0)\n", "builtin_policy", 1),
    ("system_exit", "def f():\n    raise SystemExit(1)\n", "builtin_policy", 2),
    ("getattr_computed", "def f(o, n):\n    return getattr(o, n)\n", "builtin_policy", 2),
    ("getattr_built", "x = getattr(object, '__sub' + 'classes__')\n", "builtin_policy", 1),
    ("setattr_computed", "def f(o, n):\n    setattr(o, n, 1)\n", "builtin_policy", 2),
    ("delattr_computed", "def f(o, n):\n    delattr(o, n)\n", "builtin_policy", 2),
    (
        "getattr_as_value",
        "import functools\nf = functools.partial(getattr, object)\n",
        "builtin_policy",
        2,
    ),
    (
        "module_binding_does_not_hide_builtin",
        "if False:\n    eval = None\neval('1')\n",
        "builtin_policy",
        3,
    ),
    (
        "class_binding_does_not_hide_builtin",
        "class A:\n    open = 1\n    x = open('f')\n",
        "builtin_policy",
        3,
    ),
    # attribute_access
    ("subclasses", "x = object.__subclasses__()\n", "attribute_access", 1),
    ("globals_attr", "def f(g):\n    return g.__globals__\n", "attribute_access", 2),
    ("builtins_attr", "def f(g):\n    return g.__builtins__\n", "attribute_access", 2),
    ("code", "c = (lambda: 0).__code__\n", "attribute_access", 1),
    ("class", "c = ().__class__\n", "attribute_access", 1),
    ("mro", "m = int.__mro__\n", "attribute_access", 1),
    ("bases", "b = int.__bases__\n", "attribute_access", 1),
    ("dict", "def f(o):\n    return o.__dict__\n", "attribute_access", 2),
    (
        "getattribute",
        "def f(o, n):\n    return object.__getattribute__(o, n)\n",
        "attribute_access",
        2,
    ),
    ("unknown_dunder", "def f(o):\n    return o.__weird__\n", "attribute_access", 2),
    ("f_back", "def f(fr):\n    return fr.f_back\n", "attribute_access", 2),
    ("gi_frame", "g = (i for i in ()).gi_frame\n", "attribute_access", 1),
    ("tb_frame", "def f(e):\n    return e.__traceback__.tb_frame\n", "attribute_access", 2),
    ("getattr_literal_dunder", "x = getattr(len, '__self__')\n", "attribute_access", 1),
    (
        "setattr_literal_dunder",
        "def f(o, k):\n    setattr(o, '__class__', k)\n",
        "attribute_access",
        2,
    ),
    ("assign_dunder", "def f(o):\n    o.__eq__ = None\n", "attribute_access", 2),
    ("patch_shared_module", "import json\njson.dumps = repr\n", "attribute_access", 2),
    ("setattr_shared_module", "import json\nsetattr(json, 'loads', repr)\n", "attribute_access", 2),
    ("del_shared_module", "import json\ndel json.loads\n", "attribute_access", 2),
    (
        "format_literal_field",
        "from fractions import Fraction\ns = '{0.__new__.__globals__}'.format(Fraction)\n",
        "attribute_access",
        2,
    ),
    ("format_computed", "def f(t, o):\n    return t.format(o)\n", "attribute_access", 2),
    ("format_map_computed", "def f(t, o):\n    return t.format_map(o)\n", "attribute_access", 2),
    (
        "match_class_attr",
        "def f(fn):\n    match fn:\n        case object(__globals__=g):\n            return g\n",
        "attribute_access",
        3,
    ),
    (
        "attrgetter_dunder",
        "import operator\ng = operator.attrgetter('a.__class__')\n",
        "attribute_access",
        2,
    ),
    (
        "attrgetter_computed",
        "import operator\ndef f(n):\n    return operator.attrgetter(n)\n",
        "attribute_access",
        3,
    ),
    ("methodcaller_value", "import operator\nm = operator.methodcaller\n", "attribute_access", 2),
    ("string_mentions_dunder", "NAME = '__subclasses__'\n", "attribute_access", 1),
    (
        "dunder_setattr_computed",
        "def f(o, n):\n    object.__setattr__(o, n, 1)\n",
        "attribute_access",
        2,
    ),
    # name_resolution
    ("eval_alias", "e = eval\ndef f(s):\n    return e(s)\n", "name_resolution", 3),
    ("alias_chain", "a = exec\nb = a\nb('x = 1')\n", "name_resolution", 3),
    ("tuple_alias", "a, b = print, eval\nb('1')\n", "name_resolution", 2),
    ("default_alias", "def f(s, run=eval):\n    return run(s)\n", "name_resolution", 2),
    ("walrus_alias", "if (g := globals):\n    g()\n", "name_resolution", 2),
    ("loop_alias", "for fn in (open, print):\n    fn('x')\n", "name_resolution", 2),
    ("builtins_name", "b = __builtins__\n", "name_resolution", 1),
    ("builtins_alias_use", "b = __builtins__\nb['eval']('1')\n", "name_resolution", 2),
    ("builtins_subscript_alias", "e = __builtins__['eval']\ne('1')\n", "name_resolution", 2),
    ("from_builtins_alias", "from builtins import open as o\no('f')\n", "name_resolution", 2),
    ("loader", "x = __loader__\n", "name_resolution", 1),
    (
        "forbidden_member_use",
        "from threading import Timer\nt = Timer(1, print)\n",
        "name_resolution",
        2,
    ),
    ("forbidden_module_use", "import os\ndef f():\n    return os.getcwd()\n", "name_resolution", 3),
    (
        "global_redirect",
        "e = eval\ndef f():\n    global e\n    return e('1')\n",
        "name_resolution",
        4,
    ),
    # reflection
    ("inspect", "import inspect\n", "reflection", 1),
    ("importlib_alias", "import importlib as il\nm = il.import_module('os')\n", "reflection", 2),
    ("importlib_util", "from importlib import util\n", "reflection", 1),
    ("builtins_module", "import builtins as b\nb.print('x')\n", "reflection", 2),
    ("sys", "import sys\nm = sys.modules\n", "reflection", 2),
    ("gc", "import gc\nobjs = gc.get_objects()\n", "reflection", 2),
    ("ctypes", "import ctypes\n", "reflection", 1),
    ("function_type", "import types\nF = types.FunctionType\n", "reflection", 2),
    ("code_type_from", "from types import CodeType\n", "reflection", 1),
    ("main_module", "import __main__\n", "reflection", 1),
    ("settrace", "import threading\nthreading.settrace(print)\n", "reflection", 2),
    # recursive_control
    ("exec_built", "def f(s):\n    exec('x = ' + s)\n", "recursive_control", 2),
    ("eval_built", "def f(s):\n    return eval(s)\n", "recursive_control", 2),
    ("compile_built", "def f(s):\n    return compile(s, 'f', 'exec')\n", "recursive_control", 2),
    ("exec_literal_inner", "exec('import os')\n", "import_policy", 1),
    ("type_three_args", "C = type('C', (), {})\n", "recursive_control", 1),
    ("pickle", "import pickle\nx = pickle.loads(b'')\n", "recursive_control", 2),
    ("marshal", "import marshal\n", "recursive_control", 1),
    ("codecs", "import codecs\n", "recursive_control", 1),
    ("get_type_hints", "import typing\nh = typing.get_type_hints(print)\n", "recursive_control", 2),
    ("make_dataclass", "from dataclasses import make_dataclass\n", "recursive_control", 1),
    ("coding_cookie", "# -*- coding: unicode_escape -*-\nx = 1\n", "recursive_control", 1),
    (
        "string_annotation",
        "def f(x: \"__import__('os')\") -> int:\n    return 1\n",
        "import_policy",
        1,
    ),
]


@pytest.mark.parametrize(
    ("source", "strategy", "line"),
    [(s, st_, ln) for _, s, st_, ln in ESCAPES],
    ids=[name for name, *_ in ESCAPES],
)
def test_escape_is_refused_by_the_right_strategy_at_the_right_line(
    source: str, strategy: str, line: int
) -> None:
    verdict = validate_source(source, file="c.py")
    assert not verdict.accepted
    assert (strategy, line) in hits(verdict), [f.render() for f in verdict.findings]


def test_every_strategy_is_exercised_by_the_escape_table() -> None:
    assert {strategy for _, _, strategy, _ in ESCAPES} == set(STRATEGIES)


def test_aliases_are_reported_at_their_use_not_only_at_their_binding() -> None:
    verdict = check(
        """
        import importlib as il
        run = eval

        def later(name, code):
            mod = il.import_module(name)
            return run(code)
        """
    )
    assert ("reflection", 1) in hits(verdict)
    assert ("builtin_policy", 2) in hits(verdict)
    assert ("reflection", 5) in hits(verdict)
    assert ("name_resolution", 6) in hits(verdict)
    assert ("recursive_control", 6) in hits(verdict)
    message = next(f.message for f in verdict.findings if f.line == 6 and "builtin" in f.message)
    assert "run is the builtin eval (bound at line 2)" in message


def test_a_module_level_rebinding_is_named_in_the_finding() -> None:
    verdict = check("from re import compile\nPAT = compile('a')\n")
    [finding] = verdict.by_strategy("builtin_policy")
    assert finding.line == 2 and "line 1" in finding.message and "another name" in finding.message


def test_code_in_an_exec_literal_is_validated_recursively() -> None:
    verdict = check("exec('x = 1\\nimport socket')\n")
    inner = [f for f in verdict.findings if "in the code that exec runs" in f.message]
    assert inner and inner[0].strategy == "import_policy"
    assert "its line 2" in inner[0].message and "socket" in inner[0].message


def test_string_annotations_are_code() -> None:
    source = (
        "import functools\n@functools.singledispatch\ndef d(v): return v\n"
        "@d.register\ndef _(v: \"__import__('os')\"): return v\n"
    )
    verdict = check(source)
    assert any("string annotation" in f.message for f in verdict.findings)
    assert ("import_policy", 5) in hits(verdict)


def test_hidden_code_behind_an_encoding_cookie_is_seen_from_bytes() -> None:
    data = b"# coding: unicode_escape\nx = 1\n# note \\u000aimport os\n"
    verdict = validate_source(data, file="c.py")
    assert ("recursive_control", 1) in hits(verdict)
    assert ("import_policy", 4) in hits(verdict), "the hidden import must be found"


def test_columns_are_characters_not_bytes() -> None:
    verdict = check("s = 'ééé'; x = eval(s)\n")
    [finding] = verdict.by_strategy("builtin_policy")
    assert finding.column == 16


def test_attribute_findings_point_at_the_attribute() -> None:
    verdict = check("x = ().__class__.__mro__\n")
    columns = {f.message.split(":")[0]: f.column for f in verdict.findings}
    assert columns == {"__class__": 8, "__mro__": 18}


def test_findings_render_as_file_line_column_strategy_message() -> None:
    verdict = check("import os\n")
    assert verdict.findings[0].render() == (
        "c.py:1:8: import_policy: module os is not in the allow-list of policy default"
    )


# --------------------------------------------------------------------------- limits


def _with_limits(**limits: int) -> Policy:
    base = load_policy("default")
    return base.model_copy(update={"limits": Limits(**limits)})


def test_deep_nesting_is_refused_not_crashed() -> None:
    deep = "x = " + "-" * 300 + "1\n"
    verdict = check(deep)
    assert verdict.by_strategy("ast_structure")
    chain = "x = " + " + ".join(["1"] * 2000) + "\n"
    assert validate_source(chain).by_strategy("ast_structure")


def test_size_limits_come_from_the_policy() -> None:
    policy = _with_limits(max_source_bytes=50, max_constant_bytes=5)
    assert validate_source("x = 1\n" * 20, policy=policy).by_strategy("ast_structure")
    verdict = validate_source("x = 'abcdefgh'\n", policy=policy)
    assert [f.line for f in verdict.by_strategy("ast_structure")] == [1]
    assert validate_source("x = 'abc'\n", policy=policy).accepted


def test_exec_nesting_is_followed_only_as_deep_as_the_policy_says() -> None:
    source = "exec(\"exec('exec(\\\\'import os\\\\')')\")\n"
    shallow = validate_source(source, policy=_with_limits(max_exec_nesting=0))
    assert any("deeper than the policy follows" in f.message for f in shallow.findings)
    deep = validate_source(source, policy=_with_limits(max_exec_nesting=3))
    assert any("module os" in f.message for f in deep.findings)


@given(st.text(max_size=200).filter(lambda s: s.strip() != ""))
def test_any_text_gives_a_verdict_never_an_exception(text: str) -> None:
    verdict = validate_source(text)
    assert isinstance(verdict, PostureVerdict)
    assert verdict.accepted == (not verdict.findings)


# --------------------------------------------------------------------------- policies


def test_permissive_reports_the_same_findings_and_accepts() -> None:
    source = "import os\ne = eval\nx = ().__class__\n"
    strict = validate_source(source, policy="default")
    lenient = validate_source(source, policy="permissive")
    assert not strict.accepted and lenient.accepted
    assert not lenient.enforced and lenient.policy == "permissive"
    same = [f.render().replace("policy permissive", "policy default") for f in lenient.findings]
    assert same == [f.render() for f in strict.findings]
    assert lenient.policy_sha256 != strict.policy_sha256


def test_shipped_policies() -> None:
    assert {"default", "permissive"} <= set(available_policies())
    default = load_policy("default")
    for module in (
        "math",
        "re",
        "datetime",
        "decimal",
        "fractions",
        "collections",
        "itertools",
        "functools",
        "dataclasses",
        "enum",
        "typing",
        "csv",
        "json",
        "string",
        "statistics",
        "operator",
        "bisect",
        "heapq",
        "copy",
        "abc",
        "numbers",
        "threading",
    ):
        assert module in default.modules, module
    for module in (
        "os",
        "sys",
        "subprocess",
        "socket",
        "ctypes",
        "importlib",
        "inspect",
        "builtins",
        "gc",
        "signal",
        "multiprocessing",
        "pickle",
        "marshal",
        "shutil",
        "pathlib",
        "io",
        "tempfile",
        "urllib",
        "http",
        "asyncio",
    ):
        assert module not in default.modules, module
    threading_rule = default.modules["threading"]
    assert threading_rule.allow is not None
    assert {"Lock", "RLock", "Condition", "Semaphore"} <= set(threading_rule.allow)
    assert "Thread" not in threading_rule.allow


def test_a_policy_file_can_extend_a_shipped_policy(tmp_path: Path) -> None:
    path = tmp_path / "with_os.json"
    modules = dict(load_policy("default").model_dump(mode="json")["modules"])
    modules["os"] = {}
    path.write_text(json.dumps({"extends": "default", "name": "with-os", "modules": modules}))
    verdict = validate_source("import os\nx = os.getcwd()\n", policy=str(path))
    assert verdict.accepted and verdict.policy == "with-os"
    assert load_policy(path).name == "with-os"


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "one JSON object"),
        ('{"extends": "default", "enforce": "sometimes"}', "enforce"),
        ('{"extends": "default", "surprise": 1}', "surprise"),
        ('{"extends": "no-such-policy"}', "unknown posture policy"),
        ('{"extends": "self.json"}', "cycle"),
    ],
)
def test_bad_policies_are_usage_errors(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "self.json"
    path.write_text(content)
    with pytest.raises(UsageError, match=fragment):
        load_policy(str(path))


def test_unknown_or_missing_policy_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="known policies: default, permissive"):
        validate_source("x = 1\n", policy="strictest")
    with pytest.raises(UsageError, match="no such policy file"):
        load_policy(str(tmp_path / "absent.json"))


# --------------------------------------------------------------------------- requests and verdicts


@pytest.mark.parametrize("source", ["", "   \n\t\n", b"", b"\n\n"])
def test_empty_code_is_a_usage_error(source: str | bytes) -> None:
    with pytest.raises(UsageError, match="empty code"):
        validate_source(source)


def test_missing_paths_and_empty_directories_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such file"):
        validate_path(tmp_path / "absent.py")
    with pytest.raises(UsageError, match="no Python files"):
        validate_path(tmp_path)
    empty = tmp_path / "empty.py"
    empty.write_text("")
    with pytest.raises(UsageError, match="empty code"):
        validate_path(empty)


def test_wrong_source_type_is_a_usage_error() -> None:
    with pytest.raises(UsageError):
        validate_source(42)  # type: ignore[arg-type]


def test_the_verdict_identifies_what_was_validated(tmp_path: Path) -> None:
    path = tmp_path / "cand.py"
    path.write_bytes(b"def f(x):\n    return x + 1\n")
    verdict = validate_path(path)
    import hashlib

    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert verdict.accepted and verdict.sha256 == digest
    assert [(f.path, f.sha256) for f in verdict.files] == [("cand.py", digest)]
    assert verdict.format == "derivative.posture/v1"
    assert verdict.policy_sha256 == load_policy("default").sha256
    again = PostureVerdict.model_validate_json(verdict.model_dump_json())
    assert again == verdict


def test_findings_are_sorted_by_place_then_strategy() -> None:
    verdict = check("x = ().__class__\nimport os\nimport sys\n")
    keys = [f.sort_key() for f in verdict.findings]
    assert keys == sorted(keys)
    assert verdict.findings[0].line == 1


def test_a_package_directory_is_validated_file_by_file(tmp_path: Path) -> None:
    pkg = tmp_path / "cand"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "pricing.py").write_text(
        "import helpers\nfrom sub import rates\ndef f(x):\n    return helpers.g(x) + rates.R\n"
    )
    (pkg / "helpers.py").write_text("def g(x):\n    return x\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "rates.py").write_text("R = 1\n")
    verdict = validate_path(pkg)
    assert verdict.accepted, [f.render() for f in verdict.findings]
    assert [f.path for f in verdict.files] == [
        "helpers.py",
        "pricing.py",
        "sub/__init__.py",
        "sub/rates.py",
    ]
    first = verdict.sha256
    (pkg / "sub" / "rates.py").write_text("import os\nR = 1\n")
    changed = validate_path(pkg)
    assert not changed.accepted and changed.sha256 != first
    [finding] = changed.by_strategy("import_policy")
    assert finding.file == os.path.join(str(pkg), "sub/rates.py") and finding.line == 1


def test_package_refuses_what_would_run_without_being_validated(tmp_path: Path) -> None:
    pkg = tmp_path / "cand"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "main.py").write_text("def f(x):\n    return x + 1\n")
    (pkg / "json.py").write_text("def dumps(o):\n    return ''\n")
    (pkg / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0" * 16)
    (pkg / "fast.so").write_bytes(b"\x7fELF")
    os.symlink(pkg / "main.py", pkg / "link.py")
    verdict = validate_path(pkg)
    messages = " | ".join(f.message for f in verdict.by_strategy("ast_structure"))
    assert not verdict.accepted
    assert "standard-library module" in messages
    assert "compiled code" in messages
    assert "symbolic link" in messages
    assert len(verdict.by_strategy("ast_structure")) == 4


def test_a_single_file_named_like_a_stdlib_module_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "random.py"
    path.write_text("def f(x):\n    return x\n")
    assert validate_path(path).by_strategy("ast_structure")


def test_lines_are_counted_the_way_python_counts_them() -> None:
    # str.splitlines() would also split at the form feed and at U+2028 inside the strings.
    verdict = check('a = "x\x0cy"\nb = "\u2028"\nimport os\n')
    assert [(f.line, f.column) for f in verdict.findings] == [(3, 8)]


def test_rendering_escapes_what_could_drive_a_terminal() -> None:
    from derivative.forge.posture._model import Finding

    finding = Finding(
        strategy="ast_structure", file="a\x1b[2J.py", line=1, column=1, message="m\u2028x"
    )
    assert finding.render() == "a\\x1b[2J.py:1:1: ast_structure: m\\u2028x"


def test_a_changed_policy_has_a_different_digest() -> None:
    base = load_policy("default")
    before = base.sha256
    changed = _with_limits(max_depth=50)
    assert changed.sha256 != before and base.sha256 == before
    assert validate_source("x = 1\n", policy=changed).policy_sha256 == changed.sha256
