"""The type checker: names, types, arities and shapes of a parsed contract (docs/language.md §5-8).

``check(contract)`` returns a ``TypeInfo`` (resolved enums, constants and their
values, params, signatures, and ``scope``/``result_type``/``type_of`` for the
back-ends) or raises ``SpecErrors`` listing *every* problem found, each with file,
line, column, source line and, where one helps, a hint.  Everything downstream
(the Z3 encoding, the evaluator, the test generator) may assume what is checked
here and need not re-check it.

Typing rules (the design is silent on some; each decision is written here and
tested in ``tests/unit/test_typecheck*.py``):

- ``int`` is promoted to ``real`` in mixed arithmetic and comparisons, and wherever a
  ``real`` is expected (a ``real`` const written ``1``, an example argument).  Never the
  other way.  ``bool`` is not a number.
- ``+ - *`` on two ints give int, with a real operand real; ``/`` always gives real;
  ``//`` and ``%`` on two ints give int, with a real operand real (Python's floor
  semantics, as the evaluator implements them); ``a ** n`` needs an int ``n`` and keeps
  ``a``'s type (int or real).
- ``+`` concatenates ``str + str`` and ``list + list`` (element types must agree, an
  int list and a real list give a real list); ``*`` is numeric only (no repetition).
- dates: ``date - date`` is int (days), ``date + int``, ``int + date`` and ``date - int``
  are dates; no other arithmetic on dates.
- unary ``-`` on int/real; ``not`` on bool.
- ``== !=`` need operands of one base type (int/real mix allowed; an enum only with its
  own enum; lists element-wise; ``[]`` with any list).  ``< <= > >=`` need both sides
  int/real, both str, or both date.
- ``x in LO..HI``: ``x``, ``LO``, ``HI`` int.  ``x in xs``: ``xs`` a list whose elements
  can be compared with ``==`` to ``x``.  ``p in s``: both str (substring).
- a range ``LO..HI`` anywhere but right of ``in``/``not in`` is an error.
- ``xs[i]``: ``i`` int; a list gives its element type, a str gives str (one character).
- ``if C then A else B``: ``C`` bool, ``A`` and ``B`` of one type (as for ``==``; int and
  real give real).
- quantifier bounds int, variable int, body bool; ``all/any(E for x in xs)``: ``xs`` a
  list, ``x`` of its element type, ``E`` bool.  Bound variables shadow everything.
- built-ins: ``len(str|list) -> int``; ``abs(int) -> int``, ``abs(real) -> real``;
  ``min/max`` of two or more values of one ordered type (int/real mix gives real; str;
  date) or of one list of such -> that type; ``sum(list[int]) -> int``,
  ``sum(list[real]) -> real`` (``sum([])`` is int); ``int(str) -> int``;
  ``str(int) -> str``; ``matches(str, "RE") -> bool`` where RE must be a string
  *literal* in the supported regex subset (so it can be checked and encoded);
  ``startswith/endswith/contains(str, str) -> bool``; ``occurrences(list[T], T) -> int``
  (lists only; use ``contains`` for strings); ``sorted(list[T]) -> list[T]`` for an
  ordered ``T``; ``lower/upper/strip(str) -> str``; ``split(str, str) -> list[str]``;
  ``join(str, list[str]) -> str``; ``ord(str) -> int``; ``chr(int) -> str``.
  ``all(xs)``/``any(xs)`` without a generator are errors.
- refinement types (``int in 0..9``, ``str matching "..."``) are their base type in
  expressions; a name (and ``result``) keeps its declared, refined type, the result of
  an operator or built-in is a base type.
- ``[]`` has type ``list[any]``; ``any`` (also the type given to an ill-typed
  sub-expression, so that one mistake is reported once) meets every type.  Arithmetic
  with an ``any`` operand has the one result all readings agree on (``x + 0.5`` is
  real), else ``any``.
- ``result``: in ``ensures`` (the function's/operation's return type) and in ``count``
  predicates (the counted operation's return type); an operation that returns ``none``
  has no ``result``.
- scopes: requirements see params and consts; function/operation clauses see the
  parameters and consts (a param there is an error with a hint); a parameter with the
  name of a const is an error (it would shadow it); examples see consts only (their
  call is the function itself, with literal or const arguments); invariants see consts
  and ``count(...)``, whose ``where`` predicate sees the counted operation's parameters,
  ``result`` and consts.
- examples: ``CALL == V`` / ``CALL raises E`` where CALL calls the owning function
  (or, for an operation, the operation by its bare name), with the right number of
  arguments, each of the parameter's type and, evaluated, inside its refinement; ``V``
  of the return type (an operation returning ``none`` only has ``raises`` examples).
  Spec functions cannot be called anywhere else.
- ``count(OP where P, per X)`` only in invariants, ``OP`` an operation of the same
  system, ``X`` one of OP's parameters, ``P`` bool; the count must be a direct operand
  of a comparison ``== < <= > >=`` whose other operands are integer literals or int
  constants.
- consts: evaluated in dependency order (any declaration order), from literals, other
  consts and built-ins only; a cycle, an undefined value (``1 // 0``), a value outside
  the declared type or its refinement is an error.  A ``real`` const holds a
  ``Fraction`` even if written as an integer.
- ``int in LO..HI``: bounds are integer literals, negated literals or int constants,
  ``LO <= HI``.  ``none`` only as an operation's result.  A declared exception's base
  is a built-in exception or a declared one (no cycles); declaring a built-in name is an
  error.  ``from op`` names an operation of the same system whose result has the
  parameter's base type (refinements may differ).  ``bind NAME to "module:attr"`` names
  a declared function, system, enum or exception.
- errors are sorted by file, line and column; a regex error points at the offending
  character inside the string literal (escapes and raw strings followed).

The checker is split by job into private modules; this one runs them in order:

==========================  =============================================================
``_typeinfo``               ``TypeInfo`` and ``Signature``: what the checker resolved
``_typecheck_base``         what an expression sees (``Ctx``), the errors (``State``), hints
``_typecheck_positions``    where an error points (columns inside string literals)
``_typecheck_expr``         expressions: literals, names, operators, binders, ``count``
``_typecheck_calls``        calls: one ``_builtin_<name>`` per built-in, spec calls
``_typecheck_decls``        declarations: names, enums, exceptions, types, signatures, binds
``_typecheck_consts``       constants, evaluated in dependency order
``_typecheck_obligations``  obligations by kind, and the shape of examples
``_typecheck_values``       computed values against types (refinements, int to real)
==========================  =============================================================

The join of two types, ``assignable`` and ``comparable`` are in ``derivative._types``.
"""

