"""Table talk in the UI: a one-line input (``c`` opens it, Enter sends, Escape closes) and how a
chat event reads in the table log (``NAME: TEXT``). The lines travel as signed ``chat`` messages
(net/chat.py); here they are only typed and shown."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input

from druids_p2p.wire.bodies import MAX_CHAT_TEXT

CHAT_EVENTS = ("chat", "chat_refused")


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
    """Hidden until opened; a line said (or the input closed) is posted as :class:`Said`."""

    DEFAULT_CSS = """
    ChatInput { display: none; height: 3; border: round $accent; }
    ChatInput.open { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "close chat", show=False)]

    class Said(Message):
        """``text`` is the line to send, or None when the input was closed without one."""

        def __init__(self, text: str | None) -> None:
            super().__init__()
            self.text = text

    def __init__(self) -> None:
        super().__init__(
            placeholder="say something to the table — Enter sends, Escape closes",
            id="chat",
            max_length=MAX_CHAT_TEXT,
        )
        self.can_focus = False  # closed, it never takes the keys (nor the screen's first focus)

    def open(self) -> None:
        self.value = ""
        self.can_focus = True
        self.add_class("open")
        self.focus()

    def _close(self, text: str | None) -> None:
        self.remove_class("open")
        self.value = ""
        self.can_focus = False
        self.blur()
        self.post_message(self.Said(text))

    def action_close(self) -> None:
        self._close(None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        self._close(text or None)
