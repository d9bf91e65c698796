"""Candidates from generators and paths: the request document, what a generator sees, what
is collected from it, how it fails, the AST identity and diff of candidates, the bundled
generators (``openai_chat.py`` against a local chat-completions server, ``scripted.py``), and
a scripted wrong first attempt repaired end to end with the engine as the judge."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from derivative import api
from derivative._canon import canonical_json
from derivative._errors import UsageError
from derivative.forge.build import (
    GENERATION_REQUEST_FORMAT,
    Attempt,
    CommandGenerator,
    GenerationRequest,
    GeneratorFailed,
    PathCandidate,
    Previous,
    Validation,
    make_attempt,
    module_name,
    normalised_ast_hash,
    repair_loop,
    structural_diff,
)
from derivative.forge.testing import Engine, EngineOptions, InProcessCaller, load_target

ROOT = Path(__file__).resolve().parents[2]
GENERATORS = ROOT / "examples" / "generators"
DISCOUNT = ROOT / "examples" / "discount.req"
PY = sys.executable
BASE_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent"}


def _request(attempt: int = 1, previous: Previous | None = None) -> GenerationRequest:
    contract = api.contract_json(api.load([DISCOUNT]))
    return GenerationRequest(contract=contract, module="discount", attempt=attempt,
                             previous=previous)  # fmt: skip


def _script(tmp_path: Path, body: str) -> list[str]:
    """A generator program written in Python; its argv."""
    path = tmp_path / "gen_program.py"
    path.write_text(body, encoding="utf-8")
    return [PY, str(path)]


def _gen(argv: list[str], **env: str) -> CommandGenerator:
    return CommandGenerator(argv, timeout=30, environ=BASE_ENV | env)


# --------------------------------------------------------------------------- the request


def test_the_request_document() -> None:
    previous = Previous(files={"discount.py": "x = 1\n"}, failing=("b", "a"),
                        counterexamples=({"input": {"x": 1}},), message="nope")  # fmt: skip
    doc = _request(2, previous).to_json()
    assert doc["format"] == GENERATION_REQUEST_FORMAT == "derivative.generation-request/v1"
    assert doc["contract"]["format"] == "derivative.contract/v1"
    assert doc["module"] == "discount" and doc["attempt"] == 2
    assert doc["previous"] == {"files": {"discount.py": "x = 1\n"}, "failing": ["a", "b"],
                               "counterexamples": [{"input": {"x": 1}}], "message": "nope"}
    assert _request().to_json()["previous"] is None
    assert json.loads(_request().to_bytes()) == _request().to_json()
    assert _request().to_bytes() == canonical_json(_request().to_json())


@pytest.mark.parametrize(
    ("spec", "module"),
    [("discount", "discount"), ("checkout-v2", "checkout_v2"), ("2fa", "_2fa"),
     ("class", "class_"), ("", "candidate")],
)  # fmt: skip
def test_module_names(spec: str, module: str) -> None:
    assert module_name(spec) == module


# --------------------------------------------------------------------------- a command


def test_the_generator_sees_only_its_folder_and_the_scrubbed_environment(tmp_path: Path) -> None:
    argv = _script(tmp_path, """\
import json, os, sys
request = json.load(sys.stdin)
seen = {"cwd": os.getcwd(), "listing": os.listdir("."), "env": dict(os.environ),
        "argv": sys.argv[1:], "request": request}
open("seen.json", "w").write(json.dumps(seen))
open(request["module"] + ".py", "w").write("def f():\\n    return 1\\n")
""")
    gen = _gen([*argv, "--out={out}", "{module}"], SECRET_TOKEN="s3cr3t",
               OPENAI_API_KEY="sk-x", DERIVATIVE_GEN_MODE="fast", LANG="C.UTF-8")  # fmt: skip
    attempt = gen.generate(_request())
    seen = json.loads(attempt.files["seen.json"])
    env = seen["env"]
    assert "SECRET_TOKEN" not in env
    assert env["OPENAI_API_KEY"] == "sk-x" and env["DERIVATIVE_GEN_MODE"] == "fast"
    assert env["LANG"] == "C.UTF-8" and env["PATH"] == BASE_ENV["PATH"]
    assert env["DERIVATIVE_OUTPUT_DIR"] == seen["cwd"]
    assert seen["listing"] == []  # a fresh, empty folder
    assert seen["argv"] == [f"--out={seen['cwd']}", "discount"]
    assert seen["request"] == _request().to_json()
    assert not Path(seen["cwd"]).exists()  # removed once collected
    assert attempt.origin == "generator" and attempt.command == gen.argv
    assert attempt.number == 1 and attempt.parent is None and attempt.duration > 0
    assert attempt.ast_hash == normalised_ast_hash(attempt.files)
    assert set(attempt.files) == {"discount.py", "seen.json"}


def test_pass_env_names_exact_variables_and_prefixes(tmp_path: Path) -> None:
    argv = _script(tmp_path, """\
