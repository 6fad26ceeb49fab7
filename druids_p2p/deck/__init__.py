"""The mental card table: shuffles, deals, face-down and face-up plays among peers, no dealer.

Game-agnostic (cards are ids, a game gives a list of operations), so every game shares one
audited deck: ElGamal on ristretto255, a proof of every shuffle and share, a blame for every
deviation. Specified byte by byte in docs/protocol/deck.md.
"""

from druids_p2p.deck.errors import (
    AuditRequired,
    DeckError,
    DeckFault,
    GroupError,
    MalformedMessage,
    NotReady,
)
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.table_messages import Codec, Envelope

__all__ = [
    "AuditRequired",
    "Codec",
    "DeckError",
    "DeckFault",
    "DeckParams",
    "Envelope",
    "GroupError",
    "MalformedMessage",
    "NotReady",
]
