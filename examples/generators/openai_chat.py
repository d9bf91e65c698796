#!/usr/bin/env python3
"""A `derivative build --generator` that asks an OpenAI-compatible chat-completions endpoint.

It reads the `derivative.generation-request/v1` document on stdin, turns the contract (and,
when repairing, the previous attempt and its failures) into a prompt, posts it to
`$OPENAI_BASE_URL/chat/completions`, takes the Python code out of the reply and writes it to
`$DERIVATIVE_OUTPUT_DIR/{module}.py`.  Standard library only, so it runs anywhere Python does.

Environment:

- `OPENAI_BASE_URL`  the endpoint's base URL (default `http://localhost:11434/v1`, Ollama);
- `OPENAI_MODEL`     the model name (required, e.g. `qwen2.5-coder:7b`);
- `OPENAI_API_KEY`   sent as `Authorization: Bearer ...` when set (local servers need none);
- `OPENAI_TIMEOUT`   seconds to wait for the reply (default 240);
- `OPENAI_TEMPERATURE` sent when set (some models refuse the parameter).

Whatever it writes is only a candidate: derivative judges it in a sandbox, and the model's
reply is never evidence.  Any failure is one line on stderr and exit status 1.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

DEFAULT_BASE_URL = "http://localhost:11434/v1"

SYSTEM_PROMPT = """\
You write one Python 3.11 module that implements a requirement contract exactly.
Rules for the module:
- define every `function` of the contract as a top-level function with the same name and
  parameters in the same order; every `system` as a class with a no-argument constructor
  whose methods are its operations;
- define every declared `enum` as an `enum.Enum` subclass of that name whose members have
  the contract's member names; every declared `exception E(Base)` as `class E(Base)`;
- `requires` says which inputs are valid (you may assume it); `ensures` must hold for the
  result; `raises E when C` means: raise E exactly when C holds; `example` shows cases;
- values: `int`, `bool`, `str` as in Python; `real` arrives as `float` (you may return a
  float or a fractions.Fraction); `date` is `datetime.date`; `list[T]` is a list; an enum is
  your enum's member;
- expressions mean what Python means: `//` and `%` floor, `/` exact division, `x in A..B` is
  A <= x <= B, `a implies b` is `not a or b`, `matches(s, RE)` is a full match;
- use only the standard library modules needed for plain computation (no os, sys, files,
  network, subprocess, eval or exec): the module runs in a sandbox that refuses them.
Reply with the complete module in one ```python fenced block and nothing else."""


def fail(message: str) -> int:
    print(f"openai_chat: error: {message}", file=sys.stderr)
    return 1


# --------------------------------------------------------------------------- the prompt


def _params(params: list[dict[str, Any]]) -> str:
    return ", ".join(f"{p['name']}: {p['type']}" for p in params)


def render_declaration(d: dict[str, Any]) -> list[str]:
    kind = d.get("kind")
    if kind == "enum":
        return [f"enum {d['name']} {{ {', '.join(d['members'])} }}"]
    if kind == "exception":
        return [f"exception {d['name']}({d['base']})"]
    if kind == "const":
        return [f"const {d['name']}: {d['type']} = {d['value']}"]
    if kind == "function":
        return [f"function {d['name']}({_params(d['params'])}) -> {d['returns']}"]
    if kind == "system":
        ops = [f"    operation {o['name']}({_params(o['params'])}) -> {o['returns']}"
               for o in d.get("operations", [])]  # fmt: skip
        return [f"system {d['name']}", *ops]
    if kind == "bind":
        return [f'bind {d["name"]} to "{d["target"]}"']
    return []  # params are the requirement set's own decisions, not the code's


def render_contract(doc: dict[str, Any]) -> str:
    """The contract in the language's own syntax: declarations, then clauses by owner."""
    spec = doc.get("spec", {})
    lines = [f"spec {spec.get('name', '?')} version {spec.get('version', '?')}"]
    if spec.get("description"):
        lines.append(json.dumps(spec["description"]))
    for d in doc.get("declarations", []):
        lines += render_declaration(d)
    owners: dict[str, list[str]] = {}
    for o in doc.get("obligations", []):
        if o.get("owner") is None:
            continue
        head = o["kind"] + (f" {o['exception']} when" if o["kind"] == "raises" else ":")
        text = f"  \"{o['text']}\"" if o.get("text") else ""
        owners.setdefault(o["owner"], []).append(f"    {head} {o['expr']}   # {o['id']}{text}")
    for owner, clauses in owners.items():
        lines += ["", f"clauses of {owner}:", *clauses]
    return "\n".join(lines)


def render_previous(previous: dict[str, Any]) -> str:
    parts = ["Your previous attempt did not meet the contract."]
    if previous.get("message"):
        parts.append("What the checker said:\n" + previous["message"])
    if previous.get("failing"):
        parts.append("Failing obligations: " + ", ".join(previous["failing"]))
    for c in previous.get("counterexamples", [])[:10]:
        parts.append("Counterexample: " + json.dumps(c, ensure_ascii=False, sort_keys=True))
    for path, text in sorted(previous.get("files", {}).items()):
        parts.append(f"The previous {path}:\n```python\n{text}\n```")
    parts.append("Fix the module so that every obligation holds; reply with the whole module.")
    return "\n\n".join(parts)


def build_messages(request: dict[str, Any]) -> list[dict[str, str]]:
    module = request["module"]
    user = (
        f"Write the module `{module}.py` for this contract:\n\n```\n"
        f"{render_contract(request['contract'])}\n```"
    )
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
    if request.get("previous"):
        messages.append({"role": "user", "content": render_previous(request["previous"])})
    return messages


