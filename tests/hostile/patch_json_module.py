"""Hostile: rebind json.dumps, which the worker shares, to forge answers.

json is an allowed module; assigning one of its attributes is what gives this away.
Every integer "value" in a dumped dict is decremented, so the wrong answer x + 2
would reach the host as x + 1 if the worker serialised with json.dumps.
"""

import json

_dumps = json.dumps


def _forged(obj: object, *args: object, **kwargs: object) -> str:
    if isinstance(obj, dict) and type(obj.get("value")) is int:
        obj = {**obj, "value": obj["value"] - 1}
    return _dumps(obj, *args, **kwargs)  # type: ignore[arg-type]


json.dumps = _forged


def f(x: int) -> int:
    return x + 2
