"""Surviving mutants judged equivalent by reading them: each meets its contract on every
valid input, exactly as the original does (``benchmarks/mutation.py`` leaves them out of the
kill rate).  A key is ``subject:line:change`` (``python benchmarks/mutation.py --list``); the
value says why.  When in doubt a survivor is *not* listed here: it counts as a miss.
"""

from __future__ import annotations

_BY_NAME = "enum members are matched by name; their values are never observed"
_CONTINUOUS = "the price is continuous at 5000 g: both tiers give 899 there"
_UNSPECIFIED = "the contract only says short passwords (< 12) are rejected"
_TOKENS = "the contract never looks at how tokens are spelled"

EQUIVALENT: dict[str, str] = {
    "enum_member_mistake:4:const 1->0": _BY_NAME,
    "enum_member_mistake:6:const 3->4": _BY_NAME,
    "list_max_empty:3:if-body dropped": "max() of an empty list raises ValueError itself",
    "list_max_empty:4:raise dropped": "max() of an empty list raises ValueError itself",
    "shipping_cost_tiers:5:cmp[0] LtE->Lt": _CONTINUOUS,
    "shipping_cost_tiers:5:const 5000->5001": _CONTINUOUS,
    "shipping_cost_tiers:5:const 5000->4999": _CONTINUOUS,
    "token_store_race:11:const 12->13": _UNSPECIFIED,
    "token_store_race:27:cmp[0] Lt->LtE": _UNSPECIFIED,
    "token_store_race:16:const 1->2": _TOKENS,
    "token_store_race:16:const 1->0": _TOKENS,
    "wrong_result_type_bool:3:const 1->0": "0 is within 0..len(s), all the contract asks",
}

__all__ = ["EQUIVALENT"]
