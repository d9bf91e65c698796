"""Hostile: a forward reference built from pieces, evaluated through typing's private API.

typing.List[text] compiles text as a forward reference; typing.get_args hands the
ForwardRef back, and its private _evaluate runs eval on it: the code imports os and
prints the canary, then yields int so that the evaluation succeeds.
"""

import typing


def f(x: int) -> int:
    canary = "__imp" + "ort__('os').environ.get('DERIVATIVE_CANARY')"
    code = f"({canary} and print('DERIVATIVE-BREACH forward_ref_evaluate:', {canary}), int)[1]"
    reference = list(typing.get_args(typing.List[code]))[0]
    reference._evaluate({}, {}, frozenset())
    return x + 1
