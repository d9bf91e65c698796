"""Running a frozen round: every candidate through ``derivative batch``, then its oracle.

The pipeline sees the spec and the candidate, never the oracle. The oracle (a file of
plain ``test_*`` functions written from the requirements) runs afterwards, separately,
against the candidate's files in a sandbox of its own, with the same machinery the build
uses for a candidate's own tests: its results are the independent judge of whether a
``verified`` was right.

Figures (docs in benchmarks/README.md):

- **status accuracy**: candidates whose build status is the expected one / candidates;
- **Verified@1**: cases whose first candidate was ``verified`` *and* passes the oracle /
  cases with an oracle (the round's ceiling is the share of those cases whose first
  candidate is correct);
- **false-verified rate**: ``verified`` builds whose oracle fails / ``verified`` builds
  (the number that must be 0);
- **false-rejected**: candidates the oracle passes that were not ``verified``, with the
  build's reason.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._round import Candidate, Case


@dataclass
class Judged:
    case: Case
    candidate: Candidate
    number: int
    row: dict[str, Any]
    oracle: dict[str, Any] | None = None

    @property
    def status(self) -> str:
        return str(self.row["status"])

    @property
    def oracle_passed(self) -> bool | None:
        return None if self.oracle is None else bool(self.oracle["passed"])


def batch_manifest(cases: list[Case], folder: Path, *, sandbox: str,
                   examples: int | None) -> Path:
    """The ``derivative.batch/v1`` manifest of every candidate of the round."""
    defaults: dict[str, Any] = {"sandbox": sandbox}
    if examples is not None:
        defaults["examples"] = examples
    lines = [{"format": "derivative.batch/v1", "defaults": defaults,
              "description": "a blind round"}]
    for case in cases:
        for n, cand in enumerate(case.candidates, start=1):
            lines.append({"id": f"{case.id}--{n}",
                          "spec": [str(case.folder / s) for s in case.spec],
                          "candidate": str(case.folder / cand.path), "module": cand.module})
    path = folder / "round.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def run_oracle(case: Case, cand: Candidate, *, sandbox: str,
               contract_sha256: str) -> dict[str, Any]:
    """The case's oracle against the candidate's files, in a sandbox; never seen by the
    build. Each ``test_*`` function is one call; the oracle passes when all of them do.
    ``contract_sha256`` names the contract in the receipts (the batch row's identity)."""
    from derivative.forge.build import run_own_tests
    from derivative.forge.sandbox import Limits

    assert case.oracle is not None
    staged = Path(tempfile.mkdtemp(prefix="derivative-oracle-"))
    try:
        source = case.folder / cand.path
        shutil.copy2(source, staged / source.name)
        oracle = (case.folder / case.oracle).read_bytes()
        (staged / "oracle_test.py").write_bytes(oracle)
        results, _ = run_own_tests(staged, {"oracle_test.py": oracle},
                                   kind=sandbox,  # type: ignore[arg-type]
                                   contract_sha256=contract_sha256, limits=Limits(),
                                   image=None, launcher=None)
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    tests = [r.to_json() for r in results]
    return {"passed": bool(tests) and all(t["status"] == "passed" for t in tests),
            "tests": tests}


def figures(judged: list[Judged]) -> dict[str, Any]:
    """The round's figures from every judged candidate (see the module docstring)."""
    n = len(judged)
    right = [j for j in judged if j.status == j.candidate.expected]
    verified = [j for j in judged if j.status == "verified"]
    false_verified = [j for j in verified if j.oracle_passed is False]
    with_oracle = [j for j in judged if j.number == 1 and j.case.oracle is not None]
    v_at_1 = [j for j in with_oracle if j.status == "verified" and j.oracle_passed]
    ceiling = [j for j in with_oracle if j.oracle_passed]
    false_rejected = [j for j in judged if j.oracle_passed and j.status != "verified"]
    return {
        "candidates": n, "cases": len({j.case.id for j in judged}),
        "status_accuracy": {"right": len(right), "of": n},
        "verified_at_1": {"right": len(v_at_1), "of": len(with_oracle),
                          "ceiling": len(ceiling)},
        "false_verified": {"count": len(false_verified), "of_verified": len(verified),
                           "cases": [j.case.id for j in false_verified]},
        "false_rejected": [{"case": j.case.id, "status": j.status, "reason": j.row["reason"]}
                           for j in false_rejected],
        "oracle_disagrees_with_expected": [
            j.case.id for j in judged
            if j.oracle_passed is not None
            and j.oracle_passed != (j.candidate.expected == "verified")],
    }


def rows(judged: list[Judged]) -> list[dict[str, Any]]:
    return [{"case": j.case.id, "candidate": j.number, "domain": j.case.domain,
             "expected": j.candidate.expected, "status": j.status,
             "oracle": None if j.oracle is None else ("pass" if j.oracle_passed else "fail"),
             "seconds": j.row.get("seconds"), "reason": j.row["reason"],
             "oracle_failures": [t for t in (j.oracle or {}).get("tests", [])
                                 if t["status"] != "passed"]}
            for j in sorted(judged, key=lambda j: (j.case.id, j.number))]


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100.0 * a / b:.1f}%)" if b else f"{a}/{b}"


def render(result: dict[str, Any]) -> str:
    """The text report: the label, the figures, then one row per candidate."""
    f = result["figures"]
    v = f["verified_at_1"]
    fv = f["false_verified"]
    lines = [
        f"round {result['round']} — {result['label'].upper()} ({result['label_why']})",
        f"tool {result['tool_commit']}, {result['date']}, {result['workers']} workers, "
        f"sandbox {result['sandbox']}, {result['seconds']:.0f} s",
        f"status accuracy     {_pct(f['status_accuracy']['right'], f['status_accuracy']['of'])}",
        f"Verified@1          {_pct(v['right'], v['of'])}  (ceiling {v['ceiling']}/{v['of']}: "
        "cases whose first candidate the oracle passes)",
        f"false-verified rate {_pct(fv['count'], fv['of_verified'])}"
        + (f"  <- {', '.join(fv['cases'])}" if fv["cases"] else ""),
        f"false-rejected      {len(f['false_rejected'])}",
    ]
    lines += [f"  {x['case']}: {x['status']}: {x['reason'][:160]}" for x in f["false_rejected"]]
    if f["oracle_disagrees_with_expected"]:
        lines.append("oracle disagrees with the expected status: "
                     + ", ".join(f["oracle_disagrees_with_expected"]))
    lines += ["", "| case | expected | status | oracle | s | reason |",
              "| --- | --- | --- | --- | --- | --- |"]
    for r in result["rows"]:
        mark = "" if r["status"] == r["expected"] else " ✗"
        reason = str(r["reason"]).replace("|", "\\|").replace("\n", " ")[:110]
        lines.append(f"| {r['case']} | {r['expected']} | {r['status']}{mark} | "
                     f"{r['oracle'] or '–'} | {r['seconds'] or 0:.1f} | {reason} |")
    return "\n".join(lines)
