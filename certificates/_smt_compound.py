"""Tuples, optionals and dicts in SMT-LIB (docs/language.md §6.5-6.7): an independent reading.

Each type is a datatype declared in the script's preamble (``declarations``), named after
the sorts of its parts so that one type has one name:

- ``tuple[T1, ..]``: ``(|tuple<S1,..>.mk| (|tuple<S1,..>.0| S1) ..)``;
- ``optional[T]``: ``|optional<S>.none|`` and ``(|optional<S>.some| (|optional<S>.val| S))``;
- ``dict[K, V]``: ``(|dict<K,V>.mk| (|dict<K,V>.keys| (Seq K)) (|dict<K,V>.vals| (Seq V)))``
  with keys strictly increasing, one value per key (a declared dict variable is asserted
  so, ``dict_domain``), so equal dicts are equal terms.

A dict literal's keys must be literals (they are sorted here); anything else is refused
with ``EncodingError``, never approximated.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from derivative._ast import (
    Call,
    DictLit,
    Expr,
    Index,
    IntLit,
    NoneLit,
    Range,
    StrLit,
    TupleLit,
    Unary,
)
from derivative._typecheck_compound import tuple_position
from derivative._types import (
    INT,
    NONE,
    STR,
    TAny,
    TDict,
    TInt,
    TList,
    TNone,
    TOptional,
    TReal,
    TStr,
    TTuple,
    Ty,
)
from derivative._types import join_base as join

from ._smt_calls import SmtCalls
from ._smt_sorts import CoreScope, plain, sort_of, type_name
from ._smt_syntax import EncodingError, SmtTerm, and_, int_term, string_literal

COMPOUND = (TTuple, TOptional, TDict)

# --------------------------------------------------------------------------- sorts


def part(ty: Ty, what: str) -> str:
    """A constructor, accessor or field name of the datatype of ``ty``."""
    return f"|{type_name(ty)}.{what}|"


def declaration(ty: Ty) -> str:
    """The ``declare-datatypes`` line of a tuple, optional or dict type."""
    name = sort_of(ty)
    if isinstance(ty, TTuple):
        fields = " ".join(f"({part(ty, str(i))} {sort_of(t)})" for i, t in enumerate(ty.items))
        ctors = f"(({part(ty, 'mk')} {fields}))"
    elif isinstance(ty, TOptional):
        some = f"({part(ty, 'some')} ({part(ty, 'val')} {sort_of(ty.elem)}))"
        ctors = f"(({part(ty, 'none')}) {some})"
    else:
        assert isinstance(ty, TDict)
        keys = f"({part(ty, 'keys')} (Seq {sort_of(ty.key)}))"
        vals = f"({part(ty, 'vals')} (Seq {sort_of(ty.value)}))"
        ctors = f"(({part(ty, 'mk')} {keys} {vals}))"
    return f"(declare-datatypes (({name} 0)) ({ctors}))"


def parts_of(ty: Ty) -> list[Ty]:
    """The compound types inside ``ty``, inner ones first (the order of declaration)."""
    out: list[Ty] = []

    def go(t: Ty) -> None:
        if isinstance(t, TList):
            go(t.elem)
        elif isinstance(t, TTuple):
            for x in t.items:
                go(x)
        elif isinstance(t, TOptional):
            go(t.elem)
        elif isinstance(t, TDict):
            go(t.key)
            go(t.value)
        if isinstance(t, COMPOUND) and t not in out:
            out.append(t)

    go(plain(ty))
    return out


def dict_domain(sym: str, ty: Ty) -> list[str]:
    """A declared dict variable is well formed (unnamed: it belongs to the type)."""
    if not isinstance(ty, TDict):
        return []
    keys, vals = f"({part(ty, 'keys')} {sym})", f"({part(ty, 'vals')} {sym})"
    less = "str.<" if isinstance(ty.key, TStr) else "<"
    i = "|i'dict|"
    ordered = (
        f"(forall (({i} Int)) (! (=> (and (<= 0 {i}) (< (+ {i} 1) (seq.len {keys}))) "
        f"({less} (seq.nth {keys} {i}) (seq.nth {keys} (+ {i} 1)))) "
        f":pattern ((seq.nth {keys} {i}))))"
    )
    return [f"(assert (and (= (seq.len {keys}) (seq.len {vals})) {ordered}))"]


def compound_value(value: object, ty: Ty, term: Callable[[object, Ty], str]) -> str:
    """A closed term of a tuple, optional or dict value (``term`` writes its parts)."""
    from derivative._values import DictValue, TupleValue

    if isinstance(ty, TTuple) and isinstance(value, TupleValue):
        items = " ".join(term(v, t) for v, t in zip(value.items, ty.items, strict=True))
        return f"({part(ty, 'mk')} {items})"
    if isinstance(ty, TOptional):
        return part(ty, "none") if value is None else f"({part(ty, 'some')} {term(value, ty.elem)})"
    if isinstance(ty, TDict) and isinstance(value, DictValue):
        keys = _seq([term(k, ty.key) for k, _ in value.entries], sort_of(ty.key))
        vals = _seq([term(v, ty.value) for _, v in value.entries], sort_of(ty.value))
        return f"({part(ty, 'mk')} {keys} {vals})"
    raise EncodingError(f"{value!r} is not a value of {ty.show()}")


def _seq(items: list[str], elem_sort: str) -> str:
    if not items:
        return f"(as seq.empty (Seq {elem_sort}))"
    units = [f"(seq.unit {x})" for x in items]
    return units[0] if len(units) == 1 else f"(seq.++ {' '.join(units)})"


def _key_literal(e: Expr) -> int | str:
    if isinstance(e, IntLit):
        return e.value
    if isinstance(e, Unary) and e.op == "-" and isinstance(e.operand, IntLit):
        return -e.operand.value
    if isinstance(e, StrLit):
        return e.value
    raise EncodingError("a dict literal whose keys are not literals has no SMT-LIB encoding")


# --------------------------------------------------------------------------- the encoder part

Bound = Mapping[str, tuple[str, Ty]]


class SmtCompound(SmtCalls):
    """Tuples, ``none`` and dicts, over the calls and expressions (see ``_smtlib``)."""

    # ------------------------------------------------------------------ typing

    def type_of(self, e: Expr, bound: Bound) -> Ty:
        k = e.kind
        if k == "tuple":
            assert isinstance(e, TupleLit)
            return TTuple(tuple(plain(self.type_of(i, bound)) for i in e.items))
        if k == "none":
            return NONE
        if k == "dict":
            assert isinstance(e, DictLit)
            key: Ty = TAny()
            val: Ty = TAny()
            for kn, vn in zip(e.keys, e.values, strict=True):
                key, val = join(key, self.type_of(kn, bound)), join(val, self.type_of(vn, bound))
            return TDict(key, val)
        if k == "index":
            assert isinstance(e, Index)
            base = self.type_of(e.base, bound)
            if isinstance(base, TTuple):
                pos = tuple_position(e.index)
                if pos is None:
                    raise EncodingError("a tuple indexed by a non-literal")
                return base.items[pos]
            if isinstance(base, TDict):
                return base.value
            # the base's type is known: answer here, as the plain typing would, rather than
            # let it type the base again (twice per level is exponential in the nesting)
            if isinstance(base, TList):
                return base.elem
            return base if isinstance(base, TAny) else STR
        if k == "call":
            assert isinstance(e, Call)
            found = self._compound_call_type(e, bound)
            if found is not None:
                return found
        return super().type_of(e, bound)

    def _compound_call_type(self, e: Call, bound: Bound) -> Ty | None:
        if e.func not in ("get", "keys", "value") or e.func == self.scope.function:
            return None
        t = self.type_of(e.args[0], bound)
        if e.func == "value":
            return t.elem if isinstance(t, TOptional) else TAny()
        if not isinstance(t, TDict):
            return TAny()
        if e.func == "keys":
            return TList(t.key)
        if len(e.args) == 3:
            return join(t.value, self.type_of(e.args[2], bound))
        return t.value if isinstance(t.value, TOptional) else TOptional(t.value)

    def __init__(self, scope: CoreScope) -> None:
        super().__init__(scope)
        self.used_compound: list[Ty] = []
        """Tuple, optional and dict types used so far, inner ones first."""

    def _enc(self, e: Expr, bound: Bound, want: Ty | None) -> SmtTerm:
        """A plain value where an optional is wanted is encoded at the optional's value
        type, then made ``some`` (``none == -1``: the minus is on an int)."""
        w = None if want is None else plain(want)
        if isinstance(w, TNone):
            want = w = TOptional(INT)  # `none` alone: any optional sort has it (_enc_none)
        if isinstance(w, TOptional) and e.kind != "none":
            have = plain(self.type_of(e, bound))
            if not isinstance(have, TOptional | TNone | TAny):
                return self._coerce(super()._enc(e, bound, w.elem), w)
        return super()._enc(e, bound, want)

    def _call_type(self, e: Call, bound: Bound) -> Ty:
        found = self._compound_call_type(e, bound)
        return super()._call_type(e, bound) if found is None else found

    def _note_type(self, ty: Ty) -> None:
        super()._note_type(ty)
        for t in parts_of(ty):
            # one declaration per sort: optional[any] (of `none`) is optional[int]'s sort
            if all(sort_of(t) != sort_of(u) for u in self.used_compound):
                self.used_compound.append(t)

    def _default(self, ty: Ty) -> str:
        ty = plain(ty)
        if isinstance(ty, TTuple):
            return f"({part(ty, 'mk')} {' '.join(self._default(t) for t in ty.items)})"
        if isinstance(ty, TOptional):
            return part(ty, "none")
        if isinstance(ty, TDict):
            keys = f"(as seq.empty (Seq {sort_of(ty.key)}))"
            return f"({part(ty, 'mk')} {keys} (as seq.empty (Seq {sort_of(ty.value)})))"
        return super()._default(ty)

    def _coerce(self, t: SmtTerm, want: Ty | None) -> SmtTerm:
        if want is None:
            return t
        w, h = plain(want), plain(t.ty)
        if isinstance(w, COMPOUND) and w != h and not _has_any(h) and not _has_any(w):
            self._note_type(w)
            return SmtTerm(t.defined, self._convert(t.value, h, w), w)
        return super()._coerce(t, want)

    def _convert(self, x: str, have: Ty, want: Ty) -> str:
        """``x`` of type ``have`` as a value of ``want`` (int → real inside, ``some``)."""
        if have == want:
            return x
        if isinstance(want, TReal) and isinstance(have, TInt):
            return f"(to_real {x})"
        if isinstance(want, TOptional):
            if isinstance(have, TNone):
                return part(want, "none")
            if isinstance(have, TOptional):
                inner = self._convert(f"({part(have, 'val')} {x})", have.elem, want.elem)
                test = f"((_ is {part(have, 'some')}) {x})"
                return f"(ite {test} ({part(want, 'some')} {inner}) {part(want, 'none')})"
            return f"({part(want, 'some')} {self._convert(x, have, want.elem)})"
        if isinstance(want, TTuple) and isinstance(have, TTuple):
            items = [
                self._convert(f"({part(have, str(i))} {x})", h, w)
                for i, (h, w) in enumerate(zip(have.items, want.items, strict=True))
            ]
            return f"({part(want, 'mk')} {' '.join(items)})"
        if isinstance(want, TDict) and isinstance(have, TDict) and isinstance(have.key, TAny):
            return self._default(want)
        raise EncodingError(f"a {have.show()} used as a {want.show()} has no SMT-LIB encoding")

    # ------------------------------------------------------------------ literals

    def _enc_tuple(self, e: TupleLit, bound: Bound, want: Ty | None) -> SmtTerm:
        ty = self.type_of(e, bound)
        assert isinstance(ty, TTuple)
        w = None if want is None else plain(want)
        if isinstance(w, TTuple) and len(w.items) == len(ty.items):
            ty = TTuple(tuple(join(a, b) for a, b in zip(ty.items, w.items, strict=True)))
        if any(isinstance(t, TNone) for t in ty.items):
            raise EncodingError("a tuple holding `none` where no optional type is known")
        self._note_type(ty)
        items = [self._enc(i, bound, t) for i, t in zip(e.items, ty.items, strict=True)]
        value = f"({part(ty, 'mk')} {' '.join(i.value for i in items)})"
        return SmtTerm(and_(*(i.defined for i in items)), value, ty)

    def _enc_none(self, e: NoneLit, bound: object, want: Ty | None) -> SmtTerm:
        w = None if want is None else plain(want)
        if not isinstance(w, TOptional):
            # `none == none`, `[none]`: no optional type is asked for, and every optional
            # sort has the one `none`, so any of them will do
            w = TOptional(INT)
        self._note_type(w)
        return SmtTerm("true", part(w, "none"), w)

    def _enc_dict(self, e: DictLit, bound: Bound, want: Ty | None) -> SmtTerm:
        ty = self.type_of(e, bound)
        assert isinstance(ty, TDict)
        if isinstance(want, TDict):
            ty = TDict(join(ty.key, plain(want.key)), join(ty.value, plain(want.value)))
        if isinstance(ty.key, TAny) or isinstance(ty.value, TAny):
            ty = TDict(INT if isinstance(ty.key, TAny) else ty.key, ty.value)
            ty = TDict(ty.key, INT if isinstance(ty.value, TAny) else ty.value)
        self._note_type(ty)
        table: dict[int | str, str] = {}
        defined: list[str] = []
        for kn, vn in zip(e.keys, e.values, strict=True):
            key = _key_literal(kn)
            v = self._enc(vn, bound, ty.value)
            defined.append(v.defined)
            table[key] = v.value
        order = sorted(table)  # one kind of key per dict
        keys = _seq([_key_term(k) for k in order], sort_of(ty.key))
        vals = _seq([table[k] for k in order], sort_of(ty.value))
        return SmtTerm(and_(*defined), f"({part(ty, 'mk')} {keys} {vals})", ty)

    # ------------------------------------------------------------------ access

    def _enc_index(self, e: Index, bound: Bound, want: Ty | None) -> SmtTerm:
        bt = self.type_of(e.base, bound)
        if isinstance(bt, TTuple):
            b = self._enc(e.base, bound, bt)
            pos = tuple_position(e.index)
            assert pos is not None
            pos %= len(bt.items)
            return SmtTerm(b.defined, f"({part(bt, str(pos))} {b.value})", bt.items[pos])
        if isinstance(bt, TDict):
            b = self._enc(e.base, bound, bt)
            k = self._enc(e.index, bound, bt.key)
            found, at = self._find(b.value, k.value, bt)
            value = f"(seq.nth ({part(bt, 'vals')} {b.value}) {at})"
            return SmtTerm(and_(b.defined, k.defined, found), value, bt.value)
        return super()._enc_index(e, bound, want)

    @staticmethod
    def _find(d: str, k: str, ty: TDict) -> tuple[str, str]:
        keys = f"({part(ty, 'keys')} {d})"
        return f"(seq.contains {keys} (seq.unit {k}))", f"(seq.indexof {keys} (seq.unit {k}) 0)"

    def _membership(self, left: Expr, right: Expr, bound: Bound) -> tuple[str, str, str]:
        rt = None if isinstance(right, Range) else self.type_of(right, bound)
        if isinstance(rt, TDict):
            if isinstance(rt.key, TAny):
                a = self._enc(left, bound, None)
                return a.defined, "true", "false"
            b = self._enc(right, bound, rt)
            a = self._enc(left, bound, rt.key)
            found, _ = self._find(b.value, a.value, rt)
            return a.defined, b.defined, found
        return super()._membership(left, right, bound)

    # ------------------------------------------------------------------ built-ins

    def _call_len(self, e: Call, bound: Bound, want: Ty | None) -> SmtTerm:
        t = self.type_of(e.args[0], bound)
        if isinstance(t, TTuple):
            a = self._enc(e.args[0], bound, t)
            return SmtTerm(a.defined, int_term(len(t.items)), INT)
        if isinstance(t, TDict):
            a = self._enc(e.args[0], bound, t)
            if isinstance(t.key, TAny):
                return SmtTerm(a.defined, "0", INT)
            return SmtTerm(a.defined, f"(seq.len ({part(t, 'keys')} {a.value}))", INT)
        return super()._call_len(e, bound, want)

    def _call_get(self, e: Call, bound: Bound, want: Ty | None) -> SmtTerm:
        t = self.type_of(e.args[0], bound)
        if isinstance(t, TDict) and isinstance(t.key, TAny):
            return self._get_of_empty(e, bound)
        if not isinstance(t, TDict):
            raise EncodingError("get() of a dict of no known type")
        d = self._enc(e.args[0], bound, t)
        k = self._enc(e.args[1], bound, t.key)
        found, at = self._find(d.value, k.value, t)
        hit = f"(seq.nth ({part(t, 'vals')} {d.value}) {at})"
        ty = self.type_of(e, bound)
        self._note_type(ty)
        if len(e.args) == 3:
            default = self._enc(e.args[2], bound, ty)
            hit = self._convert(hit, t.value, plain(ty))
            value = f"(ite {found} {hit} {default.value})"
            return SmtTerm(and_(d.defined, k.defined, default.defined), value, ty)
        assert isinstance(ty, TOptional)
        some = hit if isinstance(t.value, TOptional) else f"({part(ty, 'some')} {hit})"
        return SmtTerm(and_(d.defined, k.defined), f"(ite {found} {some} {part(ty, 'none')})", ty)

    def _get_of_empty(self, e: Call, bound: Bound) -> SmtTerm:
        """``get({}, k)`` is ``none`` and ``get({}, k, v)`` is ``v`` (every argument is
        still evaluated, so each must be defined)."""
        parts = [self._enc(a, bound, None) for a in e.args[:2]]
        defined = [p.defined for p in parts]
        if len(e.args) == 3:
            default = self._enc(e.args[2], bound, None)
            return SmtTerm(and_(*defined, default.defined), default.value, default.ty)
        ty = TOptional(INT)
        self._note_type(ty)
        return SmtTerm(and_(*defined), part(ty, "none"), ty)

    def _call_keys(self, e: Call, bound: Bound, want: Ty | None) -> SmtTerm:
        t = self.type_of(e.args[0], bound)
        if isinstance(t, TDict) and isinstance(t.key, TAny):
            # keys({}) is [], of the element sort the context asks for
            d = self._enc(e.args[0], bound, None)
            w = None if want is None else plain(want)
            ty = w if isinstance(w, TList) and not _has_any(w) else TList(TAny())
            self._note_type(ty)
            return SmtTerm(d.defined, f"(as seq.empty {sort_of(ty)})", ty)
        if not isinstance(t, TDict):
            raise EncodingError("keys() of a dict of no known type")
        d = self._enc(e.args[0], bound, t)
        self._note_type(TList(t.key))
        return SmtTerm(d.defined, f"({part(t, 'keys')} {d.value})", TList(t.key))

    def _call_value(self, e: Call, bound: Bound, want: Ty | None) -> SmtTerm:
        t = self.type_of(e.args[0], bound)
        if not isinstance(t, TOptional):
            raise EncodingError(f"value() of a {t.show()}")
        x = self._enc(e.args[0], bound, t)
        ok = f"((_ is {part(t, 'some')}) {x.value})"
        return SmtTerm(and_(x.defined, ok), f"({part(t, 'val')} {x.value})", t.elem)


def _has_any(ty: Ty) -> bool:
    """Whether ``ty`` has a part of no known type (from ``[]``, ``{}`` or ``none``): such
    a value is converted by its producer, which already built it at the wanted sort."""
    if isinstance(ty, TAny):
        return True
    if isinstance(ty, TList | TOptional):
        return _has_any(ty.elem)
    if isinstance(ty, TTuple):
        return any(_has_any(t) for t in ty.items)
    if isinstance(ty, TDict):
        return _has_any(ty.key) or _has_any(ty.value)
    return False


def _key_term(k: int | str) -> str:
    return string_literal(k) if isinstance(k, str) else int_term(k)
