"""Table talk in the UI: the chat box (``c`` opens it over the table or a prompt, Enter sends,
Escape closes) and how a chat event reads in the table log (``NAME: TEXT``). The lines travel as
signed ``chat`` messages (lan/chat.py); here they are only typed and shown.

The box is a modal screen of its own, not an input among the table's widgets: while it is open
every key goes to it and none reaches the hand, the table, a prompt under it or the hold of a
completed trick (an input on the table screen let a held trick's "any key" eat the ``c``, and the
table's Enter and space then played a card the person never chose).
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Footer, Input

from druids_p2p.wire.schema import MAX_CHAT_TEXT

CHAT_EVENTS = ("chat", "chat_refused")

CHAT_KEY = Binding("c", "app.chat", "chat", priority=True)
"""``c`` opens the chat box: on a table screen and on every prompt, summary and end screen over
it (a modal screen hides the table's own bindings). The app (``DruidsApp.action_chat``) opens it
over whatever is on top. A priority binding is run as the app takes the key, before it hands on
the next: the keys typed behind ``c`` in one burst go to the box, not to the hand (a plain one
ran only once ``c`` had bubbled up from the focused card, after the keys behind it had been
handed to that card). None of these screens has an input that ``c`` could be text for."""


def chat_line(event: dict[str, Any], my_seat: int | None = None) -> Text:
    """A chat event as a log line: the speaker in bold (``you`` for this seat), then the text."""
    if event.get("event") == "chat_refused":
        return Text(str(event.get("text", "chat: not sent")), style="yellow")
    seat = event.get("seat")
    who = "you" if seat is not None and seat == my_seat else str(event.get("name", "?"))
    line = Text(f"{who}: ", style="bold cyan")
    line.append(str(event.get("text", "")))
    return line


class ChatInput(Input):
    """The line being typed (at most a chat line's bytes' worth of characters)."""

    DEFAULT_CSS = """
    ChatInput { height: 3; border: round $accent; }
    """

    def __init__(self) -> None:
        super().__init__(
            placeholder="say something to the table — Enter sends, Escape closes",
            id="chat",
            max_length=MAX_CHAT_TEXT,
        )


class ChatBox(ModalScreen[str | None]):
    """The chat's own input at the bottom, the table still in view above: dismissed with the
    line to send, or None when closed without one (Escape, an empty line)."""

    DEFAULT_CSS = """
    ChatBox { align: center bottom; background: $background 0%; }
    ChatBox > ChatInput { width: 100%; margin-bottom: 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "close chat")]

    def compose(self) -> ComposeResult:
        yield ChatInput()
        yield Footer()

    def on_mount(self) -> None:
        self.set_focus(self.query_one(ChatInput))  # now, not on the next refresh

    def on_key(self, event: events.Key) -> None:
        """A key handed to the box before its input had the focus (``c`` and the line typed in
        one burst, or over a laggy link) is the input's all the same: a character (the input
        takes those it is given itself, so one here was not), or Enter."""
        try:
            chat = self.query_one(ChatInput)
        except NoMatches:
            return
        if event.is_printable and event.character is not None:
            event.stop()
            event.prevent_default()
            chat.insert_text_at_cursor(event.character)
            self.set_focus(chat)
        elif event.key == "enter" and self.focused is not chat:
            event.stop()
            event.prevent_default()
            self._say(chat.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._say(event.value)

    def _say(self, text: str) -> None:
        self.dismiss(text.strip() or None)

    def action_close(self) -> None:
        self.dismiss(None)
