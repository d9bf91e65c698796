"""The parser front end: one cached Lark LALR instance and error conversion.

The grammar (``requirements.lark``, package data) is compiled once per process.
The transformer is passed to the Lark constructor, so a parse produces model
nodes directly.  Whatever goes wrong inside (a lexical error, an unexpected
token, a malformed literal, anything unforeseen) leaves this module as a
``SpecError`` with file, line, column and source line: no Lark exception or
traceback reaches a user.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import threading
from typing import Any

from derivative._ast import ConstDecl, FunctionDecl, ParamDecl, SystemDecl, TypeNode
from derivative._depth import MAX_DEPTH, too_deep, type_too_deep
from derivative._errors import DerivativeError, SourcePos, SpecError

from ._cache import store, table_path, temporary_for
from ._hints import describe_unexpected
from ._lexer import LexError, Tok, tokenize
from ._tables import FORMAT, Tables, TableShapeError, callbacks, from_lark, walk
from ._transform import ParsedFile, SpecTransformer

_LOCK = threading.RLock()

_STATEMENT_STARTS = frozenset(
    {
        "REQUIREMENT",
        "FUNCTION",
        "SYSTEM",
        "PARAM",
        "CONST",
        "ENUM",
        "EXCEPTION",
        "BIND",
        "USE",
        "TOLERANCE",
        "REQUIRES",
        "ENSURES",
        "RAISES",
        "EXAMPLE",
        "OPERATION",
        "INVARIANT",
        "SPEC",
    }
)
_CLOSING = {"(": ")", "[": "]", "{": "}"}


def grammar_text() -> str:
    """The text of ``requirements.lark`` (shipped as package data).

    Read from beside this module when it is there (every installed or editable copy):
    ``importlib.resources`` alone costs a few milliseconds of start-up; it remains the
    way in for a package that is not on a file system.
    """
    here = os.path.join(os.path.dirname(os.path.realpath(__file__)), "requirements.lark")
    try:
        with open(here, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        import importlib.resources

        return (
            importlib.resources.files("derivative.grammar")
            .joinpath("requirements.lark")
            .read_text(encoding="utf-8")
        )


class ParseFailure(Exception):
    """The driver met a token no action exists for (state and expected terminals)."""

    def __init__(self, token: Any, state: int, expected: frozenset[str], values: list[Any]) -> None:
        super().__init__(f"unexpected {token!r}")
        self.token = token
        self.state = state
        self.expected = expected
        self.values = values


def compile_lark(text: str, transformer: SpecTransformer) -> Any:
    """Lark's LALR analysis of ``text`` (imports Lark; 0.1-0.2 s)."""
    from lark import Lark

    from ._lark_lexer import SpecLexer

    return Lark(
        text,
        parser="lalr",
        lexer=SpecLexer,
        transformer=transformer,
        maybe_placeholders=False,
        propagate_positions=False,
        start="start",
    )


def _tables(text: str, transformer: SpecTransformer) -> tuple[Tables, list[Any]]:
    """The driver's tables and callbacks: from the per-user cache when it holds them
    (no Lark at all), else from Lark, stored for the next process when possible."""
    found = table_path(text, str(FORMAT))
    if found is not None and found[1]:
        try:
            with open(found[0], encoding="utf-8") as fh:
                tables = Tables.from_json(json.load(fh))
            return tables, callbacks(tables, transformer)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, TableShapeError):
            pass  # damaged or foreign: compile again (and replace it, it is ours)
    compiled = compile_lark(text, transformer)
    try:
        tables = from_lark(compiled, transformer)
    except TableShapeError:
        return _lark_tables(compiled)
    if found is not None:
        tmp = temporary_for(found[0])
        try:
            with open(tmp, "w", encoding="utf-8") as fh:
                json.dump(tables.to_json(), fh, separators=(",", ":"))
            store(tmp, found[0])
        except OSError:
            pass
    return tables, callbacks(tables, transformer)


def _lark_tables(compiled: Any) -> tuple[Tables, list[Any]]:
    """Lark's own callbacks, for a grammar whose callbacks ``_tables`` cannot describe."""
    return walk(compiled, lambda cb, _rule: cb)


