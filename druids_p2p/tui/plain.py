"""Text that may come from another peer, as the terminal UI shows it: literally.

A ``str`` handed to a Textual ``Static``, ``Label``, ``DataTable`` cell, border title or Rich
table cell is read as markup: ``[/x]`` in a name stopped the app (``MarkupError``) and
``[@click=screen.answer(True)]B`` made a name a link that answered a prompt. A Rich ``Text`` is
never read as markup, so every string that holds a name, a table name, a chat line or a reason
goes on screen through :func:`plain`. Such text is checked on receipt (wire/schema.py); what got
here another way has its unprintable characters shown as U+FFFD all the same.
"""

from __future__ import annotations

from rich.text import Text

from druids_p2p.wire.schema import shown


def _lines_shown(text: str) -> str:
    """:func:`shown` line by line: the line breaks the UI puts between lines stay breaks."""
    return "\n".join(shown(line) for line in text.split("\n"))


def plain(text: object, style: str = "") -> Text:
    """``text`` (``str()`` of it) as a ``Text`` no markup parser reads, unprintables replaced
    (line breaks kept: a dialog's lines are joined with them)."""
    return Text(_lines_shown(str(text)), style=style)


def plain_text(text: Text) -> Text:
    """A styled ``Text`` with its unprintable characters replaced (its spans stay in place)."""
    cleaned = _lines_shown(text.plain)
    if cleaned == text.plain:
        return text
    copy = text.copy()
    copy.plain = cleaned
    return copy
