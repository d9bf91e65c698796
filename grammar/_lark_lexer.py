"""Lark's view of the hand-written lexer, used only when Lark compiles the grammar.

Kept apart from ``_lexer`` so that a process parsing with cached tables (``_tables``)
never imports Lark.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lark.lexer import Lexer, LexerState
from lark.utils import TextSlice

from ._lexer import tokenize


class SpecLexer(Lexer):
    """Lark adapter: the parser pulls tokens from :func:`tokenize` with its state."""

    __future_interface__ = 2

    def __init__(self, lexer_conf: Any) -> None:
        self.lexer_conf = lexer_conf
        #: open brackets of the text being lexed (parses run under the front end's lock)
        self.brackets: list[tuple[str, int, int]] = []

    def lex(self, lexer_state: LexerState, parser_state: Any) -> Iterator[Any]:
        text = lexer_state.text
        source: str = text.text if isinstance(text, TextSlice) else text
        self.brackets = []
        return tokenize(
            source, parser_state.state_stack, parser_state.parse_conf.states, self.brackets
        )
