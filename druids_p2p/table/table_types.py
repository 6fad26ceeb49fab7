"""The table machine's small values: its faults, its schedule's steps and the one log of them.

Kept apart from the machine (``table/table.py``) and its step handlers (``table_seating``,
``card_table_round``, ``game_result``) so that the handlers raise the machine's faults
and walk its steps without importing the machine: the arrows point one way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from druids_p2p.wire import MsgType


class TableFault(Exception):
    """The table must stop. ``seat`` is the play seat to blame (None if nobody can be named yet)."""

    def __init__(
        self, reason: str, seat: int | None = None, evidence: Sequence[bytes] = ()
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        self.evidence = tuple(evidence)


class Departure(TableFault):
    """The blamed seat is gone from the table for good, by this peer's own clock: unreachable,
    past the move limit, withholding what it owes, or it stopped instead of sending it. The
    others may go on without it (``go_on.py``), unlike after a fault with evidence."""


class RecordLost(TableFault):
    """We hold, or just made, another message of ours for a slot than one we signed before (our
    storage lost synced writes, or the record is an older copy): we stop at once and sign
    nothing more, not even an abort, since any slot of our chain may already be taken
    (protocol.md §8, "A lost record"). Nobody is blamed."""

    def __init__(self, seq: int, evidence: Sequence[bytes]) -> None:
        super().__init__(
            f"this peer's record does not hold the message {seq} it signed before (its storage "
            "lost writes, or the record is an older copy): it stops and signs nothing more",
            None,
            evidence,
        )


class Divergence(TableFault):
    """``peer``'s transcript differs from ours after head ``prev``: its message for this step
    is built on another head than ours, so somebody signed two versions of a message in the
    last step. Ask ``peer`` for what it holds after ``prev``: its copy convicts the signer;
    else stop."""

    def __init__(self, reason: str, peer: bytes, prev: bytes, evidence: Sequence[bytes] = ()):
        super().__init__(reason, None, evidence)
        self.peer = peer
        self.prev = prev


@dataclass(frozen=True)
class Step:
    """Seats (by public key, in append order) that must each send one message of ``types``,
    each built on ``head``: the transcript head when the step began."""

    name: str
    senders: tuple[bytes, ...]
    types: frozenset[MsgType]
    head: bytes = b""


@dataclass
class TableEvent:
    """Something a user interface or log may want to show."""

    kind: str
    """seated, round_started, move, round_ended, audit, game_over, aborted"""
    text: str
    data: dict[str, object] = field(default_factory=dict)


class StepLog:
    """Every step the table has begun, in order: the one owner of the schedule's history.

    The current step, its head, the previous step's head and who may sign a message built on a
    given head are all views of it (the table once kept four structures in step by hand)."""

    def __init__(self, first: Step) -> None:
        self._steps: list[Step] = [first]
        self._senders_at: dict[bytes, tuple[bytes, ...]] = {first.head: first.senders}
        self._open = True

    def begin(self, step: Step) -> None:
        self._steps.append(step)
        self._senders_at[step.head] = step.senders
        self._open = True

    def close(self) -> None:
        """No step is due (a completed step is being handled and the next not begun yet)."""
        self._open = False

    @property
    def current(self) -> Step | None:
        return self._steps[-1] if self._open else None

    @property
    def head(self) -> bytes:
        """The head the last step began at (what its messages must carry)."""
        return self._steps[-1].head

    @property
    def previous_head(self) -> bytes:
        """The head the step before the last began at: where transcripts last agreed."""
        return self._steps[-2].head if len(self._steps) > 1 else self._steps[-1].head

    def senders_at(self, head: bytes) -> tuple[bytes, ...] | None:
        """Who the step that began at ``head`` was for (None for a head no step began at)."""
        return self._senders_at.get(head)
