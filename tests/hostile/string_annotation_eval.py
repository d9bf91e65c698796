"""Hostile: a string annotation that typing.get_type_hints evaluates at import time.

functools.singledispatch resolves the annotation of every function registered on it
with get_type_hints, i.e. eval: the string below imports os and prints the canary,
then evaluates to int so that the registration succeeds.
"""

import functools


@functools.singledispatch
def _describe(value: object) -> str:
    return "value"


@_describe.register
def _(value: "(__import__('os').environ.get('DERIVATIVE_CANARY') and print('DERIVATIVE-BREACH string_annotation_eval:', __import__('os').environ.get('DERIVATIVE_CANARY'), flush=True), int)[1]") -> str:  # noqa: E501
    return "int"


def f(x: int) -> int:
    return x + 1
