"""The table machine's small parts: its faults, its steps and their log, the seating (who sits
where) and the table secret its seat's randomness is derived from. Each has one owner, the
machine (``table.py``), which hands them to its collaborators.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from druids_p2p.lan.network import TableNetwork
from druids_p2p.lan.seating import confirm_contradiction, seat_order
from druids_p2p.wire import Message, MsgType
from druids_p2p.wire.record import sync_dir


# The table machine's small values: its faults, its schedule's steps and the one log of them.
class TableFault(Exception):
    """The table must stop. ``seat`` is the play seat to blame (None if nobody can be named yet)."""

    def __init__(
        self, reason: str, seat: int | None = None, evidence: Sequence[bytes] = ()
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seat = seat
        self.evidence = tuple(evidence)


DECK_CHECK = "card table: "
"""How a fault of a failed deck check begins (``card_table_round``): a claim that begins so is
about messages every peer checks alike, so another peer or an auditor can judge it."""


def blames_a_deck_check(reason: str) -> bool:
    """True if an abort's ``reason`` is a failed deck check (:data:`DECK_CHECK`)."""
    return reason.startswith(DECK_CHECK)


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


# Per-table secrets, kept on disk so a restarted peer re-derives exactly what it sent before.
Entropy = Callable[[int], bytes]

SECRET_SIZE = 32


def write_private(path: Path, data: bytes) -> None:
    """Write a file only its owner can read (mode 0600), durably and atomically: a crash leaves
    either the old file or the new one, never a torn secret (the rename is synced too: a table
    secret lost in a power cut would make a restarted peer sign other messages for its slots)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    sync_dir(path.parent)


class TableSecret:
    """The root secret of one peer at one table, and the streams derived from it."""

    def __init__(self, root: bytes) -> None:
        if len(root) != SECRET_SIZE:
            raise ValueError("a table secret is 32 bytes")
        self._root = root

    @classmethod
    def load_or_create(cls, path: Path) -> TableSecret:
        """Read the secret at ``path`` or create it there (0600) with fresh OS randomness."""
        if path.exists():
            data = path.read_bytes()
            if len(data) != SECRET_SIZE:
                raise ValueError(f"{path}: a table secret must be {SECRET_SIZE} bytes")
            return cls(data)
        path.parent.mkdir(parents=True, exist_ok=True)
        root = secrets.token_bytes(SECRET_SIZE)
        write_private(path, root)
        return cls(root)

    def derive(self, label: str) -> bytes:
        return hmac.new(self._root, b"druids-p2p/v1 " + label.encode(), hashlib.sha256).digest()

    def seat_nonce(self) -> bytes:
        """The nonce this peer contributes to the seat-order coin flip."""
        return self.derive("seat-nonce")

    def entropy(self, label: str) -> Entropy:
        """A deterministic byte stream (HMAC-SHA256 in counter mode) for one purpose."""
        key = self.derive(label)
        counter = 0

        def draw(size: int) -> bytes:
            nonlocal counter
            out = b""
            while len(out) < size:
                counter += 1
                out += hmac.new(key, counter.to_bytes(8, "big"), hashlib.sha256).digest()
            return out[:size]

        return draw

    def __repr__(self) -> str:  # never print the secret
        return "TableSecret(<hidden>)"


# Who sits where: the seat message's list, then the seating steps' confirmations and nonces.
class Seating:
    """The seats of one table: the seat message's list and names, every seat's signed
    confirmation and revealed nonce, and the play order the nonces' coin flip fixes. Every part
    of the machine names a seat through it."""

    def __init__(self, me: bytes, seat_message: Message, network: TableNetwork) -> None:
        """``network``: where every seat's confirmed endpoint must be (``lan/network.py``)."""
        self.me = me
        self.seat_message = seat_message
        self.keys: tuple[bytes, ...] = tuple(seat_message.body["seats"])
        self.names: dict[bytes, str] = dict(zip(self.keys, seat_message.body["names"], strict=True))
        self.network = network
        self.confirms: dict[bytes, Message] = {}
        self.nonces: dict[bytes, bytes] = {}
        self.order: tuple[bytes, ...] = ()
        """The keys in play order, once every nonce is in (empty until then)."""

    @property
    def my_seat(self) -> int | None:
        return self.order.index(self.me) if self.order else None

    def seat_of(self, key: bytes) -> int | None:
        """``key``'s play seat, or its seat-list index before the play order is fixed."""
        keys = self.order or self.keys
        return keys.index(key) if key in keys else None

    def name_of_seat(self, seat: int) -> str:
        return str(self.names[(self.order or self.keys)[seat]])

    def who(self, key: bytes) -> str:
        """``key`` as a verdict names it: its name and seat."""
        return f"{self.names.get(key, '?')} (seat {self.seat_of(key)})"

    def fault(self, msg: Message, reason: str, *evidence: bytes) -> TableFault:
        """``msg``'s sender blamed: its name then ``reason``, on ``evidence`` (else ``msg``)."""
        return TableFault(
            f"{self.who(msg.sender)}{reason}", self.seat_of(msg.sender), evidence or (msg.raw,)
        )

    def confirmed_addresses(self) -> list[tuple[bytes, str, bytes]] | None:
        """Every listed seat's (key, endpoint, CURVE key), in seat-list order, from its own
        signed confirmation; None until every confirmation is in (``peer/links.py``)."""
        if len(self.confirms) < len(self.keys):
            return None
        bodies = [self.confirms[key].body for key in self.keys]
        return [(key, b["endpoint"], b["curve"]) for key, b in zip(self.keys, bodies, strict=True)]

    def check_confirm(self, msg: Message) -> None:
        """A confirmation names an endpoint on the table's network and agrees with what the seat
        message lists for its signer, its signer's own signed word: else its signer is blamed."""
        refused = self.network.refusal(msg.body["endpoint"])
        if refused is not None:
            raise self.fault(msg, f"'s seat confirmation is refused: {refused}")
        wrong = confirm_contradiction(self.seat_message, msg)
        if wrong is not None:
            own = "seat message" if msg.sender == self.seat_message.sender else "join"
            raise self.fault(
                msg,
                f"'s seat confirmation names {wrong}, which its own signed {own} does not",
                self.seat_message.raw,
                msg.raw,
            )

    def take_confirms(self, batch: list[Message]) -> None:
        for msg in batch:
            self.confirms[msg.sender] = msg

    def take_nonces(self, batch: list[Message]) -> None:
        """Every nonce is out: each must open its seat's commitment; then the coin flip."""
        for msg in batch:
            nonce, confirm = msg.body["nonce"], self.confirms[msg.sender]
            if hashlib.sha256(nonce).digest() != confirm.body["commit"]:
                raise TableFault(
                    f"{self.who(msg.sender)}'s seat nonce does not match its commitment",
                    self.keys.index(msg.sender),
                    (confirm.raw, msg.raw),
                )
            self.nonces[msg.sender] = nonce
        self.order = seat_order(self.seat_message.table_id, self.keys, self.nonces)
