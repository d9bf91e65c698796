"""The timed layer: requirements over a discrete clock, checked up to a depth.

``check_components(contract, components)`` type-checks ``timed`` blocks (the grammar
reads them: ``derivative.grammar.load_set``); ``check_component`` decides one up to
``TimedOptions.depth`` steps by unrolling it into an ordinary requirement set that the
untimed checker decides and certifies (docs/language.md §14).
"""

from __future__ import annotations

from derivative._timed_ast import MAX_DEPTH
from derivative._timed_unroll import contract_at, step_name

from ._check import TimedOptions, TimedResult, check_component
from ._report import render_text, result_json
from ._typecheck import check_components

__all__ = [
    "MAX_DEPTH",
    "TimedOptions",
    "TimedResult",
    "check_component",
    "check_components",
    "contract_at",
    "render_text",
    "result_json",
    "step_name",
]
