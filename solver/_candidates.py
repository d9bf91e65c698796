"""Realizability by candidate result terms, refined by counterexamples (docs/decisions.md).

A function is realizable when every valid input has an acceptable result.  Quantifier
instantiation over strings rarely proves that, but a user's result is almost always
*built* from the inputs: ``"user:" + name``, ``str(n)``, the part of ``tag`` after
``"v"``, ``"00" + str(n)``.  So result terms are chosen one at a time:

- the question "a valid input at which every chosen term fails the ensures" is
  quantifier-free; unsat means every input has an acceptable result: realizable;
- otherwise it gives an input.  The first term of the pool that the evaluator accepts
  there is chosen next.  When none is, the input decides: with the input fixed, "is
  there any acceptable result?" is quantifier-free as well.  No result means the
  function is unrealizable at that input (``_unrealizable`` confirms it and records
  the core); a result found is lifted into a term over the inputs (the parts of it
  that spell an input's value become that input, a run of one character whose length
  is a length of the inputs becomes a padding term) and chosen;
- at most ``ROUNDS`` inputs are asked for; failing to decide means nothing, the next
  method runs.

Booleans and enums have finitely many values, all in the pool, so for them the
question always decides.  The questions know the inputs' regex shapes and the
defining facts of text-integer conversions (``_shapes``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

import z3

from derivative._ast import Call, Expr, IntLit, Quantifier, Result, StrLit
from derivative._record import record
from derivative._types import STR, TBool, TEnum, TInt, TList, TStr
from derivative._values import Value
from derivative._walk import free_names, walk

from ._context import CallScope, Clauses, Ctx
from ._decode import from_model
from ._question import Answer, Question
from ._result import Method
from ._shapes import Shapes, conversion_facts, input_shapes
from ._terms import Term, enum_sort, intrinsic_domain, literal, sort_of, var
from ._unrealizable import unrealizable
from ._z3util import Unsupported, Z, conj, ctx, str_from_z3, str_val, true

POOL_LIMIT = 256
"""Result terms built before the first question at most (each is only evaluated until
it is chosen, so the pool can be generous)."""

ROUNDS = 16
"""How many inputs at which every chosen term fails are asked for at most."""

CAPS = (8, 16, 32, 64)
"""The unrolling sizes ``_range_cap`` tries."""

LONG_CAPS = (256, 1024, 4096)
"""Longer bounds a padding's length is tried against (``_bound_in``)."""

PAD = 256
"""A padding term is a prefix of this many copies of its character."""

METHOD: Method = "candidate result terms"

Settled = Literal["realizable", "unrealizable"]
"""The method's conclusion (an unrealizable input is already handed on)."""


@record
class TermsAnswer:
    """What ``realize_by_terms`` settled (None: undecided), and for a realizable
    function the last input it asked about with an acceptable result there (under
    ``"result"``): a witness the evaluator has accepted, for when the witness question
    itself is too hard (``_witness``)."""

    settled: Settled | None
    example: Mapping[str, Value] | None = None