from __future__ import annotations

from derivative._ast import Contract
from derivative._errors import SpecErrors
from derivative._gcpause import collector_paused
from derivative._typecheck_consts import check_consts
from derivative._typecheck_decls import Declarations
from derivative._typecheck_obligations import check_obligation
from derivative._typecheck_values import value_fits
from derivative._typeinfo import Signature, TypeInfo
from derivative._types import assignable, join


def check(contract: Contract) -> TypeInfo:
    """Type-check ``contract``; ``SpecErrors`` with every problem found.

    With the cyclic collector paused (``collector_paused``): the checker allocates a few
    small long-lived objects per obligation (types, scopes) and no cycles worth
    collecting, and the collector's full passes over the whole syntax tree made the check
    of 100,000 requirements 2.8 times slower than linear growth from 10,000
    (``benchmarks/growth.py``).
    """
    with collector_paused():
        return _check(contract)


def _check(contract: Contract) -> TypeInfo:
    d = Declarations(contract)
    d.collect()
    d.exceptions()
    check_consts(d)
    d.params()
    d.signatures()
    d.binds()
    for ob in contract.obligations:
        check_obligation(d, ob)
    if d.state.errors:
        errors = sorted(d.state.errors, key=lambda e: (e.file or "", e.line or 0, e.column or 0))
        raise SpecErrors(errors)
    return d.info


__all__ = [
    "Signature",
    "TypeInfo",
    "assignable",
    "check",
    "join",
    "value_fits",
]
