"""Z3 objects made once per context for built-ins: recursive list functions, regexes.

``sum``, ``product``, ``min``/``max``, ``sorted``, ``reversed`` and ``occurrences`` over a
list of unknown length
are exact recursive definitions (never approximations); ``matches`` and ``int(s)`` need
Z3 regular expressions.  Each is cached in the context (``_z3util.current().cache``),
so a large spec defines them once.
"""

from __future__ import annotations

import z3

from derivative import _regex

from ._z3util import Unsupported, Z, ctx, current, fresh_name, str_val

# --------------------------------------------------------------------------- recursive functions


def _tail(s: Z) -> Z:
    return z3.SubSeq(s, 1, z3.Length(s) - 1)


def _le(a: Z, b: Z) -> Z:
    return a <= b


def recfun(kind: str, seq_sort: Z, elem_sort: Z) -> Z:
    """An exact recursive definition of a list built-in over ``seq_sort``, made once."""
    cache = current().cache
    key = ("recfun", kind, seq_sort.sexpr())
    if key in cache:
        return cache[key]
    name = fresh_name(kind)
    s = z3.Const("s", seq_sort)
    empty = z3.Length(s) == 0
    if kind == "sum":
        f = z3.RecFunction(name, seq_sort, elem_sort)
        zero = z3.RealVal(0, ctx()) if elem_sort == z3.RealSort(ctx()) else z3.IntVal(0, ctx())
        z3.RecAddDefinition(f, [s], z3.If(empty, zero, s[0] + f(_tail(s))))
    elif kind == "product":
        f = z3.RecFunction(name, seq_sort, elem_sort)
        one = z3.RealVal(1, ctx()) if elem_sort == z3.RealSort(ctx()) else z3.IntVal(1, ctx())
        z3.RecAddDefinition(f, [s], z3.If(empty, one, s[0] * f(_tail(s))))
    elif kind == "reversed":
        f = z3.RecFunction(name, seq_sort, seq_sort)
        z3.RecAddDefinition(
            f, [s], z3.If(empty, z3.Empty(seq_sort), z3.Concat(f(_tail(s)), z3.Unit(s[0])))
        )
    elif kind in ("min", "max"):
        f = z3.RecFunction(name, seq_sort, elem_sort)
        rest = f(_tail(s))
        better = _le(s[0], rest) if kind == "min" else _le(rest, s[0])
        z3.RecAddDefinition(f, [s], z3.If(z3.Length(s) <= 1, s[0], z3.If(better, s[0], rest)))
    elif kind == "occurrences":
        x = z3.Const("x", elem_sort)
        f = z3.RecFunction(name, seq_sort, elem_sort, z3.IntSort(ctx()))
        z3.RecAddDefinition(f, [s, x], z3.If(empty, 0, z3.If(s[0] == x, 1, 0) + f(_tail(s), x)))
    elif kind == "sorted":
        ins = z3.RecFunction(name + "!insert", elem_sort, seq_sort, seq_sort)
        x = z3.Const("x", elem_sort)
        z3.RecAddDefinition(
            ins,
            [x, s],
            z3.If(
                empty,
                z3.Unit(x),
                z3.If(
                    _le(x, s[0]),
                    z3.Concat(z3.Unit(x), s),
                    z3.Concat(z3.Unit(s[0]), ins(x, _tail(s))),
                ),
            ),
        )
        f = z3.RecFunction(name, seq_sort, seq_sort)
        z3.RecAddDefinition(f, [s], z3.If(empty, z3.Empty(seq_sort), ins(s[0], f(_tail(s)))))
    else:  # pragma: no cover - programming error
        raise ValueError(kind)
    cache[key] = f
    return f


# --------------------------------------------------------------------------- regexes


def _complement(ranges: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = max(nxt, hi + 1)
    if nxt <= 0x2FFFF:
        out.append((nxt, 0x2FFFF))
    return tuple(out)


def _char_ranges(ranges: tuple[tuple[int, int], ...]) -> Z:
    re_sort = z3.ReSort(z3.StringSort(ctx()))
    parts = [
        z3.Range(str_val(chr(lo)), str_val(chr(min(hi, 0x2FFFF))))
        for lo, hi in ranges
        if lo <= 0x2FFFF
    ]
    if not parts:
        return z3.Empty(re_sort)
    return parts[0] if len(parts) == 1 else z3.Union(*parts)


def regex_to_z3(node: _regex.RNode) -> Z:
    """The Z3 regular expression of a parsed spec regex (a full match; ``.`` ≠ newline)."""
    if isinstance(node, _regex.REmpty):
        return z3.Re(str_val(""))
    if isinstance(node, _regex.RChar):
        return z3.Re(str_val(node.char))
    if isinstance(node, _regex.RAny):
        return _char_ranges(((0, 9), (11, 0x2FFFF)))
    if isinstance(node, _regex.RClass):
        ranges = _complement(node.ranges) if node.negated else node.ranges
        return _char_ranges(ranges)
    if isinstance(node, _regex.RConcat):
        parts = [regex_to_z3(n) for n in node.items]
        return parts[0] if len(parts) == 1 else z3.Concat(*parts)
    if isinstance(node, _regex.RAlt):
        parts = [regex_to_z3(n) for n in node.options]
        return parts[0] if len(parts) == 1 else z3.Union(*parts)
    if isinstance(node, _regex.RRepeat):
        inner = regex_to_z3(node.node)
        lo, hi = node.min, node.max
        if hi is None:
            if lo == 0:
                return z3.Star(inner)
            if lo == 1:
                return z3.Plus(inner)
            return z3.Concat(z3.Loop(inner, lo, lo), z3.Star(inner))
        if hi == 0:
            # Z3's loop reads an upper bound of 0 as "unbounded": spell {0} out.
            return z3.Re(str_val(""))
        if (lo, hi) == (0, 1):
            return z3.Option(inner)
        return z3.Loop(inner, lo, hi)
    raise Unsupported(f"unknown regex node {node!r}")


def regex_for(pattern: str) -> Z:
    """The Z3 regex of a spec pattern (cached; ``RegexError`` outside the subset)."""
    cache = current().cache
    key = ("regex", pattern)
    if key not in cache:
        cache[key] = regex_to_z3(_regex.parse(pattern))
    return cache[key]


def digits() -> Z:
    """``[0-9]+``: the only strings ``int(s)`` is defined on."""
    cache = current().cache
    if "digits" not in cache:
        cache["digits"] = z3.Plus(z3.Range(str_val("0"), str_val("9")))
    return cache["digits"]
