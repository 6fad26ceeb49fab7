"""The mental-card deal: a fair, private deal among peers with no trusted dealer.

Game-agnostic: cards are ids 0..N-1, seats 0..n-1, each seat gets h cards and a set of required
cards is always dealt. ElGamal on ristretto255 under a joint key, a chain of seeded shuffles that
is recomputed at the end of the round, batched Chaum-Pedersen proofs on every decryption share, and
a blame for every deviation. The protocol is specified byte by byte in docs/protocol/deck.md.
"""

from druids_p2p.deck.assign import Assignment
from druids_p2p.deck.audit import AuditResult, Opened, audit_log, audit_transcript
from druids_p2p.deck.errors import (
    AuditRequired,
    DeckError,
    DeckFault,
    GroupError,
    MalformedMessage,
    NotReady,
)
from druids_p2p.deck.messages import (
    KINDS,
    CommitMsg,
    KeyMsg,
    Message,
    OpenMsg,
    RevealMsg,
    SaltMsg,
    ShareBatch,
    SharesMsg,
    ShuffleMsg,
    parse_body,
)
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.peer import DeckPeer
from druids_p2p.deck.signing import Codec, Envelope

__all__ = [
    "KINDS",
    "Assignment",
    "AuditRequired",
    "AuditResult",
    "Codec",
    "CommitMsg",
    "DeckError",
    "DeckFault",
    "DeckParams",
    "DeckPeer",
    "Envelope",
    "GroupError",
    "KeyMsg",
    "MalformedMessage",
    "Message",
    "NotReady",
    "OpenMsg",
    "Opened",
    "RevealMsg",
    "SaltMsg",
    "ShareBatch",
    "SharesMsg",
    "ShuffleMsg",
    "audit_log",
    "audit_transcript",
    "parse_body",
]
