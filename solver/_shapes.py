"""What the search for result terms knows beyond the question: input shapes and
the meaning of text-integer conversions (``_candidates``; docs/decisions.md).

**Shaped inputs.**  A valid input that must fully match ``[a-z]+@[a-z]+\\.com``
(a ``str matching`` type, ``requires: matches(s, RE)`` or ``raises E when not
matches(s, RE)``) is the concatenation of its parts: ``p0 + "@" + p1 + ".com"`` with
``p0`` and ``p1`` matching ``[a-z]+``.  Likewise an input that must contain ``"="``
is ``p0 + "=" + p1`` with no ``"="`` in ``p0`` (split at the first one), and one that
must start (end) with a literal is that literal and the rest.  Saying so is exact
(every such value splits that way), and it gives the result terms something to be
built from: ``p1 + ".com"`` is the domain of an e-mail address, which Z3 and cvc5
cannot find as "the part after the first ``@``" (``str.indexof`` against a regular
expression).

**Conversions.**  For every ``str.to_int(s)`` and ``str.from_int(n)`` in a formula,
the facts SMT-LIB defines them by: ``str.to_int(s)`` is ``-1`` or more, and ``0`` or
more exactly when ``s`` is a digit string; a canonical digit string (no leading zero)
is the text of its number; ``str.from_int(n)`` is canonical and converts back to
``n`` when ``n >= 0``, and is ``""`` otherwise.  They are theorems of the theory, so
adding them changes no answer a complete solver would give; Z3's string solver does
not derive them itself (``str(int(text)) == text`` for ``text`` matching
``[1-9][0-9]*`` is "unknown" without them, unsat in milliseconds with them).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import field

import z3

from derivative import _regex
from derivative._ast import BoolOp, Call, Compare, Expr, Name, Obligation, StrLit, Unary
from derivative._record import record

from ._definitions import digits, regex_to_z3
from ._terms import Term
from ._z3util import Z, ctx, fresh_name, str_val

MAX_SPANS = 36
"""At most this many part spans of one input become result terms."""


@record(frozen=False)
class Shapes:
    """The inputs' parts: constraints tying them to the inputs, and terms over them."""

    background: list[Z] = field(default_factory=list)
    """``s == p0 + "@" + p1 + ".com"`` and each part's own regex."""
    spans: list[Z] = field(default_factory=list)
    """Runs of consecutive parts (not a whole input, not only literals)."""
    parts: list[Z] = field(default_factory=list)
    """The part variables (lifting spells their values)."""


def input_shapes(
    requires: Sequence[Obligation], raises: Sequence[Obligation], inputs: dict[str, Term]
) -> Shapes:
    """The parts of every string input whose valid values have a shape (the first
    clause that gives one, per input)."""
    out = Shapes()
    done: set[str] = set()
    for name, kind, text in _shape_clauses(requires, raises):
        term = inputs.get(name)
        if name in done or term is None:
            continue
        shaped = _shaped(name, kind, text)
        if shaped is None:
            continue
        pieces, constraints, own = shaped
        done.add(name)
        out.background += [term.value == z3.Concat(*pieces), *constraints]
        out.parts += own
        n = len(pieces)
        for i in range(n):
            for j in range(i, n):
                run = pieces[i : j + 1]
                if (i, j) == (0, n - 1) or all(z3.is_string_value(p) for p in run):
                    continue
                if len(out.spans) < MAX_SPANS:
                    out.spans.append(run[0] if len(run) == 1 else z3.Concat(*run))
    return out


def _shaped(name: str, kind: str, text: str) -> tuple[list[Z], list[Z], list[Z]] | None:
    """(pieces, their constraints, the part variables) of an input with the shape
    ``kind`` (``matches``: a regex; ``contains``, ``startswith``, ``endswith``: a
    literal), or None when it gives no parts."""
    if kind == "matches":
        try:
            node = _regex.parse(text)
        except _regex.RegexError:
            return None
        pieces, own = _pieces(name, node)
        if len(pieces) < 2:
            return None
        return pieces, [z3.InRe(v, regex_to_z3(item)) for v, item in own], [v for v, _ in own]
    if not text:
        return None
    lit = str_val(text)
    head = z3.String(fresh_name(f"{name}.part0"), ctx())
    tail = z3.String(fresh_name(f"{name}.part1"), ctx())
    if kind == "startswith":
        return [lit, tail], [], [tail]
    if kind == "endswith":
        return [head, lit], [], [head]
    # ``contains``: split at the first occurrence, so nothing before it holds one.
    before = head if len(text) == 1 else z3.Concat(head, str_val(text[:-1]))
    return [head, lit, tail], [z3.Not(z3.Contains(before, lit))], [head, tail]


