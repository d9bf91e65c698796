"""The grammar layer: the requirement language's parser (docs/language.md).

``load(paths)`` reads a requirement set from files (resolving ``use``),
``parse_text(text, file)`` parses one spec given as text; both return a
``derivative._ast.Contract`` and raise ``SpecError``/``UsageError`` (never a
parser library's exception).  ``tokenize`` and ``grammar_text`` are exposed for
tools and tests.
"""

from __future__ import annotations

from ._lexer import RESERVED, tokenize
from ._loader import load, load_set, parse_text, parse_text_set, register_source
from ._parser import grammar_text

__all__ = [
    "RESERVED", "grammar_text", "load", "load_set", "parse_text", "parse_text_set",
    "register_source", "tokenize",
]
