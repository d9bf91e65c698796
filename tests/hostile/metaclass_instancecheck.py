"""Hostile: a metaclass plants __match_args__ and answers every isinstance with yes.

Nothing in the class body names an attribute: the metaclass's __new__ adds a
__match_args__ built at run time to the namespace, and its __instancecheck__ lets any
subject match, so `case _Probe(namespace)` reads Fraction.__new__.__globals__.
"""

from fractions import Fraction


class _Meta(type):
    def __new__(mcs, name, bases, namespace):  # type: ignore[no-untyped-def]
        namespace["__match" + "_args__"] = ("__glo" + "bals__",)
        return super().__new__(mcs, name, bases, namespace)

    def __instancecheck__(cls, instance: object) -> bool:
        return True


class _Probe(metaclass=_Meta):
    pass


def f(x: int) -> int:
    match Fraction.__new__:
        case _Probe(namespace):
            secret = namespace["sys"].modules["os"].environ.get("DERIVATIVE_CANARY")
            if secret:
                print("DERIVATIVE-BREACH metaclass_instancecheck:", secret, flush=True)
                raise ValueError(f"canary {secret}")
    return x + 1
