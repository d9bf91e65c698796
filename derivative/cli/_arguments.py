"""The arguments several commands share, declared once.

Each value type checks one kind of flag value and says what is wrong in argparse's words;
each ``add_*`` declares one shared argument with its default read from the API's options
class (``CheckOptions``, ``RunOptions``, ``TestOptions``), so a default is written in one
place and ``--help`` shows the one the command will use.  The option classes live in the
heavy layers, so they are imported when a command declares its arguments, never before.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from typing import IO, TYPE_CHECKING, Any

from derivative._errors import UsageError

if TYPE_CHECKING:
    from derivative.api import LoadedContract

STDIN = "-"
"""The file name that means standard input, as for most Unix tools."""

__all__ = [
    "STDIN",
    "add_events",
    "add_examples",
    "add_policy",
    "add_seed",
    "add_specs",
    "events_to",
    "example_count",
    "load_specs",
    "positive_int",
    "positive_seconds",
    "read_stdin",
    "refuse_with",
]


def positive_int(text: str) -> int:
    """A positive integer (``--rlimit``)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if n <= 0:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return n


def example_count(text: str) -> int:
    """A number of generated inputs: at least one (``--examples``)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def positive_seconds(text: str) -> float:
    """A finite, positive number of seconds (``--timeout``, ``--call-timeout``, ...)."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not x > 0 or not math.isfinite(x):
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return x


def add_specs(p: argparse.ArgumentParser) -> None:
    """The positional ``SPEC...``: the files of one requirement set (``-``: standard input)."""
    p.add_argument("specs", nargs="+", metavar="SPEC",
                   help="the .req files of one requirement set (- reads one spec from "
                   "standard input)")


def read_stdin(args: argparse.Namespace) -> bytes:
    """The bytes of the command's standard input (``args.stdin``, which ``main`` sets; the
    process's own when a caller built the namespace itself)."""
    stream: IO[Any] = getattr(args, "stdin", None) or sys.stdin
    source = getattr(stream, "buffer", None) or stream
    data = source.read()
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def load_specs(args: argparse.Namespace) -> LoadedContract:
    """The requirement set named by ``args.specs``: files, or ``-`` alone for one spec read
    from standard input (shown as ``<stdin>``; it cannot ``use`` other files, which are
    found relative to the file that names them)."""
    from derivative import api

    specs: list[str] = list(args.specs)
    if STDIN not in specs:
        return api.load(specs)
    if len(specs) > 1:
        raise UsageError("- (a spec read from standard input) must be the only SPEC: give "
                         "the files of a requirement set as paths")
    data = read_stdin(args)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"standard input is not UTF-8 text (byte {exc.start + 1}), so it is "
                         "not a spec") from None
    return api.parse_text(text.removeprefix("\ufeff"), "<stdin>")


def refuse_with(flag: str, given: bool, why: str) -> None:
    """A flag the command would ignore in this combination is bad input, never silence."""
    if given:
        raise UsageError(f"{flag} {why}")


def add_examples(p: argparse.ArgumentParser, default: int) -> None:
    """``--examples N`` with the options class's default."""
    p.add_argument("--examples", type=example_count, default=default, metavar="N",
                   help=f"generated inputs per function or operation (default {default})")


def add_seed(p: argparse.ArgumentParser, help_text: str) -> None:
    """``--seed N``: a Hypothesis seed; without it, runs are derandomised."""
    p.add_argument("--seed", type=int, default=None, metavar="N", help=help_text)


def add_policy(p: argparse.ArgumentParser, help_text: str) -> None:
    """``--policy NAME|FILE``: a posture policy, by default the shipped ``default``."""
    from derivative.api import DEFAULT_POLICY

    p.add_argument("--policy", default=DEFAULT_POLICY, metavar="NAME|FILE", help=help_text)


def add_events(p: argparse.ArgumentParser) -> None:
    """``--events FILE``: append the call's audit record as a JSON line."""
    p.add_argument("--events", default=None, metavar="FILE",
                   help="append one audit record of this call (JSON lines) to FILE")


def events_to(path: str | None) -> contextlib.AbstractContextManager[None]:
    """Deliver the call's audit record to ``path`` (a no-op without one)."""
    if path is None:
        return contextlib.nullcontext()
    from derivative._audit import emit_to

    return emit_to(path)
