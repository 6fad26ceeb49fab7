"""Issue 12's shuffle attacks against real table machines at the card table: every pass is proven
before the shuffle completes (in one batch once the last is in), so a cheating shuffler is refused
and blamed for its pass of the round's ``deck`` before any share is sent (nothing is dealt from a
deck whose passes are not all proven)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from attack_arena import (
    Arena,
    no_linger,
    peer_of,
    plant_encryptions,
    planted_encryptions,
    rewrite,
    split_first_shuffle,
)
from message_surgery import resign, thaw

from druids_p2p.deck import group
from druids_p2p.deck.cards import Deck, card_points
from druids_p2p.deck.shuffle import shuffle_step
from druids_p2p.deck.table_messages import TableShuffleMsg
from druids_p2p.deck.table_state import TableState
from druids_p2p.games.druids2017.game import DECK
from druids_p2p.wire import MsgType, decode

__all__ = ["no_linger"]  # the harness's autouse fixture applies here too

FIRST = 0
"""Operation 0 of a round: the shuffle of ``deck``, every seat's first pass."""


def _arena_with_cheater_seated(tmp_path: Path, players: int, seat: int) -> Arena:
    """An arena whose cheater (seat-list index 1) drew play seat ``seat`` at the coin flip
    (bounded retries: each attempt is a fresh table with fresh nonces)."""
    for attempt in range(60):
        arena = Arena(tmp_path / f"try{attempt}", players=players, seed=attempt, cheater=1)

        def seated(a: Arena = arena) -> bool:
            return any(m.order for m in a.machines)

        arena.run(stop=seated)
        if arena.seat(1) == seat:
            return arena
    raise AssertionError(f"index 1 never drew seat {seat} in 60 coin flips")


def _shares_sent_by_honest(arena: Arena) -> list[bytes]:
    return [
        raw
        for k, raw in arena.sent
        if k in arena.honest and decode(raw).type is MsgType.TABLE_SHARE
    ]


def _input_of(state: TableState, seat: int) -> Deck:
    """What ``seat``'s pass of the round's first shuffle takes: the pass before it, or for
    seat 0 the public start (B, M_c + H) of the listed cards."""
    if seat > 0:
        before = state.slots[(FIRST, seat - 1)].msg
        assert isinstance(before, TableShuffleMsg)
        return Deck(before.a, before.c)
    joint = state.joint_key
    assert joint is not None
    points = card_points(state.num_cards)
    cards = state.ops[FIRST].cards
    return Deck((group.BASE,) * len(cards), tuple(group.add(points[c], joint) for c in cards))


@pytest.mark.parametrize("seat", [3, 0, 1])
def test_forged_shuffle_is_refused_and_blamed_before_any_share(tmp_path: Path, seat: int) -> None:
    """The shuffler publishes fresh encryptions of cards of its own choosing (as the last one,
    seat 3, it would know every card dealt from ``deck``). Every honest peer refuses it, blames
    the shuffler with its signed pass, and never sends a share — also the peers that had not
    checked it yet when the first one stopped (they check what they hold when they hear of the
    stop)."""
    players = 4
    arena = _arena_with_cheater_seated(tmp_path, players, seat)
    cheater = arena.machines[1]

    arena.tamper = rewrite(arena, 1, MsgType.TABLE_SHUFFLE, plant_encryptions(cheater))
    arena.run()
    arena.assert_blamed(1, "invalid proof of a shuffle")
    assert _shares_sent_by_honest(arena) == []


def test_a_genuine_proof_of_another_shuffle_does_not_pass(tmp_path: Path) -> None:
    """The cheater proves a real shuffle of ciphertexts it made itself and sends that proof with
    them: the proof holds for its own input, not for the deck it was handed."""
    players = 3
    arena = _arena_with_cheater_seated(tmp_path, players, players - 1)
    cheater = arena.machines[1]

    def forge(body: dict[str, Any]) -> None:
        state = peer_of(cheater).state
        joint = state.joint_key
        assert joint is not None
        own = planted_encryptions(cheater, len(body["a"]))
        source = Deck(tuple(a for a, _ in own), tuple(c for _, c in own))
        params = state.context(b"shuffle", DECK, FIRST)
        out, proof = shuffle_step(params, players - 1, 1, os.urandom(32), source, joint)
        forged = TableShuffleMsg(state.round_no, FIRST, DECK, out.a, out.c, proof).to_body()
        body.clear()
        body.update(forged)

    arena.tamper = rewrite(arena, 1, MsgType.TABLE_SHUFFLE, forge)
    arena.run()
    arena.assert_blamed(1, "invalid proof of a shuffle")
    assert _shares_sent_by_honest(arena) == []


def test_a_split_shuffle_with_two_valid_proofs_is_proven_and_blamed(tmp_path: Path) -> None:
    """Both versions are genuine proven passes over the same input (different seeds): proofs
    cannot tell, so the next step's heads diverge and the two signed versions convict the
    shuffler."""
    arena = Arena(tmp_path, players=3, seed=19, cheater=1)
    cheater = arena.machines[1]

    def twin(raw: bytes) -> bytes:
        state = peer_of(cheater).state
        joint = state.joint_key
        assert joint is not None
        seat = arena.seat(1)
        params = state.context(b"shuffle", DECK, FIRST)
        source = _input_of(state, seat)
        out, proof = shuffle_step(params, seat, 1, os.urandom(32), source, joint)
        body = thaw(decode(raw).body)
        other = TableShuffleMsg(state.round_no, FIRST, DECK, out.a, out.c, proof).to_body()
        assert other.keys() == body.keys()
        return resign(arena.ids[1], raw, body=other)

    split_first_shuffle(arena, twin)
