"""Canonical JSON and the contract's identity (docs/language.md §11).

Canonical JSON: UTF-8, keys sorted, no insignificant whitespace, and no floats
(reals travel as exact decimal or ``p/q`` strings).  The identity of a contract is
the SHA-256 of the canonical JSON of its *meaning*: declarations, obligation
kinds, expressions, raised exception names and explicit identifiers.  Positions,
comments, quoted texts, tags, order and the split into files are left out, so
reformatting or reordering never changes it, and any change of meaning does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from derivative._ast import Contract, Decl, Expr, Node, Obligation, SystemDecl


def _reject_floats(obj: Any) -> None:
    if isinstance(obj, float):
        raise TypeError("floats are not allowed in canonical JSON; use an exact string")
    if isinstance(obj, dict):
        for v in obj.values():
            _reject_floats(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _reject_floats(v)


def canonical_json(obj: Any) -> bytes:
    """Canonical JSON bytes of a JSON-safe object (dicts, lists, str, int, bool, None)."""
    _reject_floats(obj)
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def _node_json(obj: Any) -> bytes:
    """``canonical_json`` of data built by ``Node.json_data`` (and the plain fields around
    it), which holds no float by construction: the check for floats is skipped."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_json(obj: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of ``obj``."""
    return sha256_hex(canonical_json(obj))


def expr_json(expr: Expr) -> Any:
    """The position-free JSON form of an expression (what identity and ids hash)."""
    return expr.json_data()


def content_sha(kind: str, owner: str | None, expr: Expr, exception: str | None) -> str:
    """The SHA-256 (hex) of an obligation's content, whose start generated ids carry."""
    payload = {"kind": kind, "owner": owner, "expr": expr_json(expr), "exception": exception}
    return sha256_json(payload)


def content_digest(kind: str, owner: str | None, expr: Expr, exception: str | None) -> str:
    """Six hex digits derived from an obligation's content, for generated identifiers."""
    return content_sha(kind, owner, expr, exception)[:6]


def distinct_prefixes(digests: list[str], shortest: int = 6) -> list[int]:
    """For each digest, the length of its prefix that no *different* digest shares.

    At least ``shortest`` and even, so that ids stay the familiar six hex digits until two
    different contents happen to share them (about one pair in 5,000 unnamed clauses of
    one owner); equal digests (identical content) are not told apart, so they still
    collide, which the loader reports as such.  Sorted neighbours are the only digests
    that can share the longest prefix with one, so this is O(n log n).
    """
    def common(a: str, b: str) -> int:
        n = 0
        for x, y in zip(a, b, strict=False):
            if x != y:
                break
            n += 1
        return n

    distinct = sorted(set(digests))
    longest: dict[str, int] = {}
    for i, d in enumerate(distinct):
        near = [distinct[j] for j in (i - 1, i + 1) if 0 <= j < len(distinct)]
        longest[d] = max((common(d, o) for o in near), default=0)
    need = []
    for d in digests:
        length = max(shortest, longest[d] + 1)
        need.append(min(len(d), length + length % 2))
    return need


def _decl_meaning(d: Decl) -> Any:
    data = d.json_data()
    if d.kind == "enum":
        data["members"] = sorted(data["members"])
    if isinstance(d, SystemDecl):
        data["operations"] = sorted(data["operations"], key=lambda op: op["name"])
    return data


def _obligation_meaning(o: Obligation) -> Any:
    return {
        "kind": o.kind,
        "owner": o.owner,
        "expr": expr_json(o.expr),
        "exception": o.exception,
        "id": None if o.generated_id else o.id,
    }


def contract_meaning(contract: Contract) -> Any:
    """The canonical, order-free form of what a contract means."""
    decls = [_decl_meaning(d) for d in contract.declarations if d.kind != "bind"]
    obligations = [_obligation_meaning(o) for o in contract.obligations]
    return {
        "tolerance": contract.tolerance,
        "declarations": sorted(decls, key=lambda x: canonical_json(x)),
        "obligations": sorted(obligations, key=lambda x: canonical_json(x)),
    }


def contract_identity(contract: Contract) -> str:
    """SHA-256 of the contract's canonical meaning (docs/language.md §11).

    The same bytes as ``canonical_json(contract_meaning(contract))``, built so that each
    declaration and obligation is serialised once (sorting by canonical JSON would
    otherwise serialise every item twice): with sorted keys the object is
    ``{"declarations":[...],"obligations":[...],"tolerance":...}``.  A test holds the
    two forms equal.
    """
    global _last_identity
    last = _last_identity
    if last is not None and last[0] is contract:
        return last[1]
    decls = sorted(_node_json(_decl_meaning(d)) for d in contract.declarations
                   if d.kind != "bind")
    obligations = sorted(_node_json(_obligation_meaning(o)) for o in contract.obligations)
    data = b"".join((
        b'{"declarations":[', b",".join(decls),
        b'],"obligations":[', b",".join(obligations),
        b'],"tolerance":', canonical_json(contract.tolerance), b"}",
    ))
    digest = sha256_hex(data)
    _last_identity = (contract, digest)
    return digest


_last_identity: tuple[Contract, str] | None = None
"""The last contract hashed and its identity.  A contract is immutable, and one ``check``
asks for its identity more than once (the report, then the certificate): at 10,000
requirements each computation is a tenth of a second.  One entry, compared by object
identity, so nothing is hashed to look it up."""


def timed_identity(contract: Contract, timed: Sequence[Node]) -> str:
    """The identity of a set with ``timed`` blocks: the untimed identity and each block's
    meaning (signals, modes, requirements: their forms and identifiers as written, not
    their quoted texts, tags or generated identifiers), blocks in name order.  A set
    without blocks keeps ``contract_identity``."""
    untimed = contract_identity(contract)
    if not timed:
        return untimed
    blocks = []
    for block in sorted(timed, key=lambda b: str(getattr(b, "name", ""))):
        data = block.json_data()
        data["requirements"] = sorted(
            (
                {k: v for k, v in r.items() if k not in ("tags", "text", "source")}
                | ({"id": None} if r.get("generated_id") else {})
                for r in data.get("requirements", [])
            ),
            key=lambda r: canonical_json(r),
        )
        blocks.append(data)
    return sha256_json({"untimed": untimed, "timed": blocks})