def _shape_clauses(
    requires: Sequence[Obligation], raises: Sequence[Obligation]
) -> Iterable[tuple[str, str, str]]:
    """(input, kind, pattern or literal) for every ``matches(s, RE)``, ``contains(s,
    LIT)`` (or ``LIT in s``), ``startswith(s, LIT)`` and ``endswith(s, LIT)`` that valid
    normal inputs meet: a conjunct of a requires, or a raises ``when not ...``."""
    for ob in requires:
        for e in _conjuncts(ob.expr):
            found = _shape_of(e)
            if found is not None:
                yield found
    for ob in raises:
        e = ob.expr
        if isinstance(e, Unary) and e.op == "not":
            found = _shape_of(e.operand)
            if found is not None:
                yield found


def _conjuncts(e: Expr) -> list[Expr]:
    if isinstance(e, BoolOp) and e.op == "and":
        return [c for o in e.operands for c in _conjuncts(o)]
    return [e]


def _shape_of(e: Expr) -> tuple[str, str, str] | None:
    if (
        isinstance(e, Call)
        and e.func in ("matches", "contains", "startswith", "endswith")
        and len(e.args) == 2
        and isinstance(e.args[0], Name)
        and isinstance(e.args[1], StrLit)
    ):
        return e.args[0].id, e.func, e.args[1].value
    if (
        isinstance(e, Compare)
        and e.ops == ("in",)
        and isinstance(e.operands[0], StrLit)
        and isinstance(e.operands[1], Name)
    ):
        return e.operands[1].id, "contains", e.operands[0].value
    return None


def _pieces(name: str, node: _regex.RNode) -> tuple[list[Z], list[tuple[Z, _regex.RNode]]]:
    """The pattern's top-level items as terms: literal runs as constants, every other
    item a fresh part variable (with its item)."""
    items = node.items if isinstance(node, _regex.RConcat) else (node,)
    pieces: list[Z] = []
    own: list[tuple[Z, _regex.RNode]] = []
    text = ""
    for item in items:
        if isinstance(item, _regex.RChar):
            text += item.char
            continue
        if text:
            pieces.append(str_val(text))
            text = ""
        v = z3.String(fresh_name(f"{name}.part{len(own)}"), ctx())
        pieces.append(v)
        own.append((v, item))
    if text:
        pieces.append(str_val(text))
    return pieces, own


# --------------------------------------------------------------------------- conversions


def conversion_facts(formulas: Iterable[Z], every: bool = True) -> list[Z]:
    """The defining facts of every ``str.to_int`` and ``str.from_int`` application in
    ``formulas`` (the module docstring); without ``every`` only the two round trips
    (a canonical digit string is the text of its number, the text of ``n >= 0``
    converts back to ``n``): Z3 is sensitive to extra facts, so callers ask with few
    first."""
    to_int: dict[int, Z] = {}
    from_int: dict[int, Z] = {}
    seen: set[int] = set()
    stack = list(formulas)
    while stack:
        e = stack.pop()
        key = e.get_id()
        if key in seen:
            continue
        seen.add(key)
        if z3.is_app(e):
            kind = e.decl().kind()
            if kind == z3.Z3_OP_STR_TO_INT:
                to_int.setdefault(key, e.arg(0))
            elif kind == z3.Z3_OP_INT_TO_STR:
                from_int.setdefault(key, e.arg(0))
            stack.extend(e.children())
        # A quantifier's body is not entered: facts about its bound variables cannot
        # be stated outside it.
    canonical = _canonical()
    facts: list[Z] = []
    for s in to_int.values():
        n = z3.StrToInt(s)
        facts.append(z3.Implies(z3.InRe(s, canonical), z3.IntToStr(n) == s))
        if every:
            facts += [n >= -1, z3.InRe(s, digits()) == (n >= 0)]
    for n in from_int.values():
        text = z3.IntToStr(n)
        facts.append(z3.Implies(n >= 0, z3.StrToInt(text) == n))
        if every:
            facts += [
                z3.Implies(n >= 0, z3.InRe(text, canonical)),
                z3.Implies(n < 0, text == str_val("")),
            ]
    return facts


def _canonical() -> Z:
    """``0|[1-9][0-9]*``: the digit strings that are the text of their number."""
    nonzero = z3.Range(str_val("1"), str_val("9"))
    return z3.Union(
        z3.Re(str_val("0")), z3.Concat(nonzero, z3.Star(z3.Range(str_val("0"), str_val("9"))))
    )
