"""The deal checks a round's public messages allow, for a record that stops before its reveal.

Without the reveals a round's hands stay hidden, so the offline audit cannot recompute its deal
(``deck.audit_transcript``). But what every live peer checked on receipt needs no secret: each key
share against its commitment and its proof of knowledge, each shuffle's proof of a shuffle against
its input (in seat order, each output the next input), each salt against the hash its key message
bound. A table that stopped on one of these faults holds its evidence in the record (the message
was appended with its step, then checked): running the same checks lets ``druids audit`` say
"valid, stopped: seat 3 …" with the evidence checked, not only the recorder's word.
"""

from __future__ import annotations

from collections.abc import Iterable

from druids_p2p.deck import group
from druids_p2p.deck.checks import check_key, check_salt, check_shuffle
from druids_p2p.deck.elgamal import Deck, public_encryptions
from druids_p2p.deck.log import RoundLog
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.signing import Codec


def check_public(params: DeckParams, raws: Iterable[bytes], codec: Codec) -> None:
    """Raise :class:`DeckFault` at the first public check the round's messages fail, in deck.md's
    order (keys, then shuffles in seat order, then salts); stop quietly where messages run out."""
    log = RoundLog(params)
    for raw in raws:
        env = codec.open(raw)
        log.add(env.seat, env.kind, env.body, env.raw)
    n = params.seats
    for seat in range(n):
        if seat in log.keys and seat in log.commits:
            check_key(params, log, seat)
    if any(seat not in log.keys for seat in range(n)):
        return
    joint = group.sum_points([log.keys[s].msg.key for s in range(n)])
    deck = public_encryptions(params, params.shuffled_cards(), joint)
    for seat in range(n):
        if seat not in log.shuffles:
            return
        shuffle = log.shuffles[seat]
        check_shuffle(params, log, shuffle, deck, joint)
        deck = Deck(shuffle.msg.a, shuffle.msg.c)
    for seat in sorted(log.salts):
        if seat in log.keys:
            check_salt(log, seat)
