"""``timed NAME`` blocks: cut out of a file's text and read by a small parser of their own.

The timed layer's words (``always``, ``within``, ``steps``, ``upon``, ...) are words of
the timed block only: making them reserved words of the LALR grammar would break every
spec that names a param ``next`` or ``steps``.  So a block (a line ``timed NAME`` at
column 1 and the indented lines under it) is blanked out of the text the LALR parser
reads, line numbers kept, and its lines are read here: the block's structure by a small
recursive-descent parser over the project's own tokens, and every ordinary expression
inside it by the LALR parser itself (``_expression``), placed at its own line and column
so that its nodes and any error point into the real file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from derivative._ast import Expr, ParamDecl, TypeRef
from derivative._errors import SourcePos, SpecError
from derivative._record import record
from derivative._timed_ast import (
    Mode,
    Scope,
    Signal,
    TBecomes,
    TBool,
    TCond,
    THeld,
    TimedComponent,
    TimedReq,
    Timing,
    TNot,
    TNow,
    TOccurred,
    TPrevious,
    Trigger,
)

from ._lexer import LexError, Tok, tokenize
from ._parser import parse_source, source_line

# Words that end an ordinary expression inside a timed condition (at bracket depth 0).
_SUFFIX_WORDS = frozenset(("has", "occurred", "becomes"))
_TIMED_WORDS = _SUFFIX_WORDS | {"previously"}
_STEPS = ("steps", "step")
_MAX_NESTING = 100


@record
class Block:
    """The logical lines of one ``timed`` block (tokens without layout tokens)."""

    lines: tuple[tuple[Tok, ...], ...]


_MAYBE_BLOCK = re.compile(r"(?:^|\r)timed\b", re.MULTILINE)
# The lexer's line ends, and only those (str.splitlines also breaks at \v, \x1c, U+2028 ...,
# which may sit in a comment or a string and would shift every later line).
_LINES = re.compile(r"[^\r\n]*(?:\r\n|\n|\r)|[^\r\n]+$")


def split_blocks(text: str) -> tuple[str, list[Block]]:
    """The text with every ``timed`` block blanked (newlines kept), and the blocks.

    A text the lexer rejects is returned unchanged: the LALR parser reports the error.
    A text with no line that starts with the word ``timed`` has no block: it is returned
    without the second tokenisation (every spec is loaded through here).
    """
    if _MAYBE_BLOCK.search(text) is None:
        return text, []
    try:
        toks = list(tokenize(text))
    except LexError:
        return text, []
    blocks: list[Block] = []
    spans: list[tuple[int, int]] = []
    i = 0
    at_line_start = True
    while i < len(toks):
        t = toks[i]
        if at_line_start and t.type == "NAME" and t.value == "timed" and t.column == 1:
            block, i, last_line = _take_block(toks, i)
            blocks.append(block)
            spans.append((t.line, last_line))
            at_line_start = True
            continue
        at_line_start = t.type in ("NL", "DEDENT", "INDENT")
        i += 1
    if not blocks:
        return text, []
    lines = _LINES.findall(text)
    for first, last in spans:
        for n in range(first - 1, min(last, len(lines))):
            ending = lines[n][len(lines[n].rstrip("\r\n")) :]
            lines[n] = ending
    return "".join(lines), blocks


def _take_block(toks: list[Tok], i: int) -> tuple[Block, int, int]:
    """The block starting at ``toks[i]`` (``timed``), the index after it, its last line."""
    lines: list[tuple[Tok, ...]] = []
    current: list[Tok] = []
    last_line = toks[i].line
    while i < len(toks) and toks[i].type != "NL":  # the header line
        current.append(toks[i])
        i += 1
    lines.append(tuple(current))
    current = []
    i += 1
    if i < len(toks) and toks[i].type == "INDENT":
        depth = 0
        while i < len(toks):
            t = toks[i]
            i += 1
            if t.type == "INDENT":
                depth += 1
            elif t.type == "DEDENT":
                depth -= 1
                if depth == 0:
                    break
            elif t.type == "NL":
                if current:
                    lines.append(tuple(current))
                    current = []
            else:
                current.append(t)
                last_line = max(last_line, t.line)
        if current:
            lines.append(tuple(current))
    return Block(tuple(lines)), i, last_line


# --------------------------------------------------------------------------- reading a block


class _Reader:
    """Reads one block's lines into a ``TimedComponent``."""

    def __init__(self, text: str, file: str) -> None:
        self.text = text
        self.file = file

    def error(self, message: str, tok: Tok | None, hint: str | None = None) -> SpecError:
        line = tok.line if tok is not None else 1
        col = tok.column if tok is not None else 1
        pos = SourcePos(self.file, line, col, source_line(self.text, line).rstrip("\r"))
        return SpecError(message, pos, hint=hint)

    def component(self, block: Block) -> TimedComponent:
        head = block.lines[0]
        if len(head) != 2 or head[1].type != "NAME":
            raise self.error(
                "a timed block starts with `timed NAME`", head[1] if len(head) > 1 else head[0]
            )
        signals: list[Signal] = []
        modes: list[Mode] = []
        reqs: list[TimedReq] = []
        if len(block.lines) == 1:
            raise self.error(
                f"timed block {head[1].value!r} is empty", head[0],
                "declare its signals (`input x: bool`) and requirements on indented lines",
            )
        for line in block.lines[1:]:
            first = line[0]
            word = first.value
            if first.type == "NAME" and word in ("input", "output"):
                signals.append(self.signal(line))
            elif first.type == "NAME" and word == "mode":
                modes.append(self.mode(line))
            elif first.type == "REQUIREMENT":
                reqs.append(self.requirement(line, head[1].value))
            else:
                raise self.error(
                    f"unexpected {word!r} in a timed block", first,
                    "a timed block holds `input`, `output`, `mode` and `requirement` lines",
                )
        return TimedComponent(
            name=head[1].value, signals=tuple(signals), modes=tuple(modes),
            requirements=tuple(reqs), file=self.file, line=head[0].line, column=1,
        )

    # ----------------------------------------------------------------- declarations

    def _synthetic(self, line: int, body: str) -> str:
        """A spec text whose line ``line`` is ``body`` (the header on line 1)."""
        return "spec timed_part version 1\n" + "\n" * (line - 2) + body + "\n"

    def _reparse(self, synthetic: str, line: int, shift: int) -> object:
        try:
            return parse_source(synthetic, self.file)
        except SpecError as exc:
            raise self._moved(exc, line, shift) from None

    def _moved(self, exc: SpecError, line: int, shift: int) -> SpecError:
        if exc.pos is None:
            return exc
        at = exc.pos.line
        pos = SourcePos(
            self.file, at, exc.pos.column + (shift if at == line else 0),
            source_line(self.text, at).rstrip("\r"),
        )
        return SpecError(exc.message, pos, hint=exc.hint, related=exc.related)

    def signal(self, line: Sequence[Tok]) -> Signal:
        first = line[0]
        if len(line) < 4 or line[1].type != "NAME" or line[2].type != "COLON":
            raise self.error(
                f"expected `{first.value} NAME: TYPE`", line[1] if len(line) > 1 else first
            )
        raw = self.text[first.start_pos : _end(line[-1])]
        shift = first.column - 1
        # `param` and `input` are equally long; `output` is one longer: pad, columns kept
        body = "param" + (" " if first.value == "output" else "") + raw[len(first.value) :]
        parsed = self._reparse(self._synthetic(first.line, body), first.line, shift)
        decl = parsed.declarations[0]  # type: ignore[attr-defined]
        assert isinstance(decl, ParamDecl)
        ty: TypeRef = decl.type
        return Signal(
            direction="input" if first.value == "input" else "output", name=line[1].value,
            type=ty, file=self.file, line=first.line, column=first.column,
        )

    def mode(self, line: Sequence[Tok]) -> Mode:
        first = line[0]
        if len(line) < 4 or line[1].type != "NAME" or line[2].type != "COLON":
            raise self.error("expected `mode NAME: CONDITION`", line[1] if len(line) > 1 else first)
        cond = _Cond(self, line[3:]).whole()
        return Mode(name=line[1].value, cond=cond, file=self.file, line=first.line,
                    column=first.column)

    def requirement(self, line: Sequence[Tok], component: str) -> TimedReq:
        first = line[0]
        colon = _label_end(line)
        if colon is None:
            raise self.error("expected `:` after the requirement's label", line[-1])
        raw = self.text[first.start_pos : _end(line[colon])]
        shift = first.column - 1
        parsed = self._reparse(self._synthetic(first.line, raw + " true"), first.line, shift)
        clause = parsed.clauses[0]  # type: ignore[attr-defined]
        label = clause.label
        body = line[colon + 1 :]
        if not body:
            raise self.error("the requirement says nothing after `:`", line[colon])
        scope, trigger, timing = _Body(self, body).parse()
        source = self.text[body[0].start_pos : _end(body[-1])]
        ident = label.ident.value if label.ident is not None else None
        generated = ident is None
        if ident is None:
            digest = hashlib.sha256(f"{component}\n{source}".encode()).hexdigest()[:8]
            ident = f"T_{component}_{digest}"
        return TimedReq(
            id=ident, generated_id=generated, scope=scope, trigger=trigger, timing=timing,
            tags=dict(label.tags), text=label.text, source=" ".join(source.split()),
            file=self.file, line=first.line, column=first.column,
        )

    # ----------------------------------------------------------------- expressions

    def expression(self, toks: Sequence[Tok]) -> Expr:
        """An ordinary expression of the language, read by the LALR parser in place."""
        first = toks[0]
        if first.line < 3:
            raise self.error("a timed block cannot start before line 2", first)
        raw = self.text[first.start_pos : _end(toks[-1])]
        synthetic = (
            "spec timed_part version 1\n" + "\n" * (first.line - 3) + "requirement R_: (\n"
            + " " * (first.column - 1) + raw + "\n)\n"
        )
        try:
            parsed = parse_source(synthetic, self.file)
        except SpecError as exc:
            last = toks[-1]
            if exc.pos is not None and exc.pos.line > last.line:
                # the error is at the closing bracket this reader added: the expression
                # ended too early; point just after its last token
                _, _, rest = exc.message.partition("; ")
                column = last.column + len(last.value)
                pos = SourcePos(self.file, last.line, column,
                                source_line(self.text, last.line).rstrip("\r"))
                message = "the expression ends too early" + (f"; {rest}" if rest else "")
                raise SpecError(message, pos, hint=exc.hint) from None
            raise self._moved(exc, -1, 0) from None
        expr: Expr = parsed.clauses[0].expr
        return expr


