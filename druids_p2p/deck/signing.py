"""The seam between deck messages and signed bytes.

The deck needs two things from an envelope: that the sender's signature binds the body to its seat
(so a fault can be proved with the raw bytes), and that it binds the table and round (so a message
cannot be replayed into another deal). :class:`Codec` is that contract; at a table the wire
layer's signed envelope implements it (``table.codec``). The in-process stand-in that the deck's
tests and ``druids bench deal`` use is ``druids_p2p.bench.tables.Ed25519Codec``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from druids_p2p.deck.body_schema import Body


@dataclass(frozen=True, slots=True)
class Envelope:
    """An authenticated message: ``raw`` is the exact signed bytes, kept as evidence."""

    seat: int
    kind: str
    body: Body
    raw: bytes
    shaped: Any = field(default=None, compare=False)
    """The body as its message, shape checked when it was decoded (the wire's decoder runs the
    deck's parser, ``table_messages.shape_table_body``), or None: the deck parses ``body``."""


class Codec(Protocol):
    """Signs this seat's bodies and authenticates everybody's, for one table and round."""

    @property
    def seat(self) -> int: ...

    def seal(self, kind: str, body: Body) -> bytes:
        """The signed bytes of ``body`` from this codec's seat."""
        ...

    def open(self, raw: bytes) -> Envelope:
        """Authenticate ``raw``; raise :class:`MalformedMessage` for anything not provably sent."""
        ...
