"""Calls as SMT-LIB: the built-ins with Python's meaning, and the core's own function.

``int(s)`` needs ``s`` in ``[0-9]+``, ``str(n)`` carries the sign, ``min``/``max`` of
a list need it non-empty, and a call of the core's function stands for ``result``
where the parameters equal its arguments (how an example pins its input).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from derivative import _regex
from derivative._ast import Call, Expr, StrLit
from derivative._builtins import takes
from derivative._types import BOOL, INT, REAL, STR, TAny, TDate, TInt, TList, TReal, TStr, Ty
from derivative._types import join_base as join

from ._smt_aux import lt_term, sort_tag
from ._smt_lists import SmtLists
from ._smt_sorts import plain, regex_term, sort_of
from ._smt_syntax import EncodingError, SmtTerm, and_, symbol
from ._smt_text import SmtText

_STRING_TESTS: Final = {"startswith": "str.prefixof", "endswith": "str.suffixof"}
_DIGITS: Final = '(re.+ (re.range "0" "9"))'


_BUILTIN_CALLS: Final = {
    "len": "_call_len",
    "abs": "_call_abs",
    "min": "_call_extreme",
    "max": "_call_extreme",
    "sum": "_call_sum",
    "int": "_call_int",
    "str": "_call_str",
    "matches": "_call_matches",
    "startswith": "_call_string_test",
    "endswith": "_call_string_test",
    "contains": "_call_string_test",
    "occurrences": "_call_occurrences",
    "sorted": "_call_sorted",
    "product": "_call_product",
    "reversed": "_call_reversed",
    # text built-ins (_smt_text)
    "lower": "_call_case",
    "upper": "_call_case",
    "strip": "_call_strip",
    "split": "_call_split",
    "join": "_call_join",
    "ord": "_call_ord",
    "chr": "_call_chr",
    # tuples, optionals and dicts: methods of ``_smt_compound.SmtCompound``
    "get": "_call_get",
    "keys": "_call_keys",
    "value": "_call_value",
}


class SmtCalls(SmtLists, SmtText):
    """Calls of built-ins and of the core's own function (see ``_smtlib.SmtEncoder``)."""

    def _enc_call(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        f = e.func
        if f == self.scope.function and f not in _BUILTIN_CALLS:
            return self._subject_call(e, bound)
        handler = _BUILTIN_CALLS.get(f)
        if handler is None:
            raise EncodingError(f"the function {f}() has no SMT-LIB encoding here")
        if any(isinstance(self.type_of(a, bound), TAny) for a in e.args):
            # every argument is evaluated, and an element of [] never is defined
            ty = self._call_type(e, bound)
            if isinstance(ty, TAny):
                ty = INT if want is None or isinstance(plain(want), TAny) else plain(want)
            self._note_type(ty)
            return SmtTerm("false", self._default(ty), ty)
        if not takes(f, len(e.args)):
            raise EncodingError(f"{f}() called with {len(e.args)} arguments")
        result: SmtTerm = getattr(self, handler)(e, bound, want)
        return result

    def _subject_call(self, e: Call, bound: Mapping[str, tuple[str, Ty]]) -> SmtTerm:
        """A call of the core's function: ``result``, where the inputs are its arguments.

        Each argument is encoded at its parameter's type and equated with the
        parameter; the equations join the call's definedness (see ``CoreScope``).
        """
        inputs = list(self.scope.inputs)
        if len(e.args) != len(inputs):
            raise EncodingError(
                f"{e.func}() is called with {len(e.args)} arguments, not {len(inputs)}"
            )
        parts: list[str] = []
        for name, arg in zip(inputs, e.args, strict=True):
            ty = self.scope.variables.get(name)
            if ty is None:
                raise EncodingError(f"the parameter {name!r} is not declared")
            a = self._enc(arg, bound, plain(ty))
            self.used_vars.add(name)
            self._note_type(ty)
            parts.extend((a.defined, f"(= {symbol(name)} {a.value})"))
        r = self._enc_result(e, bound, None)
        return SmtTerm(and_(*parts), r.value, r.ty)

    def _call_len(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        a = self._enc(e.args[0], bound, None)
        if isinstance(a.ty, TStr):
            return SmtTerm(a.defined, f"(str.len {a.value})", INT)
        if isinstance(a.ty, TList):
            return SmtTerm(a.defined, f"(seq.len {a.value})", INT)
        raise EncodingError(f"len() of a {a.ty.show()}")

    def _call_abs(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        a = self._enc(e.args[0], bound, want if want is not None else None)
        if isinstance(a.ty, TInt):
            return SmtTerm(a.defined, f"(abs {a.value})", INT)
        if isinstance(a.ty, TReal):
            return SmtTerm(a.defined, f"(ite (< {a.value} 0.0) (- {a.value}) {a.value})", REAL)
        raise EncodingError(f"abs() of a {a.ty.show()}")

    def _call_extreme(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        largest = e.func == "max"
        if len(e.args) == 1:
            xt = self.type_of(e.args[0], bound)
            if isinstance(xt, TList) and isinstance(xt.elem, TAny):
                xt = TList(INT if want is None else plain(want))
            xs = self._enc(e.args[0], bound, xt)
            if not isinstance(xs.ty, TList):
                raise EncodingError(f"{e.func}() of a {xs.ty.show()}")
            elem = plain(xs.ty.elem)
            sort = self._ordered_sort(elem)
            self.aux.add((e.func, sort))
            defined = and_(xs.defined, f"(> (seq.len {xs.value}) 0)")
            return SmtTerm(defined, f"(|py.{e.func}.{sort_tag(sort)}| {xs.value} 0)", elem)
        ty = self._call_type(e, bound)
        if isinstance(ty, TAny):
            ty = INT if want is None else plain(want)
        sort = self._ordered_sort(ty)
        args = [self._enc(a, bound, ty) for a in e.args]
        acc = args[0].value
        for a in args[1:]:
            # Python keeps the earlier value unless a later one is strictly better.
            better = lt_term(sort, acc, a.value) if largest else lt_term(sort, a.value, acc)
            acc = f"(ite {better} {a.value} {acc})"
        return SmtTerm(and_(*(a.defined for a in args)), acc, ty)

    def _is_any(self, e: Expr, bound: Mapping[str, tuple[str, Ty]]) -> bool:
        return isinstance(self.type_of(e, bound), TAny)

    def _ordered_sort(self, ty: Ty) -> str:
        if isinstance(ty, (TInt, TReal, TDate, TStr)):
            return sort_of(ty)
        raise EncodingError(f"ordering values of type {ty.show()} has no SMT-LIB encoding")

    def _call_sum(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        return self._fold(e, bound, "sum", "0")

    def _fold(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], name: str, neutral: str
    ) -> SmtTerm:
        """``sum`` or ``product`` of a list of numbers: the auxiliary ``py.NAME.SORT`` fold,
        ``neutral`` (an ``int``) for a list of no known element type."""
        xs = self._enc(e.args[0], bound, None)
        if not isinstance(xs.ty, TList):
            raise EncodingError(f"{name}() of a {xs.ty.show()}")
        elem = plain(xs.ty.elem)
        if isinstance(elem, TAny):
            return SmtTerm(xs.defined, neutral, INT)
        if not isinstance(elem, (TInt, TReal)):
            raise EncodingError(f"{name}() of a {xs.ty.show()}")
        sort = sort_of(elem)
        self.aux.add((name, sort))
        return SmtTerm(xs.defined, f"(|py.{name}.{sort}| {xs.value} 0)", elem)

    def _call_int(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        s = self._enc(e.args[0], bound, STR)
        if not isinstance(s.ty, TStr):
            raise EncodingError(f"int() of a {s.ty.show()}")
        # ``(>= (str.to_int s) 0)`` follows from the digits (SMT-LIB's definition) but
        # neither z3 nor cvc5 derives it on its own (``int(result) == -1`` stays
        # "unknown" without it), so it is spelled out (docs/decisions.md).
        value = f"(str.to_int {s.value})"
        defined = and_(s.defined, f"(str.in_re {s.value} {_DIGITS})", f"(>= {value} 0)")
        return SmtTerm(defined, value, INT)

    def _call_str(self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None) -> SmtTerm:
        n = self._enc(e.args[0], bound, INT if self._is_any(e.args[0], bound) else None)
        if not isinstance(n.ty, TInt):
            raise EncodingError(f"str() of a {n.ty.show()} has no SMT-LIB encoding")
        v = n.value
        value = f'(ite (>= {v} 0) (str.from_int {v}) (str.++ "-" (str.from_int (- {v}))))'
        return SmtTerm(n.defined, value, STR)

    def _call_matches(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        s = self._enc(e.args[0], bound, STR)
        pattern = e.args[1]
        if not isinstance(pattern, StrLit):
            raise EncodingError("matches() needs a literal pattern")
        try:
            tree = _regex.parse(pattern.value)
        except _regex.RegexError as err:
            raise EncodingError(f"bad pattern {pattern.value!r}: {err}") from None
        return SmtTerm(s.defined, f"(str.in_re {s.value} {regex_term(tree)})", BOOL)

    def _call_string_test(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        s = self._enc(e.args[0], bound, STR)
        p = self._enc(e.args[1], bound, STR)
        if not (isinstance(s.ty, TStr) and isinstance(p.ty, TStr)):
            raise EncodingError(f"{e.func}() of non-strings")
        defined = and_(s.defined, p.defined)
        if e.func == "contains":
            return SmtTerm(defined, f"(str.contains {s.value} {p.value})", BOOL)
        return SmtTerm(defined, f"({_STRING_TESTS[e.func]} {p.value} {s.value})", BOOL)

    def _call_occurrences(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        xs_t = self.type_of(e.args[0], bound)
        x_t = self.type_of(e.args[1], bound)
        if not isinstance(xs_t, TList):
            raise EncodingError(f"occurrences() in a {xs_t.show()}")
        elem = join(xs_t.elem, x_t)
        if isinstance(elem, TReal) and isinstance(plain(xs_t.elem), TInt):
            raise EncodingError("occurrences() of a real in a list of ints is not supported")
        xs = self._enc(e.args[0], bound, TList(elem))
        x = self._enc(e.args[1], bound, elem)
        self._note_type(elem)
        sort = sort_of(elem)
        self.aux.add(("occ", sort))
        return SmtTerm(
            and_(xs.defined, x.defined),
            f"(|py.occurrences.{sort_tag(sort)}| {xs.value} {x.value} 0)",
            INT,
        )

    def _call_sorted(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        xs = self._enc(e.args[0], bound, want)
        if not isinstance(xs.ty, TList):
            raise EncodingError(f"sorted() of a {xs.ty.show()}")
        elem = plain(xs.ty.elem)
        if isinstance(elem, TAny):
            return xs
        sort = self._ordered_sort(elem)
        self.aux.add(("sorted", sort))
        return SmtTerm(xs.defined, f"(|py.sorted.{sort_tag(sort)}| {xs.value} 0)", xs.ty)

    def _call_product(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        return self._fold(e, bound, "product", "1")

    def _call_reversed(
        self, e: Call, bound: Mapping[str, tuple[str, Ty]], want: Ty | None
    ) -> SmtTerm:
        xs = self._enc(e.args[0], bound, want)
        if not isinstance(xs.ty, TList):
            raise EncodingError(f"reversed() of a {xs.ty.show()}")
        elem = plain(xs.ty.elem)
        if isinstance(elem, TAny):
            return xs
        sort = sort_of(elem)
        self._note_type(xs.ty)
        self.aux.add(("reversed", sort))
        return SmtTerm(xs.defined, f"(|py.reversed.{sort_tag(sort)}| {xs.value} 0)", xs.ty)