class _Front:
    """The compiled grammar and a lean LALR driver over its tables.

    Lark compiles the grammar into LALR(1) tables and per-rule callbacks (the
    transformer's methods wrapped with Lark's child filters); ``_tables`` keeps them as
    plain data in the per-user cache, so later processes do not import Lark.  ``run``
    drives the tables itself: actions are pre-encoded as integers (a shift's target
    state, or ``~rule`` for a reduction), and the unit reductions of ``?rule``
    alternatives with one child, the bulk of all reductions in an expression grammar,
    only move the state without calling anything.  The result is the same as Lark's own
    parse (``self.lark.parse``; a test checks it) at a fraction of the cost.
    """

    def __init__(self) -> None:
        self.transformer = SpecTransformer()
        tables, found = _tables(grammar_text(), self.transformer)
        self.start_state: int = tables.start_state
        self.end_state: int = tables.end_state
        self.rule_size: list[int] = tables.rule_size
        self.rule_origin: list[str] = tables.rule_origin
        self.rule_callback: list[Any] = found
        self.actions: dict[int, dict[str, int]] = tables.actions
        self.expected: dict[int, frozenset[str]] = {
            s: frozenset(k for k in acts if k.isupper() or (k.startswith("_") and k[1:].isupper()))
            for s, acts in self.actions.items()
        }
        #: memo of unit-reduction runs: (state below, top state, lookahead) -> new top
        self.chains: dict[tuple[int, int, str], int] = {}

    @functools.cached_property
    def lark(self) -> Any:
        """Lark's own parser over the same transformer (for tests that compare)."""
        return compile_lark(grammar_text(), self.transformer)

    def _unit_chain(self, below: int, rule: int, lookahead: str) -> int:
        """The top state after consecutive unit reductions starting with ``rule``."""
        actions = self.actions
        while True:
            top = actions[below][self.rule_origin[rule]]
            a = actions[top].get(lookahead)
            if a is None or a >= 0 or self.rule_callback[~a] is not None:
                return top
            rule = ~a

    def run(self, text: str, brackets: list[tuple[str, int, int]] | None = None) -> Any:
        """Parse ``text`` with the driver; raises ParseFailure, LexError or SpecError."""
        actions = self.actions
        sizes = self.rule_size
        origins = self.rule_origin
        callbacks = self.rule_callback
        chains = self.chains
        ss: list[int] = [self.start_state]
        vs: list[Any] = []
        push_state = ss.append
        push_value = vs.append
        token: Any = None
        for token in tokenize(text, ss, actions, brackets):
            t = token.type
            while True:
                a = actions[ss[-1]].get(t)
                if a is None:
                    raise ParseFailure(token, ss[-1], self.expected[ss[-1]], vs)
                if a >= 0:
                    push_state(a)
                    push_value(token)
                    break
                r = ~a
                cb = callbacks[r]
                if cb is None:
                    # A run of unit reductions only replaces the top state, and where
                    # it ends depends on (state below, top state, lookahead) alone.
                    key = (ss[-2], ss[-1], t)
                    top = chains.get(key)
                    if top is None:
                        top = chains[key] = self._unit_chain(ss[-2], r, t)
                    ss[-1] = top
                    continue
                size = sizes[r]
                if size == 1:
                    vs[-1] = cb([vs[-1]])
                    ss[-1] = actions[ss[-2]][origins[r]]
                    continue
                if size:
                    children = vs[-size:]
                    del vs[-size:]
                    del ss[-size:]
                else:
                    children = []
                push_value(cb(children))
                push_state(actions[ss[-1]][origins[r]])
        return self._finish(ss, vs, token)

    def _finish(self, ss: list[int], vs: list[Any], token: Any) -> Any:
        """The reductions at the end of the input, up to the start rule's value."""
        actions = self.actions
        sizes = self.rule_size
        origins = self.rule_origin
        callbacks = self.rule_callback
        end = Tok("$END", "", 0, 1, 1)
        if token is not None:
            end = Tok("$END", "", token.start_pos, token.line, token.column)
        end_state = self.end_state
        while True:
            a = actions[ss[-1]].get("$END")
            if a is None:
                raise ParseFailure(end, ss[-1], self.expected[ss[-1]], vs)
            r = ~a
            cb = callbacks[r]
            size = sizes[r]
            if cb is None:
                ss[-1] = actions[ss[-2]][origins[r]]
            else:
                if size:
                    children = vs[-size:]
                    del vs[-size:]
                    del ss[-size:]
                else:
                    children = []
                vs.append(cb(children))
                ss.append(actions[ss[-1]][origins[r]])
            if ss[-1] == end_state:
                return vs[-1]


@functools.cache
def front() -> _Front:
    """The process-wide parser, compiled on first use."""
    return _Front()


