"""The worker resists a candidate that rebinds what it shares with the worker.

Under the ``permissive`` policy nothing is refused statically, so these candidates run:
each returns the wrong answer ``x + 2`` and rebinds something on the way from a result
to the frame (or from the frame to the arguments) so that the host would see a right
one if the worker looked it up at call time: ``json.dumps``, the JSON encoder class and
its C accelerator, ``json.loads`` (to shift the arguments it is called with),
``os.write`` (to rewrite frames), and the worker's own functions
through ``__main__``.  The worker binds all of these before the candidate is imported
(``forge/inside/_worker.py``, "pins"), so every one of them must fail on both backends.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from derivative.cli import main

SPEC = """\
spec h version 1
function f(x: int) -> int
    requires: 0 <= x <= 50
    ensures S: result == x + 1
"""

FORGERIES = {
    "json_dumps": """
        import json
        _orig = json.dumps
        def _forged(obj, *a, **k):
            if isinstance(obj, dict) and type(obj.get("value")) is int:
                obj = {**obj, "value": obj["value"] - 1}
            return _orig(obj, *a, **k)
        json.dumps = _forged
    """,
    "json_encoder_class": """
        import json, json.encoder
        _orig = json.JSONEncoder.encode
        def _forged(self, obj):
            if isinstance(obj, dict) and type(obj.get("value")) is int:
                obj = {**obj, "value": obj["value"] - 1}
            return _orig(self, obj)
        json.JSONEncoder.encode = _forged
        json.encoder.c_make_encoder = None
    """,
    "json_loads_shifts_arguments": """
        import json
        _orig = json.loads
        def _forged(text, *a, **k):
            value = _orig(text, *a, **k)
            if isinstance(value, dict) and isinstance(value.get("args"), list):
                value["args"] = [v - 1 if type(v) is int else v for v in value["args"]]
            return value
        json.loads = _forged
    """,
    "os_write_rewrites_frames": """
        import os, re
        _orig = os.write
        def _fix(m):
            body = m.group(2).decode()
            fixed = re.sub(r'"value":(-?[0-9]+)',
                           lambda v: '"value":%d' % (int(v.group(1)) - 1), body)
            return (str(len(fixed)) + "\\n" + fixed).encode()
        def _forged(fd, data):
            data = bytes(data)
            new = re.sub(rb'([0-9]+)\\n(\\{.*\\})', _fix, data, flags=re.S)
            _orig(fd, new)
            return len(data)
        os.write = _forged
    """,
    "worker_main_functions": """
        import sys
        main = sys.modules.get("__main__")
        for name in ("encode", "_dumps", "_returned"):
            original = getattr(main, name, None)
            if callable(original):
                def forged(value, *args, _original=original):
                    if type(value) is int:
                        value = value - 1
                    elif isinstance(value, dict) and type(value.get("value")) is int:
                        value = {**value, "value": value["value"] - 1}
                    return _original(value, *args)
                setattr(main, name, forged)
    """,
}


@pytest.fixture(params=["process", "docker"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "docker":
        request.getfixturevalue("docker_launcher")
    return str(request.param)


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_rebinding_candidate_never_passes(
    name: str, backend: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "h.req"
    spec.write_text(SPEC, encoding="utf-8")
    cand = tmp_path / "cand.py"
    cand.write_text(textwrap.dedent(FORGERIES[name]) + "\n\ndef f(x):\n    return x + 2\n",
                    encoding="utf-8")
    code = main(["run", str(spec), "--candidate", str(cand), "--policy", "permissive",
                 "--sandbox", backend, "--examples", "10", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["status"] != "passed" and code != 0, doc["reason"]
    assert doc["status"] in ("failed", "sandbox_policy_violation")


def test_the_control_an_honest_candidate_passes_under_the_same_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The forgeries fail because of what they return, not because the set-up fails all."""
    spec = tmp_path / "h.req"
    spec.write_text(SPEC, encoding="utf-8")
    cand = tmp_path / "cand.py"
    cand.write_text("import json\n\ndef f(x):\n    return json.loads(json.dumps(x)) + 1\n",
                    encoding="utf-8")
    code = main(["run", str(spec), "--candidate", str(cand), "--policy", "permissive",
                 "--sandbox", "process", "--examples", "10"])
    assert code == 0, capsys.readouterr().out
