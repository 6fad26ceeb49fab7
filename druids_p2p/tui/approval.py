"""The host's approval of joiners in the terminal UI: the lobby (on the peer's thread) asks, a
prompt on the UI thread answers.

The peer's lobby calls the approver and blocks until it returns (``Lobby._on_join``); here that
call posts a :class:`JoinApproval` message to the app, which shows :class:`ApproveJoin`, and waits
for the person's answer. Bots this UI started itself are seated without asking (their keys are
known: their identities are made before they start), and no answer within ``timeout_s``, or the
session closing, refuses.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from textual.message import Message

from druids_p2p.lan.seating import JoinRequest

APPROVAL_TIMEOUT_S = 120.0
"""A joiner waits at most this long for the host's answer (the lobby waits with it)."""


class JoinApproval(Message):
    """Someone asks for a seat at the table this UI hosts: ``answer(True)`` seats them."""

    def __init__(self, request: JoinRequest, answer: Callable[[bool | None], None]) -> None:
        super().__init__()
        self.request = request
        self.answer = answer


class AskBridge:
    """A question a peer's thread asks the UI thread and blocks on: the message ``make(answer)``
    is posted, the first answer counts (True only for a yes), and no answer within
    ``timeout_s``, or the session closing, is no."""

    def __init__(self, post: Callable[[Message], object], timeout_s: float) -> None:
        self.post = post
        self.timeout_s = timeout_s
        self._closed = threading.Event()

    def ask(self, make: Callable[[Callable[[bool | None], None]], Message]) -> bool:
        if self._closed.is_set():
            return False
        answered = threading.Event()
        answers: list[bool] = []

        def answer(yes: bool | None) -> None:
            if not answered.is_set():
                answers.append(yes is True)
                answered.set()

        self.post(make(answer))
        step = 0.2
        for _ in range(int(self.timeout_s / step) + 1):  # bounded; wakes up to notice close()
            if answered.wait(step) or self._closed.is_set():
                break
        return bool(answers) and answers[0]

    def close(self) -> None:
        """No to the question waiting and every later one (the person left)."""
        self._closed.set()


class ApprovalBridge(AskBridge):
    """The lobby's approver (``PeerConfig.approve_join``) for a UI host."""

    def __init__(
        self,
        post: Callable[[Message], object],
        own_keys: Iterable[bytes] = (),
        timeout_s: float = APPROVAL_TIMEOUT_S,
    ) -> None:
        super().__init__(post, timeout_s)
        self.own_keys = frozenset(own_keys)

    def __call__(self, request: JoinRequest) -> bool:
        if request.key in self.own_keys:
            return True
        return self.ask(lambda answer: JoinApproval(request, answer))
