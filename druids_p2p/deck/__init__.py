"""The mental card table: shuffles, deals, face-down and face-up plays among peers with no trusted
dealer.

Game-agnostic: cards are ids 0..N-1, seats 0..n-1, and a game says what happens as a list of
operations. ElGamal on ristretto255 under a joint key, a proof of every shuffle, a Chaum-Pedersen
proof on every decryption share, and a blame for every deviation. The protocol is specified byte
by byte in docs/protocol/deck.md.
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
