"""What a table tells the UI (Textual messages, safe to post from any thread) and what the UI
asks of a table (:class:`Session`).

The messages carry the game's own picture of the table (Druids 2017's ``TableSnapshot``); the
neutral TUI reads only what every game's picture has, :class:`SeatSnapshot`, and the game's
table screen the rest."""

from __future__ import annotations

from typing import Any, Protocol

from textual.message import Message


class SeatSnapshot(Protocol):
    """What every game's snapshot of a table says, and all the neutral TUI reads of one: who
    sits where, which seat is this one, which move request it answers."""

    @property
    def names(self) -> tuple[str, ...]: ...
    @property
    def my_seat(self) -> int | None: ...
    @property
    def turn(self) -> int: ...
    def name(self, seat: int | None) -> str: ...


class PeerEvent(Message):
    """One event of the peer (``config.emit``: lobby, joined, seated, move, away, …), with a
    snapshot of the table taken just after it (None before the table machine exists)."""

    def __init__(self, event: dict[str, Any], snapshot: SeatSnapshot | None) -> None:
        super().__init__()
        self.event = event
        self.snapshot = snapshot


class TurnRequest(Message):
    """The peer waits for this seat's move; ``snapshot.turn`` must come back with it."""

    def __init__(self, snapshot: SeatSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot


class MoveRejected(Message):
    """The move the UI submitted is not legal here (the engine's reason, in the player's words)."""

    def __init__(self, move: int, reason: str) -> None:
        super().__init__()
        self.move = move
        self.reason = reason


class SessionEnded(Message):
    """The peer stopped: ``result`` is its result (record, totals…) or ``error`` one line."""

    def __init__(self, result: dict[str, Any] | None, error: str | None = None) -> None:
        super().__init__()
        self.result = result
        self.error = error


class Session:
    """A table the UI plays at. Subclasses post the messages above to the app."""

    title = "table"
    result: dict[str, Any] | None = None
    """The peer's result once the game ended or stopped."""
    record: str | None = None
    """Where this peer's game record is written, once known."""

    def start(self) -> None:
        raise NotImplementedError

    def submit(self, move: int, turn: int) -> None:
        """The person chose ``move`` for the request numbered ``turn``."""
        raise NotImplementedError

    def send_chat(self, text: str) -> str | None:
        """Say ``text`` to the table (lan/chat.py); the reason it is not sent, or None."""
        return "there is nobody to talk to at this table"

    def close(self) -> None:
        """Leave the table: stop the peer and any bot processes (idempotent)."""
