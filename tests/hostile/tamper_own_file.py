"""Hostile: rewrite its own source file during the run (it should be read-only).

Run it from a copy: if isolation fails, the file it appends to is the one imported.
"""


def f(x: int) -> int:
    try:
        with open(__file__, "a", encoding="utf-8") as fh:
            fh.write("\n\ndef f(x: int) -> int:\n    return x\n")
    except OSError:
        return x + 1
    print("DERIVATIVE-BREACH tamper_own_file: appended to", __file__, flush=True)
    return x + 1