def realize_by_terms(ctx: Ctx, cl: Clauses, sc: CallScope, q: Question) -> TermsAnswer:
    """Decide realizability with result terms (the module docstring)."""
    result = sc.result
    shapes = input_shapes(cl.requires, cl.raises, sc.inputs)
    pool = None if result is None else initial_terms(cl, sc, shapes)
    if result is None or pool is None:
        return TermsAnswer(None)
    background = [*q.background, *shapes.background]
    # A fresh solver: asking the question's own incremental solver would change the
    # models (and so the witnesses) that later checks of it give.
    fresh = Question(q.name, [], background, q.variables, q.rlimit, q.timeout_ms)
    cap = _range_cap(ctx, cl, sc, fresh)
    failing: list[Z] = []
    example: dict[str, Value] | None = None
    for _ in range(ROUNDS):
        ans = _ask(fresh, failing, [*background, *failing])
        if ans.verdict != "sat":
            return (
                TermsAnswer("realizable", example) if ans.verdict == "unsat" else TermsAnswer(None)
            )
        try:
            at = fresh.values(ans.model)
        except Unsupported:
            return TermsAnswer(None)
        chosen = _acceptable(ctx, cl, sc, pool, ans.model, at)
        if chosen is None:
            found = _result_at(ctx, cl, sc, at)
            if found == "none":
                unrealizable(ctx, cl, at, METHOD)
                return TermsAnswer("unrealizable")
            if found == "unknown":
                return TermsAnswer(None)
            if not isinstance(result.ty, TStr):
                # Only a string result lifts into a term more general than its value: for
                # others the rounds would only collect constants, one per input.
                return TermsAnswer(None)
            new = lifted(found[0], cl, sc, shapes, ans.model, at, _bound_in(fresh))
            chosen = _acceptable(ctx, cl, sc, new, ans.model, at)
            if chosen is None:
                return TermsAnswer(None)  # the solver's result, refused by the evaluator
        term, value = chosen
        works = _works(ctx, cl, sc, term, cap)
        if works is None:
            return TermsAnswer(None)
        example = {**at, "result": value}
        pool = [t for t in pool if not t.eq(term)]
        failing.append(z3.Not(works))
    return TermsAnswer(None)


def _ask(question: Question, extra: list[Z], formulas: list[Z], incremental: bool = True) -> Answer:
    """``question`` with ``extra``, in a new solver (``Question.check_once``); when
    undecided, in the question's incremental solver (Z3's string solver decides some
    questions only one way, some only the other), then in a new solver with the
    round-trip facts of the text-integer conversions in ``formulas``, then with all
    their facts (``_shapes``: more facts can make Z3 give up where fewer decide).
    Each attempt has the full resource limit; the first decisive answer counts.
    ``incremental``: False skips the second attempt (a question asked once, at a
    fixed input, gains nothing from it)."""
    if incremental and _quantified([*question.background, *extra]):
        # Preprocessing buys nothing against a quantifier, and the default solver spends
        # its limit there several times slower: the incremental solver only.
        ans = question.check(extra=extra)
    else:
        ans = question.check_once(extra)
        if ans.verdict == "unknown" and incremental:
            ans = question.check(extra=extra)
    for every in (False, True):
        if ans.verdict != "unknown":
            break
        facts = conversion_facts(formulas, every)
        if not facts:
            break
        ans = question.check_once([*extra, *facts])
    return ans


def _quantified(formulas: Sequence[Z]) -> bool:
    """Whether a quantifier occurs in ``formulas``."""
    seen: set[int] = set()
    stack = list(formulas)
    while stack:
        e = stack.pop()
        if z3.is_quantifier(e):
            return True
        key = e.get_id()
        if key in seen or not z3.is_app(e):
            continue
        seen.add(key)
        stack.extend(e.children())
    return False


def _range_cap(ctx: Ctx, cl: Clauses, sc: CallScope, question: Question) -> int | None:
    """The fewest values (8, 16, 32 or 64) that every quantifier range of the ensures
    holds for every valid input, when its bounds read only the inputs, no quantifier is
    nested in another and all of them unrolled make at most 64 items: such quantifiers
    are then unrolled (``Encoder.range_cap``), which keeps the questions free of
    quantifiers (``forall i in 0..width - len(text) - 1: result[i] == " "``)."""
    quantifiers = [n for o in cl.ensures for n in walk(o.expr) if isinstance(n, Quantifier)]
    nested = any(isinstance(m, Quantifier) for n in quantifiers for m in walk(n.body))
    if not quantifiers or nested:
        return None  # unrolling nested quantifiers multiplies their items
    known = set(sc.inputs) | set(ctx.consts)
    enc = ctx.encoder(sc.inputs)
    sizes: list[Z] = []
    for n in quantifiers:
        if any(_reads(b, known) for b in (n.lo, n.hi)):
            return None
        try:
            lo, hi = enc.encode(n.lo), enc.encode(n.hi)
        except Unsupported:
            return None
        sizes.append(hi.value - lo.value + 1)
    for cap in CAPS:
        if cap * len(sizes) > CAPS[-1]:
            break  # more items in all than the longest unrolling
        if all(question.check(extra=[size > cap]).verdict == "unsat" for size in sizes):
            return cap
    return None