def _end(tok: Tok) -> int:
    return tok.start_pos + len(tok.value)


def _label_end(line: Sequence[Tok]) -> int | None:
    """The index of the ``:`` that ends a requirement's label (not one inside ``[...]``)."""
    depth = 0
    for i, t in enumerate(line):
        if t.type == "LSQB":
            depth += 1
        elif t.type == "RSQB":
            depth -= 1
        elif t.type == "COLON" and depth == 0:
            return i
    return None


def _word(t: Tok | None, *words: str) -> bool:
    return t is not None and t.value in words and t.type in ("NAME", t.value.upper())


class _Cond:
    """A timed condition over a token span: ``and``/``or``/``not``, parentheses, the
    past-time forms, and ordinary expressions as leaves."""

    def __init__(self, reader: _Reader, toks: Sequence[Tok]) -> None:
        self.r = reader
        self.toks = list(toks)
        self.i = 0
        self.depth = 0

    def peek(self, k: int = 0) -> Tok | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def whole(self) -> TCond:
        if not self.toks:
            raise self.r.error("a condition is missing here", None)
        if not any(t.type == "NAME" and t.value in _TIMED_WORDS for t in self.toks):
            return self._now(self.toks)
        cond = self.iff_()
        if self.peek() is not None:
            raise self.r.error(f"unexpected {self.peek().value!r} in a timed condition",  # type: ignore[union-attr]
                               self.peek())
        return cond

    def iff_(self) -> TCond:
        """``a iff b`` (left-associative) and ``a implies b`` (right-associative), read as
        the ``and``/``or``/``not`` they mean."""
        start = self.peek()
        left = self.implies_()
        while self.peek() is not None and self.peek().type == "IFF":  # type: ignore[union-attr]
            self.i += 1
            right = self.implies_()
            at = self._at(start)  # type: ignore[arg-type]
            left = TBool(op="and", operands=(
                TBool(op="or", operands=(TNot(operand=left, **at), right), **at),
                TBool(op="or", operands=(left, TNot(operand=right, **at)), **at),
            ), **at)
        return left

    def implies_(self) -> TCond:
        start = self.peek()
        left = self.or_()
        if self.peek() is not None and self.peek().type == "IMPLIES":  # type: ignore[union-attr]
            self.i += 1
            right = self.implies_()
            at = self._at(start)  # type: ignore[arg-type]
            return TBool(op="or", operands=(TNot(operand=left, **at), right), **at)
        return left

    def _now(self, toks: Sequence[Tok]) -> TNow:
        expr = self.r.expression(toks)
        return TNow(expr=expr, file=self.r.file, line=toks[0].line, column=toks[0].column)

    def _at(self, tok: Tok) -> dict[str, object]:
        return {"file": self.r.file, "line": tok.line, "column": tok.column}

    def or_(self) -> TCond:
        start = self.peek()
        parts = [self.and_()]
        while self.peek() is not None and self.peek().type == "OR":  # type: ignore[union-attr]
            self.i += 1
            parts.append(self.and_())
        if len(parts) == 1:
            return parts[0]
        assert start is not None
        return TBool(op="or", operands=tuple(parts), **self._at(start))

    def and_(self) -> TCond:
        start = self.peek()
        parts = [self.unary()]
        while self.peek() is not None and self.peek().type == "AND":  # type: ignore[union-attr]
            self.i += 1
            parts.append(self.unary())
        if len(parts) == 1:
            return parts[0]
        assert start is not None
        return TBool(op="and", operands=tuple(parts), **self._at(start))

    def unary(self) -> TCond:
        t = self.peek()
        if t is None:
            raise self.r.error("a condition is missing here", self.toks[-1])
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise self.r.error(
                f"a timed condition nested more than {_MAX_NESTING} levels deep", t,
                "name a part of it as a mode")
        try:
            return self._unary(t)
        finally:
            self.depth -= 1

    def _unary(self, t: Tok) -> TCond:
        if t.type == "NOT":
            self.i += 1
            return TNot(operand=self.unary(), **self._at(t))
        if t.type == "NAME" and t.value == "previously":
            self.i += 1
            return TPrevious(operand=self.unary(), **self._at(t))
        return self.postfix(self.primary())

    def primary(self) -> TCond:
        t = self.peek()
        assert t is not None
        if t.type == "LPAR":
            close = _closing(self.toks, self.i)
            inner = self.toks[self.i + 1 : close]
            if any(x.type == "NAME" and x.value in _TIMED_WORDS for x in inner):
                sub = _Cond(self.r, inner)
                sub.depth = self.depth
                cond = sub.iff_()
                if sub.peek() is not None:
                    raise self.r.error(f"unexpected {sub.peek().value!r}", sub.peek())  # type: ignore[union-attr]
                self.i = close + 1
                return cond
        j = self.i
        depth = 0
        while j < len(self.toks):
            x = self.toks[j]
            if x.type in ("LPAR", "LSQB", "LBRACE"):
                depth += 1
            elif x.type in ("RPAR", "RSQB", "RBRACE"):
                depth -= 1
            elif depth == 0 and (x.type in ("AND", "OR", "IFF", "IMPLIES") or
                                 (x.type == "NAME" and x.value in _SUFFIX_WORDS)):
                break
            j += 1
        if j == self.i:
            raise self.r.error(f"a condition is missing before {t.value!r}", t)
        leaf = self._now(self.toks[self.i : j])
        self.i = j
        return leaf

    def postfix(self, operand: TCond) -> TCond:
        t = self.peek()
        if t is None or t.type != "NAME":
            return operand
        if t.value == "becomes":
            v = self.peek(1)
            if v is None or v.type not in ("TRUE", "FALSE"):
                raise self.r.error("expected `true` or `false` after `becomes`", v or t)
            self.i += 2
            return TBecomes(operand=operand, value=v.type == "TRUE", **self._at(t))
        if t.value == "has":
            self._expect_words(("has",), ("held",), ("for",))
            n = self._steps()
            return THeld(operand=operand, steps=n, **self._at(t))
        if t.value == "occurred":
            self._expect_words(("occurred",), ("within",))
            n = self._steps()
            return TOccurred(operand=operand, steps=n, **self._at(t))
        return operand

    def _expect_words(self, *words: tuple[str, ...]) -> None:
        for options in words:
            t = self.peek()
            if t is None or t.value not in options:
                shown = " or ".join(f"`{w}`" for w in options)
                raise self.r.error(f"expected {shown} here", t or self.toks[-1])
            self.i += 1

    def _steps(self) -> int:
        n = self.peek()
        if n is None or n.type != "INT":
            raise self.r.error("expected a number of steps (an integer literal)",
                               n or self.toks[-1])
        self.i += 1
        self._expect_words(_STEPS)
        return int(n.value.replace("_", ""))


