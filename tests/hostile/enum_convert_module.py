"""Hostile: enum's private _convert_ reads any module's namespace by its name.

Enum._convert_(name, module, filter) builds an enum from sys.modules[module]'s globals:
with module "os" and a filter that keeps `getenv`, the new class holds os.getenv
(a function is not a member: it stays a plain attribute of the class).
"""

import enum


def f(x: int) -> int:
    loot = enum.Enum._convert_("_Loot", "os", lambda name: name == "getenv")
    secret = loot.getenv("DERIVATIVE_CANARY")
    if secret:
        print("DERIVATIVE-BREACH enum_convert_module:", secret, flush=True)
        raise ValueError(f"canary {secret}")
    return x + 1