def _reads(e: Expr, known: set[str]) -> bool:
    """Whether ``e`` reads the result or a name other than ``known`` (a bound variable)."""
    return any(isinstance(n, Result) for n in walk(e)) or not free_names(e) <= known


def _acceptable(
    ctx: Ctx,
    cl: Clauses,
    sc: CallScope,
    pool: Sequence[Z],
    model: Z,
    at: Mapping[str, Value],
) -> tuple[Z, Value] | None:
    """The first term of ``pool`` whose value at the input ``at`` (``model``'s) every
    ensures accepts, by the evaluator, with that value; None when there is none."""
    assert sc.result is not None
    ty = sc.result.ty
    for term in pool:
        try:
            value = from_model(model, term, ty)
        except Unsupported:
            continue
        env: dict[str, object] = {**at, "result": value}
        if all(ctx.evaluator.holds(o.expr, env) is True for o in cl.ensures):
            return term, value
    return None


def _works(ctx: Ctx, cl: Clauses, sc: CallScope, term: Z, cap: int | None) -> Z | None:
    """``term`` as the result satisfies every ensures (None: not encodable); ``cap``:
    see ``_range_cap``."""
    assert sc.result is not None
    ty = sc.result.ty
    enc = ctx.encoder({**sc.inputs, "result": Term(term, true(), ty)})
    enc.range_cap = cap
    try:
        return conj(intrinsic_domain(term, ty), *[enc.encode(o.expr).holds for o in cl.ensures])
    except Unsupported:
        return None


def _result_at(
    ctx: Ctx, cl: Clauses, sc: CallScope, at: Mapping[str, Value]
) -> tuple[Value] | Literal["none", "unknown"]:
    """An acceptable result at the fixed input ``at`` (a 1-tuple), ``"none"`` when there
    is none, ``"unknown"`` when undecided (a quantifier-free question)."""
    owner = cl.owner
    assert sc.result is not None
    inputs = {n: Term(literal(at[n], t), true(), t) for n, t, _ in owner.params}
    result = var("result", sc.result.ty)
    enc = ctx.encoder({**inputs, "result": result})
    try:
        ensures = [enc.encode(o.expr).holds for o in cl.ensures]
    except Unsupported:
        return "unknown"
    ask = Question(
        f"{owner.name} result at an input",
        [],
        [intrinsic_domain(result.value, result.ty), *ensures],
        {"result": (result.value, result.ty)},
        ctx.options.rlimit,
        ctx.options.timeout_ms,
    )
    ans = _ask(ask, [], ensures, incremental=False)
    if ans.verdict != "sat":
        return "none" if ans.verdict == "unsat" else "unknown"
    try:
        return (ask.values(ans.model)["result"],)
    except Unsupported:
        return "unknown"


# --------------------------------------------------------------------------- terms


def initial_terms(cl: Clauses, sc: CallScope, shapes: Shapes) -> list[Z] | None:
    """The pool of result terms, most general first (None: a result type this method
    does not handle).

    A string: ``""``, the string inputs, ``str(n)`` of the int inputs and the string
    literals of the ensures (not regular expressions), runs of the inputs' regex parts
    (``_shapes``), the parts of each string input around each literal (before and
    after its first occurrence, without it as a prefix or a suffix), then
    concatenations of two and three of the first kind.  An int: ``0``, the int inputs
    and literals, ``int(s)`` and ``len(s)`` of the string inputs.  A list: ``[]`` and
    the list inputs of its type.  A bool or an enum: every value.
    """
    assert sc.result is not None
    ty = sc.result.ty
    if isinstance(ty, TBool):
        return [z3.BoolVal(False, ctx()), z3.BoolVal(True, ctx())]
    if isinstance(ty, TEnum):
        return list(enum_sort(ty)[1].values())
    if isinstance(ty, TStr):
        return _string_terms(cl, sc, shapes)
    if isinstance(ty, TInt):
        ints = [t.value for t in sc.inputs.values() if isinstance(t.ty, TInt)]
        ints += [z3.IntVal(v, ctx()) for v in sorted(_literals(cl, IntLit)) if isinstance(v, int)]
        for t in _strings(sc):
            ints += [z3.StrToInt(t), z3.Length(t)]
        return [z3.IntVal(0, ctx()), *ints][:POOL_LIMIT]
    if isinstance(ty, TList):
        return [z3.Empty(sort_of(ty)), *(t.value for t in sc.inputs.values() if t.ty == ty)]
    return None


