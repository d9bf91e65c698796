"""Type checks of expressions: literals, names, operators, comparisons, binders, count.

The typing rules are listed in ``derivative/_typecheck.py``; calls are checked by
``_typecheck_calls.CallChecks``, of which ``ExprChecker`` is the rest.
"""

from __future__ import annotations

from collections import ChainMap

from derivative._ast import (
    BinOp,
    BoolOp,
    Compare,
    Count,
    DateLit,
    EnumMember,
    Expr,
    Generator,
    IfExpr,
    Index,
    IntLit,
    ListComp,
    ListLit,
    Name,
    Quantifier,
    Range,
    RealLit,
    Result,
    Slice,
    StrLit,
    Unary,
)
from derivative._depth import MAX_DEPTH
from derivative._typecheck_base import Ctx, did_you_mean, is_bool, is_int, is_num
from derivative._typecheck_calls import CallChecks
from derivative._typecheck_compound import CompoundChecks
from derivative._types import (
    BOOL,
    DATE,
    INT,
    REAL,
    STR,
    TAny,
    TBool,
    TDate,
    TDict,
    TEnum,
    TInt,
    TList,
    TNone,
    TRange,
    TReal,
    TStr,
    TTuple,
    Ty,
    base,
    comparable,
    join,
    join_base,
)

# --------------------------------------------------------------------------- arithmetic


_CANDIDATES: tuple[Ty, ...] = (INT, REAL, STR, DATE, TList(TAny()))
"""What an operand of unknown type (an element of ``[]``) might be, for arithmetic."""


def _arith(op: str, a: Ty, b: Ty) -> Ty | None:
    """Result type of ``a op b`` for a BinOp, or None if undefined on these types.

    An operand of unknown type (``TAny``: an element of ``[]``) is tried as every type
    that arithmetic accepts; the result is the one outcome if all possible readings
    agree (``x + 0.5`` is real), else unknown (``x + 1`` may be an int or a date)."""
    if isinstance(a, TAny) and isinstance(b, TAny):
        return REAL if op == "/" else TAny()
    if isinstance(a, TAny) or isinstance(b, TAny):
        outcomes: set[Ty] = set()
        for cand in _CANDIDATES:
            r = _arith(op, cand, b) if isinstance(a, TAny) else _arith(op, a, cand)
            if r is not None:
                outcomes.add(r)
        if not outcomes:
            return None
        return outcomes.pop() if len(outcomes) == 1 else TAny()
    num_a, num_b = is_num(a), is_num(b)
    if op == "+":
        if num_a and num_b:
            return join_base(a, b)
        if isinstance(a, TStr) and isinstance(b, TStr):
            return STR
        if isinstance(a, TList) and isinstance(b, TList):
            e = join(a.elem, b.elem)
            return None if e is None else TList(base(e))
        if isinstance(a, TDate) and isinstance(b, TInt):
            return DATE
        if isinstance(a, TInt) and isinstance(b, TDate):
            return DATE
        return None
    if op == "-":
        if num_a and num_b:
            return join_base(a, b)
        if isinstance(a, TDate) and isinstance(b, TDate):
            return INT
        if isinstance(a, TDate) and isinstance(b, TInt):
            return DATE
        return None
    if op == "**":
        # int ** int is an int, real ** int a real; a real exponent has no exact
        # value (2 ** 0.5), so it is not part of the language.
        return base(a) if num_a and isinstance(b, TInt) else None
    if not (num_a and num_b):
        return None
    if op == "/":
        return REAL
    return join_base(a, b)


# --------------------------------------------------------------------------- the checker


