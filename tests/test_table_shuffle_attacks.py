"""Issue 12's shuffle attacks against real table machines: every shuffle is proven on arrival,
so a cheating shuffler is refused and blamed at the shuffle step, before any salt or share."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from attack_arena import (
    Arena,
    no_linger,
    plant_encryptions,
    planted_encryptions,
    rewrite,
    split_first_shuffle,
)
from druids_p2p.deck.messages import ShuffleMsg
from message_surgery import resign, thaw

from druids_p2p.deck.body_schema import proof_to_body
from druids_p2p.deck.elgamal import Deck
from druids_p2p.deck.shuffle import shuffle_step
from druids_p2p.wire import MsgType, decode, is_receipt

__all__ = ["no_linger"]  # the harness's autouse fixture applies here too


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


def _salts_or_shares_sent_by_honest(arena: Arena) -> list[MsgType]:
    kinds = [decode(raw).type for k, raw in arena.sent if k in arena.honest and not is_receipt(raw)]
    return [t for t in kinds if t in (MsgType.DECK_SALT, MsgType.DECK_SHARES)]


@pytest.mark.parametrize("seat", [3, 0, 1])
def test_forged_shuffle_is_refused_and_blamed_before_any_share(tmp_path: Path, seat: int) -> None:
    """The shuffler publishes fresh encryptions of cards of its own choosing (as the last one,
    seat 3, it would know every hand once the salts fix the assignment). Every honest peer
    refuses it, blames the shuffler with its signed message, and never sends a salt or a share
    — also the peers that had not checked it yet when the first one stopped (they check what
    they hold when they hear of the stop)."""
    players = 4
    arena = _arena_with_cheater_seated(tmp_path, players, seat)
    cheater = arena.machines[1]

    arena.tamper = rewrite(arena, 1, MsgType.DECK_SHUFFLE, plant_encryptions(cheater))
    arena.run()
    arena.assert_blamed(1, "invalid proof of a shuffle")
    assert _salts_or_shares_sent_by_honest(arena) == []


def test_a_genuine_proof_of_another_shuffle_does_not_pass(tmp_path: Path) -> None:
    """The cheater proves a real shuffle of ciphertexts it made itself and sends that proof with
    them: the proof holds for its own input, not for the deck it was handed."""
    players = 3
    arena = _arena_with_cheater_seated(tmp_path, players, players - 1)
    cheater = arena.machines[1]

    def forge(body: dict[str, Any]) -> None:
        deck = cheater.deck
        assert deck is not None and deck.joint_key is not None
        joint = deck.joint_key
        own = planted_encryptions(cheater, len(body["a"]))
        source = Deck(tuple(a for a, _ in own), tuple(c for _, c in own))
        out, proof = shuffle_step(deck.params, players - 1, 1, os.urandom(32), source, joint)
        forged = ShuffleMsg(deck.params.round_no, 1, out.a, out.c, proof).to_body()
        body.clear()
        body.update(forged)

    arena.tamper = rewrite(arena, 1, MsgType.DECK_SHUFFLE, forge)
    arena.run()
    arena.assert_blamed(1, "invalid proof of a shuffle")
    assert _salts_or_shares_sent_by_honest(arena) == []


def test_a_split_shuffle_with_two_valid_proofs_is_proven_and_blamed(tmp_path: Path) -> None:
    """Both versions are genuine proven shuffles (different seeds): proofs cannot tell, so the
    next step's heads diverge and the two signed versions convict the shuffler."""
    arena = Arena(tmp_path, players=3, seed=19, cheater=1)
    cheater = arena.machines[1]

    def twin(raw: bytes) -> bytes:
        deck = cheater.deck
        assert deck is not None and deck.joint_key is not None
        seat = arena.seat(1)
        source = deck._chain.input(seat, deck.joint_key)
        out, proof = shuffle_step(deck.params, seat, 1, os.urandom(32), source, deck.joint_key)
        body = thaw(decode(raw).body)
        body["a"], body["c"], body["proof"] = list(out.a), list(out.c), proof_to_body(proof)
        return resign(arena.ids[1], raw, body=body)

    split_first_shuffle(arena, twin)