def _string_terms(cl: Clauses, sc: CallScope, shapes: Shapes) -> list[Z]:
    """The string result terms of ``initial_terms``."""
    inputs = _strings(sc)
    texts = [_text_of(t.value) for t in sc.inputs.values() if isinstance(t.ty, TInt)]
    literals = [str_val(v) for v in sorted(_literals(cl, StrLit)) if isinstance(v, str) and v]
    atoms = [*inputs, *texts, *literals]
    parts: list[Z] = []
    for s, p in itertools.product(inputs, literals):
        at = z3.IndexOf(s, p, 0)
        rest = z3.Length(s) - z3.Length(p)
        parts += [
            z3.SubString(s, at + z3.Length(p), z3.Length(s)),
            z3.SubString(s, 0, at),
            z3.SubString(s, z3.Length(p), rest),
            z3.SubString(s, 0, rest),
        ]
    terms: list[Z] = [str_val(""), *atoms, *shapes.spans, *parts]
    for size in (2, 3):
        for combo in itertools.product(atoms, repeat=size):
            if len(terms) >= POOL_LIMIT:
                return terms[:POOL_LIMIT]
            terms.append(z3.Concat(*combo))
    return terms[:POOL_LIMIT]


def _strings(sc: CallScope) -> list[Z]:
    return [t.value for t in sc.inputs.values() if isinstance(t.ty, TStr)]


def _text_of(n: Z) -> Z:
    """``str(n)`` with Python's sign (Z3's ``int.to.str`` answers "" for negatives)."""
    return z3.If(n >= 0, z3.IntToStr(n), z3.Concat(str_val("-"), z3.IntToStr(-n)))


def _literals(cl: Clauses, kind: type[StrLit] | type[IntLit]) -> set[str | int]:
    """The literals of ``kind`` in the ensures, without the patterns of ``matches``."""
    patterns = {
        id(n.args[1])
        for o in cl.ensures
        for n in walk(o.expr)
        if isinstance(n, Call) and n.func == "matches" and len(n.args) == 2
    }
    found: set[str | int] = set()
    for ob in cl.ensures:
        found |= {n.value for n in walk(ob.expr) if isinstance(n, kind) and id(n) not in patterns}
    return found


# --------------------------------------------------------------------------- lifting


def lifted(
    value: Value,
    cl: Clauses,
    sc: CallScope,
    shapes: Shapes,
    model: Z,
    at: Mapping[str, Value],
    bound: Callable[[Z], int | None],
) -> list[Z]:
    """Terms from an acceptable ``value`` at the input ``at``, the most general first.

    For a string, the same text with every part that spells an input's value (a string
    input, ``str(n)`` of an int input, a regex part, the first character of a string
    input; the longest first) replaced by that input, and every remaining run of one
    character whose length is a length of the inputs (``width - len(text)``) by a
    padding term: ``"0042"`` at ``n = 42`` becomes ``"0" * (4 - len(str(n))) +
    str(n)``.  Then the value itself.
    """
    assert sc.result is not None
    ty = sc.result.ty
    out = [literal(value, ty)]
    if not isinstance(value, str) or not isinstance(ty, TStr):
        return out
    spelled = _spellings(sc, shapes, model, at)
    lengths = _lengths(cl, sc, model)
    pieces: list[Z] = []
    plain = ""
    i = 0
    while i < len(value):
        best = max(
            ((len(v), -k) for k, (v, _) in enumerate(spelled) if value.startswith(v, i)),
            default=None,
        )
        if best is None:
            plain += value[i]
            i += 1
            continue
        pieces += _padded(plain, lengths, bound)
        plain = ""
        pieces.append(spelled[-best[1]][1])
        i += best[0]
    pieces += _padded(plain, lengths, bound)
    if any(not z3.is_string_value(p) for p in pieces):
        out.insert(0, pieces[0] if len(pieces) == 1 else z3.Concat(*pieces))
    return out


