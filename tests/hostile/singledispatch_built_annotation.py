"""Hostile: an annotation that is a string built at run time, evaluated at import.

The annotation below is a name, not a literal: its value is a string assembled from
pieces.  functools.singledispatch's register resolves it with typing.get_type_hints,
which evaluates the string: it imports os, prints the canary, and yields int.
"""

import functools

_HINT = (
    "(__imp" + "ort__('os').environ.get('DERIVATIVE_CANARY') and print("
    "'DERIVATIVE-BREACH singledispatch_built_annotation:', __imp" + "ort__('os')"
    ".environ.get('DERIVATIVE_CANARY'), flush=True), int)[1]"
)


@functools.singledispatch
def _describe(value: object) -> str:
    return "value"


@_describe.register
def _(value: _HINT) -> str:  # type: ignore[valid-type]
    return "int"


def f(x: int) -> int:
    return x + 1
