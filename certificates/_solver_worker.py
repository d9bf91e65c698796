"""Run one SMT-LIB script in one solver, in a process of its own.

    python _solver_worker.py z3|cvc5 [--proof] [--rlimit N] < script.smt2

prints one JSON object: ``{"solver", "version", "result", "detail", "proof"}`` where
``result`` is ``sat``, ``unsat``, ``unknown``, ``error`` (the script was refused) or
``missing`` (the solver's Python package is not installed), and ``proof`` (cvc5 with
``--proof`` only, else null) is ``{"format": "alethe" | "cpc", "text"}``.

``--rlimit N`` bounds the solver by its own deterministic resource units (z3's
``rlimit``, cvc5's ``rlimit-per`` for the script's ``check-sat``), never by the clock:
the same script gives the same answer on an idle and on a loaded machine.  Running out
is ``unknown`` with ``detail`` starting ``resource limit``.  There is no clock in here;
the caller's wall-clock safety net kills a process that hangs.

This file is deliberately self-contained: it imports only the standard library and
the solver, never derivative, so that a certificate's re-check shares no code and no
state with the process that produced the certificate (docs/cli.md, "derivative certificate verify").
"""

from __future__ import annotations

import json
import sys
from typing import Any

_VERDICTS = ("unsat", "sat", "unknown")


def _verdict(output: str) -> tuple[str, str]:
    """The last sat/unsat/unknown line of a solver's output, and any error text."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("(error")]
    # cvc5 may qualify an unknown: "unknown (INCOMPLETE)"
    answers = [line for line in lines if line.split(" ", 1)[0] in _VERDICTS]
    if errors:
        return "error", " ".join(errors)[:2000]
    if not answers:
        return "error", "the solver gave no answer to (check-sat)"
    verdict, _, why = answers[-1].partition(" ")
    return verdict, why.strip("() ")


def _resource_detail(rlimit: int) -> str:
    return f"resource limit reached ({rlimit} units)"


def run_z3(script: str, rlimit: int = 0) -> dict[str, Any]:
    try:
        import z3
    except ImportError:
        return {"solver": "z3", "version": None, "result": "missing", "detail": "no z3 module"}
    version = z3.get_version_string()
    if rlimit > 0:
        # Global: the SMT-LIB front end's solver takes it from the context's parameters.
        z3.set_param("rlimit", rlimit)
    ref = z3.main_ctx().ref()
    try:
        output = z3.Z3_eval_smtlib2_string(ref, script)
    except z3.Z3Exception as err:
        text = err.value.decode() if isinstance(err.value, bytes) else str(err.value)
        return {"solver": "z3", "version": version, "result": "error", "detail": text[:2000]}
    result, detail = _verdict(output)
    if result == "unknown" and not detail:
        try:
            why = z3.Z3_eval_smtlib2_string(ref, "(get-info :reason-unknown)")
        except z3.Z3Exception:
            why = ""
        detail = why.strip().removeprefix("(:reason-unknown").strip(' ")')
        # No timer runs in this process: z3 cancels a check only at its rlimit.
        if rlimit > 0 and detail in ("canceled", "max. resource limit exceeded"):
            detail = _resource_detail(rlimit)
    return {"solver": "z3", "version": version, "result": result, "detail": detail}


def _cvc5_run(cvc5: Any, script: str, proofs: bool, rlimit: int) -> tuple[str, str, Any, Any]:
    solver = cvc5.Solver()
    # Bounded quantifiers (forall/exists/all/any) need full instantiation when
    # e-matching saturates; it only adds instances, so it never changes a verdict.
    solver.setOption("enum-inst", "true")
    if rlimit > 0:
        solver.setOption("rlimit-per", str(rlimit))
    if proofs:
        solver.setOption("produce-proofs", "true")
    symbols = cvc5.SymbolManager(solver)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, script, "certificate")
    output = []
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        output.append(command.invoke(solver, symbols))
    result, detail = _verdict("".join(output))
    if result == "unknown" and rlimit > 0 and detail.upper() == "RESOURCEOUT":
        detail = _resource_detail(rlimit)
    return result, detail, solver, (parser, symbols)


def _proof(cvc5: Any, solver: Any) -> dict[str, str] | None:
    proofs = solver.getProof()
    if not proofs:
        return None
    for fmt, name in ((cvc5.ProofFormat.ALETHE, "alethe"), (cvc5.ProofFormat.CPC, "cpc")):
        try:
            raw = solver.proofToString(proofs[0], fmt)
        except Exception:
            continue
        text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
        if "(error" in text:
            continue
        return {"format": name, "text": text}
    return None


def run_cvc5(script: str, want_proof: bool, rlimit: int = 0) -> dict[str, Any]:
    try:
        import cvc5
    except ImportError:
        return {"solver": "cvc5", "version": None, "result": "missing", "detail": "no cvc5 module"}
    version = getattr(cvc5, "__version__", None) or cvc5.Solver().getVersion()
    proof: dict[str, str] | None = None
    try:
        result, detail, solver, keep = _cvc5_run(cvc5, script, want_proof, rlimit)
        if want_proof and result == "unsat":
            try:
                proof = _proof(cvc5, solver)
            except Exception:
                proof = None
        del keep, solver
    except Exception as err:
        if not want_proof:
            return {"solver": "cvc5", "version": version, "result": "error", "detail": str(err)}
        # Proof production is refused for some theories: the verdict must not depend on it.
        return run_cvc5(script, want_proof=False, rlimit=rlimit)
    if want_proof and result not in _VERDICTS:
        return run_cvc5(script, want_proof=False, rlimit=rlimit)
    return {
        "solver": "cvc5",
        "version": version,
        "result": result,
        "detail": detail,
        "proof": proof,
    }


def _rlimit(args: list[str]) -> int | None:
    """The ``--rlimit N`` of ``args`` (0 without one), or None if it is malformed."""
    if "--rlimit" not in args:
        return 0
    at = args.index("--rlimit")
    try:
        n = int(args[at + 1])
    except (IndexError, ValueError):
        return None
    return n if n >= 0 else None


def main(argv: list[str]) -> int:
    rlimit = _rlimit(argv[1:])
    if not argv or argv[0] not in ("z3", "cvc5") or rlimit is None:
        usage = "usage: z3|cvc5 [--proof] [--rlimit N]"
        sys.stdout.write(json.dumps({"result": "error", "detail": usage}) + "\n")
        return 2
    script = sys.stdin.read()
    if argv[0] == "z3":
        answer = run_z3(script, rlimit)
    else:
        answer = run_cvc5(script, "--proof" in argv[1:], rlimit)
    answer.setdefault("proof", None)
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    # No explicit exit: the answer is on stdout, flushed, and is all the caller reads
    # (the exit status is not used, so a crash of a solver's native code while the
    # interpreter tears down cannot change a verdict).
    main(sys.argv[1:])
