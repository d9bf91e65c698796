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

_UNUSED = "a module constant the functions never read"
_MESSAGE = "only the exception's message changes; the contract observes its class"
_SAME_ERROR = "the input then raises ValueError further on anyway, as the contract asks"
_MEMBERS = ("runs only for a value that is not the candidate's own enum member, and the "
            "candidate is always given its own members (docs/language.md section 6)")
_UNLOCKED_READ = "the lock only guards one read; the value returned is the same"
_NO_CLAUSE = "the contract says nothing about this operation's effect or result"
_COLLISION = ("reached only when two 32-hex-digit SHA-256 prefixes collide (no input is known "
              "to: equivalent in practice, not provably)")
_TIE = "at the boundary both branches give the same value"

EQUIVALENT: dict[str, str] = {
    "list_max_empty:2:return first value early": "max() of an empty list raises ValueError",
    "wrong_result_type_bool:3:cmp[0] In->NotIn": "consonants also count 0..len(s), all the "
    "contract asks",
    "examples/password_policy:55:return None early": _NO_CLAUSE + " (forget)",
    "examples/password_policy:47:cmp[0] Lt->LtE": "the contract only says passwords shorter "
    "than 12 are rejected; 12 may be too",
    "examples/password_policy:35:const 1->2": _TOKENS,
    "examples/password_policy:35:const 1->0": _TOKENS,
    "round-1/a-db-pool-budget:12:if-body dropped": "reserved >= db_max leaves a share <= 0, "
    "which raises ValueError at the next check",
    "round-1/a-db-pool-budget:12:cmp[0] GtE->Gt": "reserved == db_max leaves a share of 0, "
    "which raises ValueError at the next check",
    "round-1/a-db-pool-budget:17:binop Sub->Add": _MESSAGE,
    "round-1/a-db-pool-budget:17:swap Sub operands": _MESSAGE,
    **{f"round-1/a-retry-deadline:{line}:const {v}->{v + d}": _UNUSED
       for line, v in ((5, 500), (6, 5000), (7, 10000), (8, 60000)) for d in (1, -1)},
    "round-1/a-upload-limits:7:const 16->17": _UNUSED,
    "round-1/a-upload-limits:7:const 16->15": _UNUSED,
    "round-1/a-volume-tier-price:3:const 10000->10001": _UNUSED,
    "round-1/a-volume-tier-price:3:const 10000->9999": _UNUSED,
    "round-1/a-volume-tier-price:4:const 10000->10001": _UNUSED,
    "round-1/a-volume-tier-price:4:const 10000->9999": _UNUSED,
    "round-1/a-volume-tier-price:10:last statement dropped": "the final raise is unreachable: "
    "every quantity it is called with (>= 1) has a tier",
    "round-1/a-volume-tier-price:14:raise dropped": "unreachable: every quantity it is called "
    "with (>= 1) has a tier",
    "round-1/a-volume-tier-price:7:const 1->0": "a tier from 0 instead of 1: no quantity 0 "
    "ever reaches the tier table (requires >= 1; line_total returns 0 first)",
    "round-1/a-volume-tier-price:18:if-body dropped": _SAME_ERROR + " (no tier for it)",
    "round-1/a-volume-tier-price:18:const 0->-1": _SAME_ERROR + " (-1 has no tier)",
    "round-1/c-email-verification-single-use:46:return None early": _NO_CLAUSE + " (revoke)",
    "round-1/c-email-verification-single-use:39:if-body dropped": _NO_CLAUSE + " (redeem of a "
    "revoked link: only single_use, an upper bound on ok)",
    "round-1/c-email-verification-single-use:48:if-body dropped": _NO_CLAUSE + " (revoke)",
    "round-1/c-email-verification-single-use:48:cmp[0] In->NotIn": _NO_CLAUSE + " (revoke)",
    "round-1/c-email-verification-single-use:24:const 1->2": _TOKENS,
    "round-1/c-email-verification-single-use:24:const 1->0": _TOKENS,
    "round-1/c-email-verification-single-use:32:slice upper dropped": _COLLISION,
    "round-1/c-email-verification-single-use:32:const 32->33": _COLLISION,
    "round-1/c-email-verification-single-use:32:const 32->31": _COLLISION,
    "round-1/c-order-lifecycle-transitions:40:not removed": _MEMBERS,
    "round-1/c-order-lifecycle-transitions:41:not removed": _MEMBERS,
    "round-1/c-order-lifecycle-transitions:47:binop Sub->Add": _MESSAGE,
    "round-1/c-order-lifecycle-transitions:47:swap Sub operands": _MESSAGE,
    "round-1/c-sms-user-and-minute-limits:28:return first value early": _UNLOCKED_READ,
    "round-1/c-token-bucket-refill:10:return None early": _MESSAGE + " (RateLimited.__init__)",
    "round-1/c-token-bucket-refill:10:last statement dropped": "an attribute of the exception "
    "the contract never reads",
    "round-1/c-token-bucket-refill:29:cmp[0] LtE->Lt": _TIE + " (0 * REFILL_MS == 0)",
    "round-1/c-token-bucket-refill:29:const 0->-1": _TIE + " (0 * REFILL_MS == 0)",
    "round-2/d-peak-memory-so-far:8:cmp[0] GtE->Gt": _TIE + " (the sample equals the peak)",
    "round-2/e-api-key-rotate-once:28:return first value early": "create without the lock: "
    "only rotate is counted, and two keys collide only if secrets.token_hex repeats",
    "round-2/e-api-key-rotate-once:41:return first value early": _UNLOCKED_READ,
    "round-2/e-api-key-rotate-once:45:return first value early": _UNLOCKED_READ,
    "round-2/e-api-key-rotate-once:49:return None early": _NO_CLAUSE + " (revoke; the "
    "summary's 'a revoked key cannot be rotated' has no clause)",
    "round-2/e-api-key-rotate-once:34:if-body dropped": _NO_CLAUSE + " (rotate of a revoked "
    "key: only the upper bound 'once')",
    "round-2/e-api-key-rotate-once:34:cmp[0] In->NotIn": "rotate then never rotates; the "
    "contract only bounds rotations from above",
    **{f"round-2/e-api-key-rotate-once:47:{c}": _NO_CLAUSE + " (is_live)"
       for c in ("bool And->Or", "cmp[0] In->NotIn", "cmp[0] NotIn->In", "cmp[0] NotIn->In#2")},
    "round-2/e-elevator-car-controller:45:index +1": _MEMBERS,
    "round-2/e-elevator-car-controller:45:index -1": _MEMBERS,
    "enum_member_mistake:4:const 1->0": _BY_NAME,
    "enum_member_mistake:6:const 3->4": _BY_NAME,
    "list_max_empty:3:if-body dropped": "max() of an empty list raises ValueError itself",
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
