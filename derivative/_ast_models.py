"""Pydantic mirrors of the syntax-tree nodes: the published form, validated.

``derivative._ast`` keeps the nodes as plain immutable classes so that parsing and
checking never import pydantic (start-up).  Everything that needs the published form
as a model comes here: the JSON Schema (``derivative/schemas/derivative.ast.schema.json``
and the ``ast`` field of ``contract/v1``), and full validation of node data from
outside (``Node.model_validate``).  Each mirror is made from its node class — the same
name, docstring, fields in the same order, defaults, exclusions and constraints, and
the same discriminated unions — so the two cannot drift; a test compares them.
"""

from __future__ import annotations

import functools
import typing
from typing import Annotated, Any, Literal, TypeVar, Union

from pydantic import BaseModel, ConfigDict, model_validator
from pydantic import Field as PydanticField

from derivative import _ast as A

N = TypeVar("N", bound=A.Node)


class MirrorNode(BaseModel):
    """Base of the mirrors: frozen, no extra fields, the node's own checks after."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    @model_validator(mode="after")
    def _node_checks(self) -> MirrorNode:
        node_class = _NODE_OF[type(self)]
        node_class._trusted_check(self)  # type: ignore[arg-type]  # reads the same fields
        return self


def _node_classes() -> list[type[A.Node]]:
    return [
        v
        for v in vars(A).values()
        if isinstance(v, type) and issubclass(v, A.Node) and v is not A.Node
    ]


def _field(spec: A.FieldSpec) -> Any:
    kwargs: dict[str, Any] = {}
    if spec.default_factory is not None:
        kwargs["default_factory"] = spec.default_factory
    elif not spec.is_required():
        kwargs["default"] = spec.default
    if spec.exclude:
        kwargs["exclude"] = True
    if not spec.repr:
        kwargs["repr"] = False
    if spec.min_length is not None:
        kwargs["min_length"] = spec.min_length
    return PydanticField(**kwargs)


_MIRROR_OF: dict[type, type[MirrorNode]] = {}
_NODE_OF: dict[type, type[A.Node]] = {}


def _union(alias: Any, namespace: dict[str, Any]) -> Any:
    """A discriminated union alias of ``_ast`` rebuilt over the mirrors."""
    union, marker = typing.get_args(alias)
    members = tuple(namespace[c.__name__] for c in typing.get_args(union))
    return Annotated[Union[members], PydanticField(discriminator=marker.field)]  # noqa: UP007


@functools.cache
def _build() -> None:
    classes = _node_classes()
    for cls in classes:
        fields = {
            name: (spec.annotation, _field(spec)) for name, spec in cls.model_fields.items()
        }
        mirror: type[MirrorNode] = type(
            cls.__name__,
            (MirrorNode,),
            {
                "__module__": __name__,
                "__qualname__": cls.__name__,
                "__doc__": cls.__dict__.get("__doc__"),
                "__annotations__": {n: a for n, (a, _) in fields.items()},
                **{n: f for n, (_, f) in fields.items()},
            },
        )
        _MIRROR_OF[cls] = mirror
        _NODE_OF[mirror] = cls
    namespace: dict[str, Any] = {c.__name__: _MIRROR_OF[c] for c in classes}
    for name, value in vars(A).items():
        args = typing.get_args(value)
        if typing.get_origin(value) is Annotated and isinstance(args[-1], A.Discriminator):
            namespace[name] = _union(value, namespace)
        elif name in ("ArithOp", "LogicOp", "CompareOp", "ObligationKind"):
            namespace[name] = value
    namespace["Literal"] = Literal
    for mirror in _NODE_OF:
        mirror.model_rebuild(_types_namespace=namespace)
    globals().update({f"{k}": v for k, v in namespace.items() if k[0].isupper()})


def mirror(cls: type[A.Node]) -> type[MirrorNode]:
    """The pydantic model of a node class."""
    _build()
    return _MIRROR_OF[cls]


def to_node(value: Any) -> Any:
    """Validated mirror data back to the plain nodes (without checking again)."""
    if isinstance(value, MirrorNode):
        cls = _NODE_OF[type(value)]
        return A._rebuild(cls, {n: to_node(getattr(value, n)) for n in cls.model_fields})
    if isinstance(value, tuple):
        return tuple(to_node(v) for v in value)
    if isinstance(value, list):
        return [to_node(v) for v in value]
    if isinstance(value, dict):
        return {k: to_node(v) for k, v in value.items()}
    return value


def validate(cls: type[N], data: Any) -> N:
    """``data`` (JSON-shaped, or a node) fully validated as a ``cls`` node."""
    if isinstance(data, A.Node):
        data = data.json_data() | {
            n: getattr(data, n) for n, s in type(data).model_fields.items() if s.exclude
        }
    node: N = to_node(mirror(cls).model_validate(data))
    return node


def expr_model() -> Any:
    """The mirror of the ``Expr`` union (for documents with a syntax tree in them)."""
    _build()
    return globals()["Expr"]
