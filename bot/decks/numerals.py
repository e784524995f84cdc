"""Numbers people type: ASCII digits, or the Bengali digits a bn keyboard gives (০-৯).

`str.isdigit` is true for superscripts (²), other scripts' digits and more, some of which
`int()` refuses: every number a person types goes through `number`, so "²" is just a word
that names nothing, never a crash.
"""

from __future__ import annotations

_DIGITS = str.maketrans("০১২৩৪৫৬৭৮৯", "0123456789")
_ASCII = frozenset("0123456789")


def number(text: str) -> int | None:
    """The number `text` writes in ASCII or Bengali digits (no sign, no spaces), else None."""
    plain = text.translate(_DIGITS)
    if not plain or not _ASCII.issuperset(plain) or len(plain) > 9:
        return None
    return int(plain)
