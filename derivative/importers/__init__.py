"""Importers: other tools' requirement exports written as timed requirements (``.req``).

``import_fret`` reads NASA FRET's JSON export, ``import_hanfor`` Hanfor's CSV export; both
take the export's text and return an ``ImportResult``: the ``.req`` text (one ``timed``
block per component) and the account of every requirement, translated or not, with the
reason.  ``read_export`` reads an export file as a spec file is read.  An export that is
not what its importer reads raises ``BadExport`` (exit 2).  docs/importers.md has the
translation tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._fret import import_fret
from ._hanfor import import_hanfor
from ._input import BadExport, read_export
from ._model import ImportOptions, ImportResult, NotTranslated, Translated

if TYPE_CHECKING:
    from ._document import ImportDocument as ImportDocument

__all__ = [
    "BadExport",
    "ImportDocument",
    "ImportOptions",
    "ImportResult",
    "NotTranslated",
    "Translated",
    "import_fret",
    "import_hanfor",
    "read_export",
]


def __getattr__(name: str) -> Any:
    """``ImportDocument`` (a pydantic model) is imported on first use: only ``--json`` and
    the schema generator need it."""
    if name == "ImportDocument":
        from ._document import ImportDocument

        return ImportDocument
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
