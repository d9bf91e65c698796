"""The types of the names of a condition: how each is used, and whether it all fits.

An export without declarations leaves every type open, so ``uses`` says how a condition
uses each name (as a condition, in arithmetic, beside a decimal literal, compared with
another name) for ``_assemble`` to infer the types; ``check_type`` then refuses a
condition that is not a well-typed bool once the types are settled, so that what is
written always type-checks.
"""

from __future__ import annotations

from collections.abc import Mapping

from ._expr import COMPARE_OPS
from ._tree import PAST_FORMS, Bin, Bool, Call, Name, Node, Num, Un, Untranslatable, children

__all__ = ["check_type", "shape", "uses"]

_LOGIC = {"iff", "implies", "or", "and", "xor"}
_ORDER = {"<", "<=", ">", ">="}


def shape(node: Node) -> str | None:
    """``bool``, ``real`` or ``int`` when the form of ``node`` says it, else ``None`` (a bare
    name, or the call of an unknown function)."""
    if isinstance(node, Bool) or (isinstance(node, Call) and node.function in PAST_FORMS):
        return "bool"
    if isinstance(node, Un):
        return "bool" if node.op == "not" else shape(node.operand) or "int"
    if isinstance(node, Bin):
        if node.op in _LOGIC or node.op in COMPARE_OPS:
            return "bool"
        return "real" if _has_real(node) or node.op == "/" else "int"
    if isinstance(node, Num):
        return "real" if node.is_real else "int"
    return None


def _has_real(node: Node) -> bool:
    if isinstance(node, Num):
        return node.is_real
    return any(_has_real(c) for c in children(node) if not isinstance(c, Call))


def uses(node: Node) -> list[tuple[str, str]]:
    """How each name of ``node`` is used: ``bool`` (as a condition), ``int`` or ``real``
    (in arithmetic or an ordering; ``real`` beside a decimal literal), or ``=NAME`` (compared
    for equality with the name ``NAME``, whose type it shares)."""
    out: list[tuple[str, str]] = []
    _uses(node, "bool", out)
    return out


def _uses(node: Node, want: str, out: list[tuple[str, str]]) -> None:
    if isinstance(node, Name):
        out.append((node.name, want))
    elif isinstance(node, Un):
        _uses(node.operand, "bool" if node.op == "not" else _numeric(node), out)
    elif isinstance(node, Bin) and node.op in _LOGIC:
        _uses(node.left, "bool", out)
        _uses(node.right, "bool", out)
    elif isinstance(node, Bin) and node.op in ("==", "!="):
        _equality(node, out)
    elif isinstance(node, Bin):
        numeric = _numeric(node)
        _uses(node.left, numeric, out)
        _uses(node.right, numeric, out)
    elif isinstance(node, Call):
        _call_uses(node, out)


def _numeric(node: Node) -> str:
    return "real" if _has_real(node) else "int"


def _equality(node: Bin, out: list[tuple[str, str]]) -> None:
    left, right = shape(node.left), shape(node.right)
    known = left or right
    if known is not None:
        if known != "bool":
            known = _numeric(node)
        _uses(node.left, known, out)
        _uses(node.right, known, out)
        return
    if isinstance(node.left, Name) and isinstance(node.right, Name):
        out.append((node.left.name, "=" + node.right.name))
        out.append((node.right.name, "=" + node.left.name))
        return
    _uses(node.left, "int", out)
    _uses(node.right, "int", out)


def _call_uses(node: Call, out: list[tuple[str, str]]) -> None:
    if node.function in PAST_FORMS and node.args:
        _uses(node.args[-1], "bool", out)
    else:
        for arg in node.args:
            _uses(arg, shape(arg) or "int", out)


# ------------------------------------------------------------------------------ checking

_NUMERIC = ("int", "real")


def check_type(node: Node, types: Mapping[str, str]) -> None:
    """Refuse (``Untranslatable``) a condition that is not a well-typed ``bool`` once the
    names have the types ``types`` (``bool``, ``int``, ``real``, ``int in A..B``): what
    the importer writes must type-check, and a source condition such as ``true < x`` has no
    meaning to carry over."""
    found = _type_of(node, types)
    if found != "bool":
        raise Untranslatable(f"a condition is {found}, not bool")


def _kind(type_: str) -> str:
    return "int" if type_.startswith("int") else type_


def _type_of(node: Node, types: Mapping[str, str]) -> str:
    if isinstance(node, Name):
        return _kind(types.get(node.name, "bool"))
    if isinstance(node, Num):
        return "real" if node.is_real else "int"
    if isinstance(node, Bool):
        return "bool"
    if isinstance(node, Call):  # a past form here: the other calls were refused when written
        inner = _type_of(node.args[-1], types) if node.args else "bool"
        if inner != "bool":
            raise Untranslatable(f"a past form of {inner}, not bool")
        return "bool"
    if isinstance(node, Un):
        inner = _type_of(node.operand, types)
        want = "bool" if node.op == "not" else "a number"
        if (inner == "bool") != (node.op == "not"):
            raise Untranslatable(f"{'not' if node.op == 'not' else 'minus'} of {inner}, "
                                 f"not {want}")
        return inner
    return _binary_type(node, types)


def _binary_type(node: Bin, types: Mapping[str, str]) -> str:
    left, right = _type_of(node.left, types), _type_of(node.right, types)
    if node.op in _LOGIC:
        if left == right == "bool":
            return "bool"
        raise Untranslatable(f"{node.op} of {left} and {right}, not two bools")
    if node.op in ("==", "!="):
        if (left == "bool") == (right == "bool"):
            return "bool"
        raise Untranslatable(f"{node.op} between {left} and {right}")
    if left not in _NUMERIC or right not in _NUMERIC:
        raise Untranslatable(f"{node.op} of {left} and {right}, not two numbers")
    if node.op in _ORDER:
        return "bool"
    if node.op == "/" or "real" in (left, right):
        return "real"
    return "int"