import json, os
open("env.json", "w").write(json.dumps(dict(os.environ)))
open("m.py", "w").write("x = 1\\n")
""")
    gen = CommandGenerator(argv, pass_env=("MY_KEY", "VLLM_*"),
                           environ=BASE_ENV | {"MY_KEY": "1", "VLLM_URL": "u", "OPENAI_X": "no"})
    env = json.loads(gen.generate(_request()).files["env.json"])
    assert env["MY_KEY"] == "1" and env["VLLM_URL"] == "u" and "OPENAI_X" not in env


def test_a_repair_attempt_is_numbered_from_its_request(tmp_path: Path) -> None:
    argv = _script(tmp_path, 'open("m.py", "w").write("x = 2\\n")\n')
    previous = Previous(files={"m.py": "x = 1\n"}, failing=("a",))
    attempt = _gen(argv).generate(_request(3, previous))
    assert attempt.number == 3 and attempt.parent == 2
    assert attempt.request is not None and attempt.request.previous is previous


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("import sys\nsys.stderr.write('quota exceeded\\n')\nsys.exit(3)",
         "exited with status 3: quota exceeded"),
        ("pass", "no .py file was written"),
        ("open('m.py', 'wb').write(b'x = \\xff\\n')", "not UTF-8"),
        ("open('m.py', 'w').write('def (:\\n')", "m.py:1: not valid Python"),
        ("import os\nopen('m.py', 'w').write('x = 1')\nos.symlink('/etc/passwd', 'p.txt')",
         "symbolic link"),
        ("open('m.py', 'w').write('x = 1')\nopen('my notes.txt', 'w').write('hi')",
         "file names are"),
        ("open('m.py', 'w').write('x = 1')\nopen('lib.so', 'wb').write(b'ELF')",
         "neither a .py file"),
        ("open('m.py', 'w').write('#' * 1_000_001)", "over 1000000 bytes"),
        ("import os\nopen('m.py', 'w').write('x = 1')\nos.mkfifo('p.txt')",
         "not a regular file"),
    ],
)  # fmt: skip
def test_generator_failures(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(GeneratorFailed, match=message) as info:
        _gen(_script(tmp_path, body)).generate(_request())
    assert info.value.exit_code == 2


def test_the_stderr_tail_is_kept_and_bounded(tmp_path: Path) -> None:
    body = "import sys\nsys.stderr.write('x' * 10000 + 'END')\nsys.exit(1)"
    with pytest.raises(GeneratorFailed) as info:
        _gen(_script(tmp_path, body)).generate(_request())
    assert info.value.returncode == 1
    assert len(info.value.stderr_tail) == 4096 and info.value.stderr_tail.endswith("END")
    ok = "import sys\nsys.stderr.write('thinking...')\nopen('m.py', 'w').write('x = 1')"
    assert _gen(_script(tmp_path, ok)).generate(_request()).stderr_tail == "thinking..."


def test_a_slow_generator_is_killed_with_what_it_started(tmp_path: Path) -> None:
    marker = tmp_path / "late.txt"
    body = f"""\
import subprocess, sys, time
subprocess.Popen([sys.executable, "-c",
                  "import time; time.sleep(2); open({str(marker)!r}, 'w').write('late')"])
