"""Hostile: walk object.__subclasses__() to find a module that imported sys, then os.

No import at all: the classic escape from restricted Python.
"""


def _find_os() -> object | None:
    for cls in ().__class__.__base__.__subclasses__():
        namespace = getattr(cls.__init__, "__globals__", None)
        if isinstance(namespace, dict) and "sys" in namespace:
            modules = namespace["sys"].modules
            if "os" in modules:
                return modules["os"]
    return None


def f(x: int) -> int:
    os_module = _find_os()
    if os_module is not None:
        secret = os_module.environ.get("DERIVATIVE_CANARY")
        if secret:
            print("DERIVATIVE-BREACH subclasses_walk:", secret, flush=True)
            raise ValueError(f"canary {secret}")
    return x + 1