# --------------------------------------------------------------------------- the endpoint


def chat(messages: list[dict[str, str]]) -> str:
    """The assistant's reply, or ``RuntimeError`` with a one-line reason."""
    base = os.environ.get("OPENAI_BASE_URL", DEFAULT_BASE_URL).rstrip("/")
    model = os.environ.get("OPENAI_MODEL")
    if not model:
        raise RuntimeError("set OPENAI_MODEL to the model to ask (e.g. qwen2.5-coder:7b)")
    body: dict[str, Any] = {"model": model, "messages": messages, "stream": False}
    if os.environ.get("OPENAI_TEMPERATURE"):
        body["temperature"] = float(os.environ["OPENAI_TEMPERATURE"])
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = f"Bearer {os.environ['OPENAI_API_KEY']}"
    url = f"{base}/chat/completions"
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    timeout = float(os.environ.get("OPENAI_TIMEOUT", "240"))
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            reply = json.loads(resp.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        detail = exc.read(500).decode("utf-8", errors="replace").strip().replace("\n", " ")
        raise RuntimeError(f"HTTP {exc.code} from {url}: {detail}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise RuntimeError(f"cannot reach {url}: {getattr(exc, 'reason', exc)}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RuntimeError(f"{url} did not answer JSON: {exc}") from None
    try:
        return str(reply["choices"][0]["message"]["content"])
    except (KeyError, IndexError, TypeError):
        raise RuntimeError(f"{url} answered without choices[0].message.content") from None


_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)


def extract_code(reply: str) -> str:
    """The module in the reply: the longest ```python block, else the longest fenced block,
    else the whole reply (reasoning in <think> tags is dropped first)."""
    text = re.sub(r"<think>.*?</think>", "", reply, flags=re.DOTALL)
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text)]
    python = [body for lang, body in blocks if lang in ("python", "py", "python3")]
    chosen = python or [body for _, body in blocks] or [text]
    return max(chosen, key=len).strip() + "\n"


def main(argv: list[str]) -> int:
    out = os.environ.get("DERIVATIVE_OUTPUT_DIR") or (argv[1] if len(argv) > 1 else "")
    if not out or not os.path.isdir(out):
        return fail("no output folder: set DERIVATIVE_OUTPUT_DIR or pass it as the argument")
    try:
        request = json.load(sys.stdin)
        module = request["module"]
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        return fail(f"stdin is not a generation request: {exc}")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", module):
        return fail(f"module name {module!r} is not a Python identifier")
    try:
        code = extract_code(chat(build_messages(request)))
    except RuntimeError as exc:
        return fail(str(exc))
    if not code.strip():
        return fail("the model's reply holds no code")
    Path(out, f"{module}.py").write_text(code, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
