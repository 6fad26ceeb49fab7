"""Going on without a departed seat, in the terminal UI: the peer (on its thread) asks whether
to go on, a prompt on the UI thread answers (``peer/go_on.py``, ``PeerConfig.go_on_ask``).

The peer calls the bridge and blocks until the person answers (or ``timeout_s`` passes, or the
session closes: no answer is no). A yes seats this seat at the next table, with a bot in the
departed seat; the app then shows that table on a fresh table screen (``DruidsApp``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from textual.message import Message

from druids_p2p.peer.go_on import ASK_S
from druids_p2p.peer.session import ASK_S as REMATCH_ASK_S
from druids_p2p.tui.approval import AskBridge

ANSWER_S = ASK_S - 5.0
"""The person's time to answer: within the peer's, so a late yes never finds the others gone."""


class GoOnQuestion(Message):
    """A seat is gone for good: ``answer(True)`` goes on with a bot in its seat."""

    def __init__(self, offer: dict[str, Any], answer: Callable[[bool | None], None]) -> None:
        super().__init__()
        self.offer = offer
        self.answer = answer


class GoOnBridge(AskBridge):
    """``PeerConfig.go_on_ask`` for the UI's seat."""

    def __init__(self, post: Callable[[Message], object], timeout_s: float = ANSWER_S) -> None:
        super().__init__(post, timeout_s)

    def __call__(self, offer: dict[str, Any]) -> bool:
        return self.ask(lambda answer: GoOnQuestion(dict(offer), answer))


class RematchBridge:
    """``PeerConfig.rematch_ask`` for the UI's seat at a LAN table: yes once the person pressed
    ``r`` on the end screen (before or while the peer asks), no when the session closes or
    nobody pressed it within ``rematch.ASK_S``."""

    def __init__(self, timeout_s: float = REMATCH_ASK_S) -> None:
        self.timeout_s = timeout_s
        self._wanted = threading.Event()
        self._closed = threading.Event()

    def want(self) -> None:
        """The person pressed ``r``."""
        self._wanted.set()

    def __call__(self, offer: dict[str, Any]) -> bool:
        step = 0.2
        for _ in range(int(self.timeout_s / step) + 1):  # bounded; wakes up to notice close()
            if self._closed.is_set():
                return False
            if self._wanted.wait(step):
                self._wanted.clear()  # one key press, one rematch
                return not self._closed.is_set()
        return False

    def close(self) -> None:
        self._closed.set()


__all__ = ["ANSWER_S", "GoOnBridge", "GoOnQuestion", "RematchBridge"]