def source_line(text: str, line: int) -> str:
    """Line ``line`` (1-based) of ``text`` without its end of line, or ''."""
    if line < 1:
        return ""
    start = 0
    for _ in range(line - 1):
        nl = text.find("\n", start)
        if nl < 0:
            return ""
        start = nl + 1
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def pos_in(text: str, file: str, line: int, column: int) -> SourcePos:
    return SourcePos(file, line, column, source_line(text, line).rstrip("\r"))


def parse_source(text: str, file: str) -> ParsedFile:
    """Parse one file's text into a :class:`ParsedFile`; every failure is a SpecError."""
    f = front()
    brackets: list[tuple[str, int, int]] = []
    with _LOCK:
        f.transformer.file = file
        # A parse allocates many small objects that all survive; the cyclic garbage
        # collector would rescan them again and again (measured: 40% of a 10,000-line
        # parse).  Nothing here creates reference cycles worth collecting.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            result = f.run(text, brackets)
        except LexError as exc:
            raise SpecError(
                exc.message, pos_in(text, file, exc.line, exc.column), hint=exc.hint
            ) from None
        except ParseFailure as exc:
            tok = exc.token
            if brackets and tok.type in _STATEMENT_STARTS and tok.line > brackets[-1][1]:
                # A declaration keyword inside brackets: the bracket is the mistake.
                opening, oline, ocol = brackets[-1]
                raise SpecError(
                    f"'{opening}' was never closed",
                    pos_in(text, file, oline, ocol),
                    hint=f"add the matching '{_CLOSING[opening]}' (line {tok.line} starts "
                    f"a new `{tok.value}` while it is still open)",
                ) from None
            message, hint = describe_unexpected(
                exc.token, exc.state, exc.expected, brackets, _failure_point, exc.values
            )
            line = exc.token.line or 1
            column = exc.token.column or 1
            raise SpecError(message, pos_in(text, file, line, column), hint=hint) from None
        except DerivativeError:
            raise
        except RecursionError:
            raise SpecError(
                "the spec is nested too deeply to be read", pos_in(text, file, 1, 1)
            ) from None
        except Exception as exc:
            raise SpecError(
                f"could not read the spec: {type(exc).__name__}: {exc}",
                pos_in(text, file, 1, 1),
            ) from None
        finally:
            if gc_was_enabled:
                gc.enable()
    assert isinstance(result, ParsedFile)
    _check_depth(result, text, file)
    return result


def _types_of(decl: Any) -> list[Any]:
    """The written types of a declaration (its own, its parameters', its results)."""
    if isinstance(decl, (ConstDecl, ParamDecl)):
        return [decl.type]
    if isinstance(decl, FunctionDecl):
        return [*(p.type for p in decl.params), decl.returns]
    if isinstance(decl, SystemDecl):
        return [t for op in decl.operations for t in (*(p.type for p in op.params), op.returns)]
    return []


def _check_depth(parsed: ParsedFile, text: str, file: str) -> None:
    """Refuse, at its place, anything nested deeper than ``MAX_DEPTH`` (``derivative._depth``).

    Checked here, once, before anything walks the nodes by recursion: the loader already
    hashes every unnamed obligation's expression, and every reading after it recurses.
    The parse itself does not recurse (the LALR driver keeps its own stacks).
    """
    found: Any = None
    for decl in parsed.declarations:
        for ty in _types_of(decl):
            found = found or type_too_deep(ty)
        if isinstance(decl, ConstDecl):
            found = found or too_deep(decl.value)
        if found is not None:
            break
    if found is None:
        for clause in parsed.clauses:
            found = too_deep(clause.expr)
            if found is not None:
                break
    if found is None:
        return
    what = "a type" if isinstance(found, TypeNode) else "an expression"
    raise SpecError(
        f"{what} nested more than {MAX_DEPTH} levels deep",
        pos_in(text, file, found.line or 1, found.col or 1),
        hint="every operator, call, index, quantifier, list or bracket inside another adds "
        "a level, but a run of `+`, `*`, `and` or `or` is one level however long: write "
        "`a - (b + c + d)` for `a - b - c - d`, or split the condition into several",
    )


def _failure_point(text: str) -> tuple[int, str] | None:
    """Where the driver fails on ``text`` (state, token type), for the hint table."""
    try:
        front().run(text)
    except ParseFailure as exc:
        return (exc.state, exc.token.type)
    except Exception:
        return None
    return None