def _spellings(
    sc: CallScope, shapes: Shapes, model: Z, at: Mapping[str, Value]
) -> list[tuple[str, Z]]:
    """(text at the input, term) of everything a result may spell, in preference order."""
    spelled: list[tuple[str, Z]] = []
    firsts: list[tuple[str, Z]] = []
    for name, t in sc.inputs.items():
        v = at.get(name)
        if isinstance(t.ty, TStr) and isinstance(v, str) and v:
            spelled.append((v, t.value))
            if len(v) > 1:
                firsts.append((v[0], z3.SubString(t.value, 0, 1)))
        elif isinstance(t.ty, TInt) and isinstance(v, int) and not isinstance(v, bool):
            spelled.append((str(v), _text_of(t.value)))
    for part in shapes.parts:
        try:
            text = from_model(model, part, STR)
        except Unsupported:
            continue
        if isinstance(text, str) and text:
            spelled.append((text, part))
    return spelled + firsts


def _lengths(cl: Clauses, sc: CallScope, model: Z) -> list[tuple[int, Z]]:
    """(value at the input, term) of the lengths a padding may have, most specific
    first: ``a - b`` for an int input or literal ``a`` and a length ``b`` of an input
    (``len(s)``, ``len(str(n))``), then the ``a`` and the ``b`` alone."""
    whole = [t.value for t in sc.inputs.values() if isinstance(t.ty, TInt)]
    whole += [z3.IntVal(v, ctx()) for v in sorted(_literals(cl, IntLit)) if isinstance(v, int)]
    sizes = [z3.Length(s) for s in _strings(sc)]
    sizes += [z3.Length(_text_of(t.value)) for t in sc.inputs.values() if isinstance(t.ty, TInt)]
    terms = [a - b for a in whole for b in sizes] + whole + sizes
    out: list[tuple[int, Z]] = []
    for term in terms:
        v = model.eval(term, model_completion=True)
        if z3.is_int_value(v):
            out.append((v.as_long(), term))
    return out


def _padded(
    plain: str, lengths: Sequence[tuple[int, Z]], bound: Callable[[Z], int | None]
) -> list[Z]:
    """``plain`` as terms: its runs of at least two copies of one character whose
    length is among ``lengths`` become padding terms, the rest stays text (a single
    character is more often a separator than a padding of length one)."""
    out: list[Z] = []
    for ch, group in itertools.groupby(plain):
        run = len(list(group))
        length = next((t for v, t in lengths if v == run), None) if run > 1 else None
        out.append(str_val(ch * run) if length is None else _padding(ch, length, bound))
    merged: list[Z] = []
    for p in out:
        if merged and z3.is_string_value(p) and z3.is_string_value(merged[-1]):
            merged[-1] = str_val(str_from_z3(merged[-1]) + str_from_z3(p))
        else:
            merged.append(p)
    return merged


def _padding(ch: str, length: Z, bound: Callable[[Z], int | None]) -> Z:
    """``length`` copies of ``ch``: a choice among the constants up to the bound of
    ``length`` over the valid inputs when it is at most 64 (Z3 decides those by cases),
    else a prefix of as many copies as the bound, or ``PAD`` when there is none (which
    Z3's string solver finds harder)."""
    most = bound(length)
    if most is None or most > CAPS[-1]:
        return z3.SubString(str_val(ch * (most or PAD)), 0, length)
    out = str_val("")
    for k in range(most, 0, -1):
        out = z3.If(length == k, str_val(ch * k), out)
    return out


def _bound_in(question: Question) -> Callable[[Z], int | None]:
    """The least of ``CAPS`` and ``LONG_CAPS`` that an int term never exceeds under
    ``question``'s background (None: none of them)."""

    def bound(term: Z) -> int | None:
        for cap in (*CAPS, *LONG_CAPS):
            if question.check(extra=[term > cap]).verdict == "unsat":
                return cap
        return None

    return bound
