"""``derivative build`` (being built): the ledger, publishing as a transaction, the package.

This face exports the ledger, publishing and packaging names; the build pipeline's names
join it when that lands. Other rooms and the CLI import only the names below.
"""

from __future__ import annotations

from ._lease import BuildLease
from ._ledger import (
    STATUSES,
    BuildError,
    BuildStatus,
    Ledger,
    LedgerAnswer,
    LedgerRecord,
    default_state_dir,
    utc_now,
)
from ._package import (
    PackageCheck,
    in_toto_statement,
    make_package,
    result_predicate,
    verify_package,
    wheel_name,
)
from ._publish import OUTCOME_FILE, publish, write_atomic

__all__ = [
    "OUTCOME_FILE",
    "STATUSES",
    "BuildError",
    "BuildLease",
    "BuildStatus",
    "Ledger",
    "LedgerAnswer",
    "LedgerRecord",
    "PackageCheck",
    "default_state_dir",
    "in_toto_statement",
    "make_package",
    "publish",
    "result_predicate",
    "utc_now",
    "verify_package",
    "wheel_name",
    "write_atomic",
]