class ExprChecker(CompoundChecks, CallChecks):
    """Computes the type of an expression, recording errors instead of stopping."""

    # ------------------------------------------------------------------ leaves

    def visit_int(self, node: IntLit) -> Ty:
        return INT

    def visit_real(self, node: RealLit) -> Ty:
        return REAL

    def visit_str(self, node: StrLit) -> Ty:
        return STR

    def visit_bool(self, node: Expr) -> Ty:
        return BOOL

    def visit_date(self, node: DateLit) -> Ty:
        return DATE

    def visit_list(self, node: ListLit) -> Ty:
        elem: Ty = TAny()
        for item in node.items:
            t = self.visit(item)
            if isinstance(t, TRange):
                continue
            j = join(elem, t)
            if j is None:
                self.err(item, f"list items must have one type: {elem.show()} and {t.show()}")
                return TList(TAny())
            elem = j
        return TList(base(elem))

    def visit_enum_member(self, node: EnumMember) -> Ty:
        enums = self.state.info.enums
        enum = enums.get(node.enum)
        if enum is None:
            return self.err(node, f"unknown enum {node.enum!r}", did_you_mean(node.enum, enums))
        if node.member not in enum.members:
            return self.err(
                node,
                f"enum {node.enum} has no member {node.member!r}",
                did_you_mean(node.member, enum.members) or "members: " + ", ".join(enum.members),
            )
        return enum

    def visit_name(self, node: Name) -> Ty:
        name = node.id
        if name in self.bound:
            return self.bound[name]
        known = self.ctx.names.get(name)  # one lookup: a sheet reads 100,000 names
        if known is not None:
            return known
        if name in self.ctx.forbidden:
            message, hint = self.ctx.forbidden[name]
            return self.err(node, message, hint)
        info = self.state.info
        if name in info.enums:
            members = info.enums[name].members
            return self.err(
                node,
                f"{name!r} is an enum, not a value",
                f"write a member, e.g. {name}.{members[0]}" if members else None,
            )
        if name in info.signatures or name in self.ctx.callables:
            return self.err(node, f"{name!r} is a function, not a value", f"call it: {name}(...)")
        candidates = [*self.bound, *self.ctx.names]
        return self.err(node, f"unknown name {name!r}", did_you_mean(name, candidates))

    def visit_result(self, node: Result) -> Ty:
        if self.ctx.result is None:
            return self.err(node, self.ctx.result_error or "`result` is not available here")
        if isinstance(self.ctx.result, TNone):
            return self.err(node, "`result` has no value: the operation returns none")
        return self.ctx.result

    # ------------------------------------------------------------------ operators

    def visit_unary(self, node: Unary) -> Ty:
        t = self.visit(node.operand)
        if node.op == "not":
            if not is_bool(t):
                return self.err(node, f"`not` needs a bool, not {t.show()}")
            return BOOL
        if not is_num(t):
            return self.err(node, f"unary `-` needs an int or real, not {t.show()}")
        return base(t) if not isinstance(t, TAny) else t

    def visit_binop(self, node: BinOp) -> Ty:
        """Typed step by step from the left, as the run is evaluated (``d + 1 + 2`` is a date
        at every step).  A step that fails is reported and gives ``any``, and the steps
        after it are checked from there: exactly what the nested binary form reported."""
        acc = self._operand(node.operands[0])
        date_steps = 0
        for operand in node.operands[1:]:
            b = self._operand(operand)
            date_steps += isinstance(acc, TDate) or isinstance(b, TDate)
            acc = self._step(node, acc, b)
        if date_steps > MAX_DEPTH:
            # Each step of date arithmetic must stay in the calendar, so every reading
            # nests one level per step (unlike numbers, whose sums are flat).
            return self.err(
                node,
                f"a run of `{node.op}` takes more than {MAX_DEPTH} steps on a date",
                "add the days first: `d + (n1 + n2 + ...)`",
            )
        return acc

    def _operand(self, operand: Expr) -> Ty:
        t = self.visit(operand)
        if isinstance(t, TRange):
            return self.err(operand, "a range LO..HI may only follow `in` or `not in`")
        return t

    def _step(self, node: BinOp, a: Ty, b: Ty) -> Ty:
        """The type of one step ``a op b`` of the run ``node`` (``any`` if undefined)."""
        r = _arith(node.op, a, b)
        if r is not None:
            return r
        hint = None
        if node.op == "+" and (isinstance(a, TStr) or isinstance(b, TStr)):
            hint = "convert numbers with str(n), strings with int(s)"
        elif node.op == "*" and isinstance(a, (TStr, TList)):
            hint = "`*` is numeric only (no repetition)"
        elif node.op == "**" and is_num(a) and is_num(b):
            hint = "the exponent of `**` must be an int (a real exponent has no exact value)"
        message = f"operator `{node.op}` cannot combine {a.show()} and {b.show()}"
        return self.err(node, message, hint)

    def visit_boolop(self, node: BoolOp) -> Ty:
        for side in node.operands:
            t = self.visit(side)
            if not is_bool(t):
                self.err(side, f"operands of `{node.op}` must be bool, not {t.show()}")
        return BOOL

    def visit_compare(self, node: Compare) -> Ty:
        has_count = any(isinstance(o, Count) for o in node.operands)
        if has_count and self.ctx.count_allowed:
            self._check_count_comparison(node)
        types: list[Ty] = []
        for i, operand in enumerate(node.operands):
            if isinstance(operand, Range) and i > 0 and node.ops[i - 1] in ("in", "not in"):
                types.append(TRange())
                self._range(operand)
            elif isinstance(operand, Range):
                self.visit(operand)  # reports the misplaced range
                types.append(TAny())
            else:
                types.append(self.visit(operand))
        for i, op in enumerate(node.ops):
            left, right = types[i], types[i + 1]
            lnode, rnode = node.operands[i], node.operands[i + 1]
            if isinstance(left, TRange):
                # `x in 1..3 < y`: the range would also be the left of the next link.
                self.err(lnode, "a range LO..HI may only follow `in` or `not in`")
                continue
            if isinstance(left, TAny) or isinstance(right, TAny):
                continue
            if op in ("in", "not in"):
                self._membership(op, lnode, left, rnode, right)
            elif isinstance(right, TRange):
                self.err(rnode, "a range LO..HI may only follow `in` or `not in`")
            elif op in ("==", "!="):
                if not comparable(left, right):
                    self.err(
                        lnode,
                        f"cannot compare {left.show()} with {right.show()} using `{op}`",
                        self._compare_hint(left, right),
                    )
            elif not (
                (is_num(left) and is_num(right))
                or (isinstance(left, TStr) and isinstance(right, TStr))
                or (isinstance(left, TDate) and isinstance(right, TDate))
            ):
                hint = None
                if isinstance(left, (TBool, TEnum)) or isinstance(right, (TBool, TEnum)):
                    hint = "bools and enums have no order; use == or !="
                else:
                    hint = self._compare_hint(left, right)
                self.err(lnode, f"cannot order {left.show()} and {right.show()} with `{op}`", hint)
        return BOOL

    @staticmethod
    def _compare_hint(left: Ty, right: Ty) -> str | None:
        if {type(base(left)), type(base(right))} <= {TStr, TInt, TReal}:
            return "convert with int(s) or str(n)"
        return None

    def _membership(self, op: str, lnode: Expr, left: Ty, rnode: Expr, right: Ty) -> None:
        if isinstance(right, TRange):
            if not is_int(left):
                self.err(lnode, f"`{op} LO..HI` needs an int on the left, not {left.show()}")
        elif isinstance(right, TList):
            if not comparable(left, right.elem):
                self.err(
                    lnode,
                    f"cannot look for {left.show()} in a {right.show()}",
                )
        elif isinstance(right, TDict):
            self.dict_membership(op, lnode, left, right)
        elif isinstance(right, TStr):
            if not isinstance(left, TStr):
                self.err(lnode, f"`{op}` on a str looks for a substring: {left.show()} is no str")
        else:
            self.err(
                rnode,
                f"`{op}` needs a list, a str, a dict or a range LO..HI on the right, "
                f"not {right.show()}",
            )

    def _range(self, node: Range) -> None:
        for bound in (node.lo, node.hi):
            t = self.visit(bound)
            if not is_int(t):
                self.err(bound, f"range bounds must be int, not {t.show()}")

    def visit_range(self, node: Range) -> Ty:
        self._range(node)
        self.err(node, "a range LO..HI may only follow `in` or `not in`", "write `x in LO..HI`")
        return TRange()

    def visit_if(self, node: IfExpr) -> Ty:
        self.cond(node.cond, "the condition of `if`")
        a = self.visit(node.then)
        b = self.visit(node.orelse)
        j = join(a, b)
        if j is None or isinstance(j, TRange):
            return self.err(
                node, f"the branches of `if` have different types: {a.show()} and {b.show()}"
            )
        return j if a == b else base(j)

    def _with_bound(self, var: str, ty: Ty, body: Expr, what: str) -> None:
        saved = self.bound.get(var)
        self.bound[var] = ty
        try:
            self.cond(body, what)
        finally:
            if saved is None:
                del self.bound[var]
            else:
                self.bound[var] = saved

    def visit_quant(self, node: Quantifier) -> Ty:
        for bound in (node.lo, node.hi):
            t = self.visit(bound)
            if not is_int(t):
                self.err(bound, f"bounds of `{node.quantifier}` must be int, not {t.show()}")
        self._with_bound(node.var, INT, node.body, f"the body of `{node.quantifier}`")
        return BOOL

    def visit_gen(self, node: Generator) -> Ty:
        t = self.visit(node.iterable)
        elem: Ty = TAny()
        if isinstance(t, TList):
            elem = t.elem
        elif not isinstance(t, TAny):
            self.err(
                node.iterable, f"{node.func}(... for {node.var} in XS) needs a list, not {t.show()}"
            )
        self._with_bound(node.var, elem, node.body, f"the body of {node.func}(...)")
        return BOOL

    def visit_slice(self, node: Slice) -> Ty:
        """``base[lo:hi]``: a list or string of the base's type; bounds are ints."""
        b = self.visit(node.base)
        for bound in (node.lo, node.hi):
            if bound is not None:
                t = self.visit(bound)
                if not is_int(t):
                    self.err(bound, f"a slice bound must be an int, not {t.show()}")
        if isinstance(b, TList | TAny):
            return b
        if isinstance(b, TStr):
            return STR
        return self.err(node, f"cannot slice a {b.show()}; only lists and strings")

    def visit_listcomp(self, node: ListComp) -> Ty:
        """``[E for x in xs if C]``: ``x`` takes the item type, ``C`` is a bool, and the
        result is a list of ``E``'s (unrefined) type."""
        t = self.visit(node.iterable)
        elem: Ty = TAny()
        if isinstance(t, TList):
            elem = t.elem
        elif not isinstance(t, TAny):
            self.err(node.iterable, f"[... for {node.var} in XS] needs a list, not {t.show()}")
        saved = self.bound.get(node.var)
        self.bound[node.var] = elem
        try:
            if node.cond is not None:
                self.cond(node.cond, "the condition of a list comprehension")
            body = self.visit(node.body)
        finally:
            if saved is None:
                del self.bound[node.var]
            else:
                self.bound[node.var] = saved
        if isinstance(body, TNone):
            return self.err(node.body, "a list comprehension's items need a value")
        return TList(base(body))

    def visit_index(self, node: Index) -> Ty:
        b = self.visit(node.base)
        if isinstance(b, (TTuple, TDict)):
            return self.compound_index(node, b)
        i = self.visit(node.index)
        if not is_int(i):
            self.err(node.index, f"an index must be an int, not {i.show()}")
        if isinstance(b, TList):
            return b.elem
        if isinstance(b, TStr):
            return STR
        if isinstance(b, TAny):
            return b
        return self.err(
            node, f"cannot index a {b.show()}; only lists, strings, tuples and dicts"
        )

    # ------------------------------------------------------------------ count

    def _check_count_comparison(self, node: Compare) -> None:
        consts = self.state.info.const_types
        for operand in node.operands:
            if isinstance(operand, Count):
                self.count_operands.add(id(operand))
                continue
            if isinstance(operand, IntLit):
                continue
            if (
                isinstance(operand, Unary)
                and operand.op == "-"
                and isinstance(operand.operand, IntLit)
            ):
                continue
            if (
                isinstance(operand, Name)
                and operand.id not in self.bound
                and isinstance(consts.get(operand.id), TInt)
            ):
                continue
            self.err(
                operand,
                "a count is compared with an integer literal or an int constant",
                "e.g. count(reset where result == Outcome.ok, per token) <= 1",
            )
        for op in node.ops:
            if op not in ("==", "<", "<=", ">", ">="):
                self.err(
                    node,
                    f"a count cannot be compared with `{op}`",
                    "use <=, <, == (upper bounds) or >=, > (lower bounds)",
                )
                break

    def visit_count(self, node: Count) -> Ty:
        system = self.ctx.system
        if not self.ctx.count_allowed or system is None:
            return self.err(node, "count(...) is only allowed in system invariants")
        if id(node) not in self.count_operands:
            self.err(
                node,
                "count(...) must be compared directly with a bound: count(OP where P) <= N",
            )
        op = next((o for o in system.operations if o.name == node.op), None)
        if op is None:
            return self.err(
                node,
                f"system {system.name} has no operation {node.op!r}",
                did_you_mean(node.op, [o.name for o in system.operations]),
            )
        sig = self.state.info.signatures.get(op.qualname)
        if sig is None:
            return INT
        if node.per is not None and node.per not in {n for n, _, _ in sig.params}:
            self.err(
                node,
                f"`per {node.per}`: {node.per!r} is not a parameter of {op.qualname}",
                did_you_mean(node.per, [n for n, _, _ in sig.params])
                or "parameters: " + ", ".join(n for n, _, _ in sig.params),
            )
        if node.where is not None:
            names = ChainMap({n: t for n, t, _ in sig.params}, self.state.info.const_types)
            inner = ExprChecker(
                self.state,
                Ctx(
                    file=self.ctx.file,
                    names=names,
                    result=sig.returns,
                    forbidden=self.ctx.forbidden,
                    line=node.line or self.ctx.line,
                    column=node.col or self.ctx.column,
                ),
            )
            inner.bound = dict(self.bound)
            inner.cond(node.where, "the `where` predicate of count")
        return INT
