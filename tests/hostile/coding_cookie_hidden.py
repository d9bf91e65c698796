# -*- coding: unicode_escape -*-
"""Hostile: a source-encoding trick hides statements inside a comment.

Decoded as the cookie says (as the interpreter does), the escape in the comment below
is a newline, and the rest of that line is code that imports os at import time.  A
reader that decodes the bytes as UTF-8 sees one harmless comment.
"""


def f(x: int) -> int:
    return x + 1

# harmless comment \u000aimport os\u000a_s = os.environ.get("DERIVATIVE_CANARY")\u000aif _s: print("DERIVATIVE-BREACH coding_cookie_hidden:", _s, flush=True)
