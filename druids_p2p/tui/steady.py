"""A ``Static`` that is given its content again only when it changed.

Textual's ``Static.update`` always asks for a new layout and a repaint, even with the same content;
a table screen draws all its panels after every move, so unchanged panels cost a layout pass and
a Rich render each time (issue 30: the terminal UI's tests spent most of their CPU there). Each
panel here says what its content is made of (a key); the same key again changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual.widgets import Static


def text_key(text: Text) -> tuple[Any, ...]:
    """Everything a ``Text`` is shown with (``Text.__eq__`` leaves out its style and layout)."""
    return (
        text.plain,
        str(text.style),
        tuple(text.spans),
        text.justify,
        text.overflow,
        text.no_wrap,
        text.end,
    )


def show_once(widget: Static, key: object, make: Callable[[], RenderableType]) -> None:
    """Update ``widget`` with ``make()`` unless it last showed the same ``key``."""
    if getattr(widget, "_steady_key", _NEVER) == key:
        return
    widget._steady_key = key  # type: ignore[attr-defined]
    widget.update(make())


def show_text(widget: Static, text: Text | str) -> None:
    """Update ``widget`` with ``text`` unless it already shows the same text, styled the same."""
    key = text_key(text) if isinstance(text, Text) else ("str", text)
    show_once(widget, key, lambda: text)


_NEVER = object()
