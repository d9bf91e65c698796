"""The SMT-LIB 2.6 printer: a certificate's core as a script any SMT solver can re-check.

The printer is the third reading of the AST (docs/architecture.md), next to the Z3
encoding and the evaluator, and it must mean exactly what the evaluator means
(docs/language.md §7).  It is written independently of the solver package on purpose: the
certificate checker re-encodes a core with this module and compares the text, so the
certificate never relies on the code that found the conflict.

What a core member asserts: that its expression is *defined and true*.  Every
expression is therefore encoded as a pair of SMT terms, its definedness ``d`` and its
value ``v``, built compositionally with Python's left-to-right short-circuiting:

- ``a and b``: ``d = d_a & (!v_a | d_b)``; ``or`` and ``implies`` alike; ``iff`` and
  arithmetic need both sides; ``if`` needs the condition and the chosen branch;
- comparison chains stop at the first false link, so a later operand only needs to
  be defined when every earlier link held;
- ``/ // %`` need a non-zero divisor, ``xs[i]`` needs ``0 <= i < len(xs)``, ``int(s)``
  needs ``s`` in ``[0-9]+``, date arithmetic must stay within 0001-01-01..9999-12-31,
  ``min``/``max`` of a list need a non-empty list;
- ``forall``/``exists``/``all``/``any`` evaluate their body in order and stop at the
  first deciding value, so they are defined exactly when every undefined body is
  preceded by a deciding one (encoded with a nested quantifier, only when the body
  can be undefined at all).

Python semantics that SMT-LIB does not share are spelt out: SMT-LIB ``div``/``mod``
are Euclidean, so ``//`` and ``%`` are helper functions that flip signs for a
negative divisor; dates are ``Int`` ordinals (``date.toordinal``); enums are
datatypes whose constructors are ``Enum.member``; a declared date variable gets an
unnamed assertion that it is a calendar day (its type's domain, not a core member);
lists are sequences (the solvers'
common extension); ``sum``, ``min``/``max`` of a list, ``occurrences`` and ``sorted``
are recursive functions (``define-fun-rec``).  Constructs without a faithful
encoding (``count``, ordering of lists, ``str`` of a bool is fine but of a real is
not) raise ``EncodingError`` rather than approximate.

The output is deterministic: the same core and scope give the same text, byte for
byte, which is what lets the checker compare scripts textually.

This module assembles the script (declarations, helpers, named assertions) and is the
printer's face inside the layer; the encoding is layered below it: ``_smt_syntax``
(symbols, literals, connectives), ``_smt_sorts`` (sorts, values, regexes, the scope),
``_smt_aux`` (helper definitions), ``_smt_typing`` (expression types), ``_smt_expr``
(expressions) and ``_smt_calls`` (calls), each class extending the one before.
"""

from __future__ import annotations

from collections.abc import Sequence

from derivative._ast import Expr
from derivative._types import TDate, Ty

from ._smt_aux import AUX_ORDER, aux_definitions
from ._smt_compound import SmtCompound, declaration, dict_domain
from ._smt_sorts import CoreScope, plain, regex_term, sort_of, value_term
from ._smt_syntax import (
    MAX_DATE_ORDINAL,
    MIN_DATE_ORDINAL,
    EncodingError,
    SmtTerm,
    constructor_symbol,
    label_symbol,
    string_literal,
    symbol,
)

__all__ = [
    "MAX_DATE_ORDINAL",
    "MIN_DATE_ORDINAL",
    "CoreScope",
    "EncodingError",
    "SmtEncoder",
    "SmtTerm",
    "encode_script",
    "label_symbol",
    "regex_term",
    "sort_of",
    "string_literal",
    "symbol",
    "value_term",
]


class SmtEncoder(SmtCompound):
    """Encodes expressions of one core and assembles the script around them.

    Use ``term(expr)`` for each expression (it records which names, enums and
    helpers are needed), then ``preamble()`` and ``taken_symbols()`` for the
    declarations and the labels (``encode_script`` does all of it).
    """

    def preamble(self) -> list[str]:
        """Declarations for everything ``term`` has used so far (and the fixed inputs)."""
        scope = self.scope
        lines = ["(set-logic ALL)"]
        for name in sorted(scope.fixed):
            self._note_type(scope.variables[name])
        for name in self.used_consts:
            self._note_type(scope.consts[name][0])
        for name in sorted(self.used_enums):
            enum = self._enum(name)
            ctors = " ".join(f"({constructor_symbol(name, m)})" for m in enum.members)
            lines.append(f"(declare-datatypes (({symbol(name)} 0)) (({ctors})))")
        for ty in list(self.used_compound):
            lines.append(declaration(ty))
        for kind in AUX_ORDER:
            for key in sorted(k for k in self.aux if k[0] == kind):
                lines.extend(aux_definitions(key))
        for name in sorted(self.used_consts):
            ty, value = scope.consts[name]
            lines.append(f"(define-fun {symbol(name)} () {sort_of(ty)} {value_term(value, ty)})")
        names = sorted(set(self.used_vars) | set(scope.fixed))
        for name in names:
            ty = scope.variables[name]
            if name in scope.fixed:
                lines.append(
                    f"(define-fun {symbol(name)} () {sort_of(ty)} "
                    f"{value_term(scope.fixed[name], ty)})"
                )
            else:
                lines.append(f"(declare-fun {symbol(name)} () {sort_of(ty)})")
                lines.extend(_domain(symbol(name), ty))
        if self.used_result:
            lines.append(f"(declare-fun result () {sort_of(self._result_type())})")
            lines.extend(_domain("result", self._result_type()))
        lines.extend(self.comprehensions)
        return lines

    def taken_symbols(self) -> set[str]:
        """Spec names that appear as SMT symbols (a label must differ from all of them)."""
        out = set(self.used_vars) | set(self.scope.fixed) | set(self.used_consts)
        out |= set(self.used_enums)
        for name in self.used_enums:
            out |= {f"{name}.{m}" for m in self._enum(name).members}
        return out


def _domain(sym: str, ty: Ty) -> list[str]:
    """What the sort does not say about a variable's values: a date is a calendar day.

    Unnamed, so not part of the core: it belongs to the type, like a datatype's members.
    """
    if isinstance(ty, TDate):
        return [f"(assert (and (<= {MIN_DATE_ORDINAL} {sym}) (<= {sym} {MAX_DATE_ORDINAL})))"]
    return dict_domain(sym, plain(ty))


def encode_script(members: Sequence[tuple[str, Expr]], scope: CoreScope) -> str:
    """The SMT-LIB 2.6 script of a core: each member asserted defined and true, named by id.

    ``members`` are ``(id, expression)`` pairs in core order.  The script declares
    what the expressions use, fixes the witness input (``scope.fixed``, where there
    is one to fix) with ``define-fun`` outside the core, and ends with ``(check-sat)``.
    """
    encoder = SmtEncoder(scope)
    terms = [(ident, encoder.term(expr).holds) for ident, expr in members]
    lines = encoder.preamble()
    taken = encoder.taken_symbols()
    seen: set[str] = set()
    for ident, holds in terms:
        label = label_symbol(ident, taken)
        if label in seen:
            raise EncodingError(f"two core members are both named {ident!r}")
        seen.add(label)
        lines.append(f"(assert (! {holds} :named {label}))")
    lines.append("(check-sat)")
    return "\n".join(lines) + "\n"