def _closing(toks: Sequence[Tok], i: int) -> int:
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].type in ("LPAR", "LSQB", "LBRACE"):
            depth += 1
        elif toks[j].type in ("RPAR", "RSQB", "RBRACE"):
            depth -= 1
            if depth == 0:
                return j
    return len(toks) - 1


def _split_comma(toks: Sequence[Tok]) -> int | None:
    """The index of the first comma at bracket depth 0."""
    depth = 0
    for i, t in enumerate(toks):
        if t.type in ("LPAR", "LSQB", "LBRACE"):
            depth += 1
        elif t.type in ("RPAR", "RSQB", "RBRACE"):
            depth -= 1
        elif t.type == "COMMA" and depth == 0:
            return i
    return None


class _Body:
    """``[SCOPE,] [TRIGGER,] TIMING`` of a timed requirement."""

    def __init__(self, reader: _Reader, toks: Sequence[Tok]) -> None:
        self.r = reader
        self.toks = list(toks)

    def _at(self, tok: Tok) -> dict[str, object]:
        return {"file": self.r.file, "line": tok.line, "column": tok.column}

    def cond(self, toks: Sequence[Tok], where: Tok) -> TCond:
        if not toks:
            raise self.r.error("a condition is missing here", where)
        return _Cond(self.r, toks).whole()

    def parse(self) -> tuple[Scope | None, Trigger | None, Timing]:
        toks = self.toks
        scope = self._scope(toks)
        if scope is not None:
            toks = toks[_split_comma(toks) + 1 :]  # type: ignore[operator]
            if not toks:
                raise self.r.error("the requirement says nothing after its scope", self.toks[-1])
        trigger = None
        first = toks[0]
        if first.type == "WHEN" or _word(first, "upon"):
            comma = _split_comma(toks)
            if comma is None:
                raise self.r.error(
                    f"expected `,` after the `{first.value}` condition", toks[-1],
                    f"write `{first.value} CONDITION, TIMING RESPONSE`",
                )
            trigger = Trigger(kind="when" if first.type == "WHEN" else "upon",
                              cond=self.cond(toks[1:comma], first), **self._at(first))
            toks = toks[comma + 1 :]
            if not toks:
                raise self.r.error("the requirement says nothing after its trigger", self.toks[-1])
        return scope, trigger, self._timing(toks)

    def _scope(self, toks: Sequence[Tok]) -> Scope | None:
        comma = _split_comma(toks)
        if comma is None:
            return None
        head = list(toks[:comma])
        words = [t.value for t in head]
        kind: str | None = None
        if len(head) == 3 and head[0].type == "IN" and words[2] == "mode":
            kind = "in"
        elif (len(head) == 4 and head[0].type == "NOT" and head[1].type == "IN"
              and words[3] == "mode"):
            kind = "not_in"
        elif (len(head) == 4 and words[0] == "only" and head[1].type == "IN"
              and words[3] == "mode"):
            kind = "only_in"
        elif len(head) == 3 and words[0] in ("before", "after") and words[2] == "mode":
            kind = words[0]
        if kind is None:
            return None
        mode_tok = head[-2]
        if mode_tok.type != "NAME":
            raise self.r.error("expected a mode's name here", mode_tok)
        return Scope(kind=kind, mode=mode_tok.value, **self._at(head[0]))

    def _steps(self, toks: Sequence[Tok], i: int) -> int:
        n = toks[i] if i < len(toks) else None
        if n is None or n.type != "INT":
            raise self.r.error("expected a number of steps (an integer literal)", n or toks[-1])
        unit = toks[i + 1] if i + 1 < len(toks) else None
        if unit is None or unit.value not in _STEPS:
            raise self.r.error("expected `steps` after the number", unit or n)
        return int(n.value.replace("_", ""))

    def _timing(self, toks: Sequence[Tok]) -> Timing:
        first = toks[0]
        at = self._at(first)
        w = first.value if first.type == "NAME" else None
        if w in ("always", "immediately"):
            return Timing(kind=w, response=self.cond(toks[1:], first), **at)
        if first.type == "NEVER":
            return Timing(kind="never", response=self.cond(toks[1:], first), **at)
        if first.type == "AT" and [t.value for t in toks[1:4]] == ["the", "next", "step"]:
            return Timing(kind="next", response=self.cond(toks[4:], toks[3]), **at)
        if w == "within" or first.type == "FOR" or (
            w == "after" and len(toks) > 1 and toks[1].type == "INT"
        ):
            n = self._steps(toks, 1)
            kind = "for" if first.type == "FOR" else w
            return Timing(kind=kind, steps=n, response=self.cond(toks[3:], toks[2]), **at)
        if w in ("until", "before"):
            comma = _split_comma(toks)
            if comma is None:
                raise self.r.error(
                    f"expected `,` after the `{w}` condition", toks[-1],
                    f"write `{w} CONDITION, RESPONSE`",
                )
            return Timing(kind=w, stop=self.cond(toks[1:comma], first),
                          response=self.cond(toks[comma + 1 :], toks[comma]), **at)
        comma = _split_comma(toks)
        if comma is not None:
            raise self.r.error(
                "unexpected `,` in a timed requirement", toks[comma],
                "the forms are `[in M mode,] [when C | upon C,] TIMING RESPONSE`; a scope "
                "reads `in M mode` (or `not in`, `only in`, `before`, `after`)",
            )
        return Timing(kind="immediately", response=self.cond(toks, first), **at)


def read_blocks(text: str, file: str, blocks: Sequence[Block]) -> tuple[TimedComponent, ...]:
    """The components of ``blocks`` (from ``split_blocks`` of ``text``)."""
    reader = _Reader(text, file)
    out: list[TimedComponent] = []
    for b in blocks:
        try:
            out.append(reader.component(b))
        except RecursionError:
            raise reader.error("this timed block is nested too deeply to be read",
                               b.lines[0][0]) from None
    return tuple(out)


__all__ = ["Block", "read_blocks", "split_blocks"]
