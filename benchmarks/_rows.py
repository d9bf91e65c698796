"""One row of ``run_all``'s table: a benchmark's headline figure against its goal.

Each benchmark's ``figures(quick)`` returns these, so that the table and its JSON are
built in one place (``run_all``) while each benchmark keeps what its figures mean.
"""

from __future__ import annotations

from typing import TypedDict


class TableRow(TypedDict):
    """A figure, what it is compared with, and whether it meets the goal.

    ``ratio`` is ours / baseline (a number) when the figure is a ratio; otherwise the figure
    itself as text ("found at schedule 7"), including "not measured: ...".  ``met`` is None
    when nothing was measured (no Docker engine): neither a pass nor a miss.
    """

    figure: str
    baseline: str
    ratio: float | str | None
    goal: str
    met: bool | None
    benchmark: str
    detail: str


def table_row(benchmark: str, figure: str, *, baseline: str, ratio: float | str | None,
              goal: str, met: bool | None, detail: str = "") -> TableRow:
    """A row with every key (keywords, so that no two columns can be swapped)."""
    return TableRow(figure=figure, baseline=baseline, ratio=ratio, goal=goal, met=met,
                    benchmark=benchmark, detail=detail)


def not_measured(reason: str) -> str:
    """The ratio column's text for a backend this machine cannot give (its short reason)."""
    if "no Docker engine" in reason:
        return "not measured: no Docker engine"
    if "is not present" in reason:
        return "not measured: no sandbox image"
    return f"not measured: {reason.splitlines()[0][:80]}"
