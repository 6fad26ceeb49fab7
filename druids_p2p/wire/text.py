"""What text from another peer may hold: printable characters only, never a bidi control.

Names, table names, chat lines and reasons from the wire end up on other players' terminals and
in their logs. A control character moves the cursor, clears the screen or rings; a bidi control
(Unicode UAX #9) reorders what follows it, so that a line reads other than it is (the "Trojan
Source" trick, CVE-2021-42574); a zero-width or private-use character hides or disguises a name.
So every such string is checked when it arrives (the body schemas' ``printable``,
wire/schema.py), and by this peer before it signs one (a name, a chat line): one rule, here, for
both.

The rule is Python's ``str.isprintable``: a character is refused if its Unicode general category
is ``Cc`` (controls), ``Cf`` (format: the bidi controls among them), ``Cs``, ``Co``, ``Cn``
(surrogates, private use, unassigned), ``Zl``, ``Zp`` or ``Zs`` (separators; U+0020 excepted).
The bidi controls are also listed by code point, so they are refused whatever Unicode version a
peer's character database has. Markup characters (``[``, ``]``, ``@``) are ordinary text: the
terminal UI never reads peer text as markup (it shows it as Rich ``Text``).
"""

from __future__ import annotations

import unicodedata

BIDI_CONTROLS = frozenset(
    "\u202a\u202b\u202c\u202d\u202e"  # LRE RLE PDF LRO RLO
    "\u2066\u2067\u2068\u2069"  # LRI RLI FSI PDI
    "\u200e\u200f\u061c"  # LRM RLM ALM
)
"""Every bidi formatting character of UAX #9 §2: embeddings, overrides, isolates and marks."""

_KINDS = {
    "Cc": "a control character",
    "Cf": "a format character",
    "Cs": "a surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Zs": "a space other than U+0020",
}

REPLACEMENT = "\ufffd"
"""What :func:`shown` puts in place of a refused character (U+FFFD, one character for one)."""


def refused_char(char: str) -> str | None:
    """What ``char`` is if text from a peer may not hold it (``"a bidi control"``), else None."""
    if char in BIDI_CONTROLS:
        return "a bidi control"
    if char.isprintable():
        return None
    return _KINDS.get(unicodedata.category(char), "not printable")


def unprintable(text: str) -> str | None:
    """None if every character of ``text`` may be shown, else the first one refused, named by
    code point (``U+202E (a bidi control) at character 3``), never echoed."""
    if text.isprintable() and BIDI_CONTROLS.isdisjoint(text):
        return None
    for index, char in enumerate(text, start=1):
        kind = refused_char(char)
        if kind is not None:
            return f"U+{ord(char):04X} ({kind}) at character {index}"
    return None  # pragma: no cover - isprintable and refused_char agree


def shown(text: str) -> str:
    """``text`` with every refused character replaced by U+FFFD: what a screen may show of a
    string whose origin it cannot vouch for (the same length, so styled spans stay in place)."""
    if unprintable(text) is None:
        return text
    return "".join(REPLACEMENT if refused_char(c) is not None else c for c in text)
