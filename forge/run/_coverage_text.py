"""Candidate coverage in words: the ``evidence:`` line's phrase and the lines after it."""

from __future__ import annotations

from typing import Any

__all__ = ["coverage_lines", "coverage_phrase"]

SHOWN = 10
"""Never-run lines named in the text report (the document lists up to ``MAX_LISTED``)."""


def coverage_phrase(figures: dict[str, Any] | None, measured: bool) -> str:
    """``candidate coverage 41 of 44 lines, 11 of 14 branches`` (or why there is none)."""
    if not measured:
        return "candidate coverage not measured"
    if figures is None:
        return "candidate coverage withheld (a forged answer)"
    bound = " at least" if figures["lower_bound"] else ""
    return (f"candidate coverage{bound} {figures['lines_run']} of {figures['lines']} lines, "
            f"{figures['branches_run']} of {figures['branches']} branches")


def coverage_lines(strength: dict[str, Any] | None) -> list[str]:
    """``never run: mod.py:12, mod.py:14 (and 3 more)`` and where generation stopped
    short of a plateau; nothing when every line ran and it stopped on its own."""
    if strength is None:
        return []
    out: list[str] = []
    figures = strength.get("coverage")
    if figures and figures["never_run_count"]:
        shown = figures["never_run"][:SHOWN]
        more = figures["never_run_count"] - len(shown)
        out.append("never run by any input: " + ", ".join(shown)
                   + (f" (and {more} more)" if more > 0 else ""))
    if figures and figures["branches_missed_count"]:
        shown = figures["branches_missed"][:SHOWN]
        more = figures["branches_missed_count"] - len(shown)
        out.append("branches no input took: " + ", ".join(shown)
                   + (f" (and {more} more)" if more > 0 else ""))
    budget = strength.get("budget") or {}
    for owner, why in sorted((budget.get("stopped") or {}).items()):
        what = (f"the budget of {budget['max_examples']} inputs" if why == "examples"
                else "the time safety net")
        out.append(f"coverage of {owner} still grew when {what} stopped its inputs")
    return out