time.sleep(60)
"""
    gen = CommandGenerator(_script(tmp_path, body), timeout=0.7, environ=BASE_ENV)
    started = time.monotonic()
    with pytest.raises(GeneratorFailed, match=r"timed out after 0\.7 s"):
        gen.generate(_request())
    assert time.monotonic() - started < 10
    time.sleep(2.5)
    assert not marker.exists()  # the grandchild died with its process group


def test_bad_commands() -> None:
    with pytest.raises(GeneratorFailed, match="cannot start"):
        _gen(["/nonexistent/generator"]).generate(_request())
    with pytest.raises(UsageError):
        CommandGenerator([])
    with pytest.raises(UsageError):
        CommandGenerator(["x"], timeout=0)


# --------------------------------------------------------------------------- a path


def test_a_path_candidate_file_or_folder(tmp_path: Path) -> None:
    one = tmp_path / "impl.py"
    one.write_text("def (broken\n")  # taken as it is: the gates judge it
    attempt = PathCandidate(one)()
    assert attempt.origin == "path" and attempt.files == {"impl.py": b"def (broken\n"}
    assert attempt.command is None and attempt.number == 1
    folder = tmp_path / "pkg"
    (folder / "sub").mkdir(parents=True)
    (folder / "m.py").write_text("x = 1\n")
    (folder / "sub" / "helpers.py").write_text("y = 2\n")
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\0")
    assert set(PathCandidate(folder).read().files) == {"m.py", "sub/helpers.py"}
    again = PathCandidate(folder).generate(_request(2))
    assert again.number == 2 and again.ast_hash == PathCandidate(folder)().ast_hash


def test_bad_paths_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no such candidate"):
        PathCandidate(tmp_path / "missing.py")()
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(UsageError, match=r"not a \.py file"):
        PathCandidate(tmp_path / "notes.txt")()
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "m.py").write_text("x = 1\n")
    os.symlink("/etc/passwd", folder / "leak.txt")
    with pytest.raises(UsageError, match="symbolic link"):
        PathCandidate(folder)()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match=r"holds no \.py file"):
        PathCandidate(empty)()


# --------------------------------------------------------------------------- identity and diff


def test_the_normalised_hash_ignores_comments_docstrings_and_layout() -> None:
    plain = {"m.py": b"def f(x):\n    return x + 1\n"}
    cosmetic = {
        "m.py": b'"""Module."""\n# hi\ndef f(x):  # f\n    """Doc."""\n    return (x +\n 1)\n',
        "NOTES.md": b"anything",
    }
    assert normalised_ast_hash(plain) == normalised_ast_hash(cosmetic)
    changed = {"m.py": b"def f(x):\n    return x + 2\n"}
    assert normalised_ast_hash(plain) != normalised_ast_hash(changed)
    assert normalised_ast_hash(plain) != normalised_ast_hash({"n.py": plain["m.py"]})
    assert normalised_ast_hash({"m.py": b"def ("}) != normalised_ast_hash({"m.py": b"def (("})


def test_the_structural_diff() -> None:
    old = {"m.py": b"def f():\n    return 1\n\nclass C:\n    def a(self):\n        return 1\n"
                   b"    def b(self):\n        return 2\n\ndef gone():\n    pass\n",
           "old.py": b"x = 1\n"}  # fmt: skip
    new = {"m.py": b'def f():\n    """Now documented."""\n    return 1\n\nclass C:\n'
                   b"    def a(self):\n        return 10\n    def b(self):\n        return 2\n"
                   b"\ndef new():\n    pass\n",
           "extra.py": b"def helper():\n    pass\n"}  # fmt: skip
    assert structural_diff(old, new) == {
        "added": ["extra.py:helper", "m.py:new"],
        "removed": ["m.py:gone"],
        "changed": ["m.py:C", "m.py:C.a"],
        "files_added": ["extra.py"],
        "files_removed": ["old.py"],
    }


def test_make_attempt_sorts_files_and_hashes_them() -> None:
    a = make_attempt({"b.py": b"y = 1\n", "a.py": b"x = 1\n"}, origin="synth", number=2, parent=1)
    assert list(a.files) == ["a.py", "b.py"] and a.ast_hash == normalised_ast_hash(a.files)
    assert a.renumbered(5, 3).number == 5 and a.renumbered(5, 3).parent == 3
    assert a.texts() == {"a.py": "x = 1\n", "b.py": "y = 1\n"}


# --------------------------------------------------------------------------- openai_chat.py


def _load_example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", GENERATORS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REPLY = "Here it is.\n```python\ndef discounted(price_cents, percent):\n    return 0\n```\nBye."


class _ChatServer:
    """A chat-completions endpoint on 127.0.0.1 that records what it was sent."""

    def __init__(self, status: int = 200, reply: str = REPLY) -> None:
        self.received: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # the http.server API names it
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.received.append({"path": self.path, "headers": dict(self.headers),
                                       "body": body})  # fmt: skip
                if status != 200:
                    payload = json.dumps({"error": {"message": "model overloaded"}}).encode()
                else:
                    message = {"role": "assistant", "content": reply}
                    payload = json.dumps({"choices": [{"index": 0, "message": message}]}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> _ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _chat_generator(url: str, **env: str) -> CommandGenerator:
    argv = [PY, str(GENERATORS / "openai_chat.py")]
    return _gen(argv, OPENAI_BASE_URL=url, **env)


def test_openai_chat_talks_the_chat_completions_protocol() -> None:
    with _ChatServer() as server:
        gen = _chat_generator(server.url, OPENAI_MODEL="coder-7b", OPENAI_API_KEY="sk-test")
        attempt = gen.generate(_request())
    code = b"def discounted(price_cents, percent):\n    return 0\n"
    assert attempt.files == {"discount.py": code}
    (call,) = server.received
    assert call["path"] == "/v1/chat/completions"
    assert call["headers"]["Authorization"] == "Bearer sk-test"
    assert call["body"]["model"] == "coder-7b"
    system, user = call["body"]["messages"]
    assert system["role"] == "system" and "```python" in system["content"]
    assert user["role"] == "user" and "`discount.py`" in user["content"]
    assert "function discounted(price_cents: int, percent: int) -> int" in user["content"]
    assert 'raises ValueError when not matches(text, "[0-9]+")' in user["content"]
    assert "enum Tier { basic, silver, gold }" in user["content"]


def test_openai_chat_sends_the_previous_attempt_when_repairing() -> None:
    previous = Previous(files={"discount.py": "def discounted(p, q):\n    return -1\n"},
                        failing=("discounted.ensures.949418",),
                        counterexamples=({"input": {"price_cents": 1, "percent": 1}},),
                        message="discounted(1, 1) returned -1")  # fmt: skip
    with _ChatServer() as server:
        _chat_generator(server.url, OPENAI_MODEL="m").generate(_request(2, previous))
    (call,) = server.received
    assert "Authorization" not in call["headers"]  # no key, no header
    repair = call["body"]["messages"][-1]["content"]
    assert "discounted.ensures.949418" in repair and "return -1" in repair
    assert '"price_cents": 1' in repair and "discounted(1, 1) returned -1" in repair


def test_openai_chat_fails_clearly() -> None:
    with _ChatServer(status=500) as server, pytest.raises(GeneratorFailed) as info:
        _chat_generator(server.url, OPENAI_MODEL="m").generate(_request())
    assert "HTTP 500" in info.value.message and "model overloaded" in info.value.stderr_tail
    with pytest.raises(GeneratorFailed, match="set OPENAI_MODEL"):
        _chat_generator("http://127.0.0.1:9/v1").generate(_request())
    with pytest.raises(GeneratorFailed, match="cannot reach"):
        _chat_generator("http://127.0.0.1:9/v1", OPENAI_MODEL="m").generate(_request())
    with _ChatServer(reply="") as server, pytest.raises(GeneratorFailed, match="no code"):
        _chat_generator(server.url, OPENAI_MODEL="m").generate(_request())


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        ("```python\nx = 1\n```", "x = 1\n"),
        ("<think>```python\nwrong = 1\n```</think>\n```py\nright = 1\n```", "right = 1\n"),
        ("```\nplain = 1\n```", "plain = 1\n"),
        ("```python\na = 1\n```\nuse it:\n```python\nimport discount\ndiscount.a\n```",
         "import discount\ndiscount.a\n"),
        ("x = 1", "x = 1\n"),
    ],
)  # fmt: skip
def test_openai_chat_extracts_the_code(reply: str, code: str) -> None:
    assert _load_example("openai_chat").extract_code(reply) == code


def test_openai_chat_renders_systems_too() -> None:
    chat = _load_example("openai_chat")
    doc = api.contract_json(api.load([ROOT / "examples" / "password_policy.req"]))
    text = chat.render_contract(doc)
    assert "system TokenStore" in text and "operation reset(token: str, password: str)" in text
    assert "count(reset where result == Outcome.ok, per token) <= 1" in text


# ------------------------------------------------------------------- scripted.py, end to end


def _engine_validator(tmp_path: Path) -> Any:
    loaded = api.load([DISCOUNT])

    def validate(attempt: Attempt) -> Validation:
        folder = tmp_path / f"attempt{attempt.number}"
        folder.mkdir()
        for name, data in attempt.files.items():
            (folder / name).write_bytes(data)
        module = load_target(str(folder / "discount.py"))
        caller = InProcessCaller.for_contract(module, loaded.types)
        evidence = Engine(loaded.types, caller, EngineOptions(examples=30)).run()
        ok = {o.id for o in evidence.obligations if o.status in ("passed", "vacuous")}
        bad = [o for o in evidence.obligations if o.id not in ok]
        return Validation(
            status="verified" if evidence.status == "passed" else "validation_failed",
            passing=frozenset(ok), failing=frozenset(o.id for o in bad),
            counterexamples=[dict(o.counterexample or {}, obligation=o.id) for o in bad],
            message="\n".join(o.explain() for o in bad),
        )  # fmt: skip

    return validate


@pytest.fixture
def recorded(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "requests"
    folder.mkdir()
    yield folder


def test_a_wrong_first_attempt_is_repaired_end_to_end(tmp_path: Path, recorded: Path) -> None:
    script = GENERATORS / "script_discount"
    gen = _gen([PY, str(GENERATORS / "scripted.py"), str(script)],
               DERIVATIVE_GEN_RECORD=str(recorded))  # fmt: skip
    first = _request()
    result = repair_loop(first=lambda: gen.generate(first), regenerate=gen.generate,
                         validate=_engine_validator(tmp_path), max_repairs=2)  # fmt: skip
    assert result.stop_reason == "verified" and result.status == "verified"
    (a1, v1), (a2, _) = result.attempts
    assert v1.status == "validation_failed" and any("discounted" in f for f in v1.failing)
    assert a1.files["discount.py"] == (script / "1.py").read_bytes()
    assert a2.parent == 1 and a2.files["discount.py"] == (script / "2.py").read_bytes()
    told = json.loads((recorded / "request-2.json").read_text())
    assert told["attempt"] == 2 and told["previous"]["failing"] == sorted(v1.failing)
    assert told["previous"]["files"]["discount.py"] == (script / "1.py").read_text()
    assert told["previous"]["counterexamples"][0]["input"]["price_cents"] >= 0
    artifact = result.code_artifact()
    assert artifact["attempts"][1]["diff"]["changed"] == ["discount.py:discounted"]
    assert artifact["attempts"][1]["command"][1].endswith("scripted.py")


def test_a_generator_that_repeats_itself_stalls(tmp_path: Path) -> None:
    script = tmp_path / "script"
    script.mkdir()
    (script / "1.py").write_bytes((GENERATORS / "script_discount" / "1.py").read_bytes())
    gen = _gen([PY, str(GENERATORS / "scripted.py"), str(script)],
               DERIVATIVE_GEN_SCRIPT_AFTER="repeat")  # fmt: skip
    first = _request()
    result = repair_loop(first=lambda: gen.generate(first), regenerate=gen.generate,
                         validate=_engine_validator(tmp_path), max_repairs=3)  # fmt: skip
    assert result.stop_reason == "stalled" and len(result.attempts) == 1
    with pytest.raises(GeneratorFailed, match="has no attempt 2"):
        _gen([PY, str(GENERATORS / "scripted.py"), str(script)]).generate(_request(2))


def test_an_attempt_built_directly_still_gets_its_hash() -> None:
    a = Attempt(number=1, parent=None, files={"m.py": b"x = 1\n"}, origin="path")
    assert a.ast_hash == normalised_ast_hash(a.files) != ""
