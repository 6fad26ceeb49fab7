"""Deck cheats at the card table: commitments, keys, decryption shares and cards shown face up
that do not match what the seat holds, each blamed on its sender with the signed evidence.

The arena (honest :class:`TableRunner` peers around real table machines, a bare cheating
machine) is ``attack_arena``; see its docstring for what is and is not real.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from attack_arena import (
    Arena,
    domain_cards,
    hand_cards,
    no_linger,
    not_leading,
    peer_of,
    position_of,
    random_point,
    random_scalar,
    rewrite,
    send_move,
    send_show,
)

from druids_p2p.deck import group
from druids_p2p.deck.cards import card_points, decrypt_with
from druids_p2p.games.druids2017 import GAIA, format_move
from druids_p2p.table.table import TableMachine
from druids_p2p.wire import MsgType, decode

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too


def _evidence_is_its_show(arena: Arena, sent: list[bytes]) -> None:
    """Every honest peer that found the cheat itself holds the cheater's signed show first."""
    (show,) = sent
    for k in arena.honest:
        fault = arena.faults.get(k)
        if fault is not None:
            assert fault.evidence[0] == show, fault.reason
            assert decode(fault.evidence[0]).type is MsgType.TABLE_SHOW


# ==================================================================== cheats at the table
def test_seat_nonce_not_matching_its_commitment(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=22, cheater=2)

    def mutate(body: dict[str, Any]) -> None:
        body["nonce"] = os.urandom(32)

    arena.tamper = rewrite(arena, 2, MsgType.SEAT_NONCE, mutate)
    arena.run()
    arena.assert_blamed(2, "seat nonce does not match its commitment", seat=2)


def test_tampered_decryption_share_is_blamed_on_its_sender(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=23, cheater=1)
    position: list[int] = []

    def mutate(body: dict[str, Any]) -> None:  # its first share of a round's deals
        share = body["shares"][0]
        position.append(share["pos"])
        share["d"] = random_point()

    arena.tamper = rewrite(arena, 1, MsgType.TABLE_SHARES, mutate)
    arena.run()
    assert len(position) == 1, "the cheater's first table_shares was not tampered with"
    arena.assert_blamed(1, "table_shares: invalid decryption share proof (one proof for a seat")


def test_tampered_share_in_a_card_shown_is_blamed(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=24, cheater=1)

    def mutate(body: dict[str, Any]) -> None:
        body["d"] = random_point()

    arena.tamper = rewrite(arena, 1, MsgType.TABLE_SHOW, mutate)
    arena.run()
    arena.assert_blamed(1, "invalid decryption share proof")


def test_revealed_secret_not_matching_the_key(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=26, cheater=2)

    def mutate(body: dict[str, Any]) -> None:
        body["x"] = random_scalar()

    arena.tamper = rewrite(arena, 2, MsgType.TABLE_REVEAL, mutate)
    arena.run()
    arena.assert_blamed(2, "revealed secret does not match its table_key")


def test_a_card_token_sent_as_a_move_instead_of_a_show(tmp_path: Path) -> None:
    """A card leaves a hand only as a ``table_show`` of its position: a ``move`` naming the
    card (the version 1 spelling, which opened nothing here) is refused by every seat's copy of
    the rules and blamed on its signer, with the signed move."""
    arena = Arena(tmp_path, players=3, seed=27, cheater=1)
    sent: list[bytes] = []

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        if not not_leading(m) or move >= 60:
            return None
        sent.extend(send_move(m, format_move(move)))
        return sent

    arena.cheat_once(attempt)
    arena.assert_blamed(1, "a card leaves a hand only by a show of its position")
    for k in arena.honest:
        if k in arena.faults:
            assert arena.faults[k].evidence == tuple(sent)


def test_a_show_claiming_another_card_than_its_position_holds(tmp_path: Path) -> None:
    """The cheater shows a position of its own hand with its real share and a valid proof,
    but claims another card of its hand (one the rules would let it play): the shares decrypt
    the position to the card it holds, so every seat refuses the show at once."""
    arena = Arena(tmp_path, players=3, seed=28, cheater=1)
    sent: list[bytes] = []

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        cards = domain_cards(m)
        if not not_leading(m) or move >= 60 or len(cards) < 2:
            return None
        other = next(c for c in cards if c != move)
        sent.extend(send_show(m, position_of(m, other), move))  # shows one card, claims another
        return sent

    arena.cheat_once(attempt)
    arena.assert_blamed(1, "claimed card")
    _evidence_is_its_show(arena, sent)


def test_a_show_of_a_position_dealt_to_another_seat(tmp_path: Path) -> None:
    """A valid share and proof of its own secret for a position of another seat's hand: no
    seat takes a card out of a hand that is not the mover's."""
    arena = Arena(tmp_path, players=3, seed=29, cheater=1)
    sent: list[bytes] = []

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        if not not_leading(m) or move >= 60:
            return None
        assert m.my_seat is not None
        owner = (m.my_seat + 1) % 3
        theirs = peer_of(m).state.zone(f"hand:{owner}")
        sent.extend(send_show(m, theirs[0], move))
        return sent

    arena.cheat_once(attempt)
    arena.assert_blamed(1, "which is not in its hand")
    _evidence_is_its_show(arena, sent)


def test_a_show_of_its_own_position_as_a_card_dealt_to_someone_else(tmp_path: Path) -> None:
    """The cheater claims, for a position of its own hand, a card another seat holds (the test
    looks: a cheater would guess): the seat that holds it refuses the claim from its own hand,
    the other when the shares decrypt the position to the card it really is."""
    arena = Arena(tmp_path, players=3, seed=30, cheater=1)
    sent: list[bytes] = []

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        if not not_leading(m) or move >= 60:
            return None
        theirs = domain_cards(arena.machines[2])
        if not theirs:
            return None
        sent.extend(send_show(m, min(hand_cards(m)), theirs[0]))  # my position, their card
        return sent

    arena.cheat_once(attempt)
    arena.assert_blamed(1, "claimed card")
    _evidence_is_its_show(arena, sent)
    assert "but it lies at position" in arena.faults[2].reason  # the holder knew at once


def test_a_made_up_share_is_convicted_by_its_proof(tmp_path: Path) -> None:
    """The cheater shows one of its positions with a share made up so that it decrypts to
    another card it wants to play. Everything but the Chaum-Pedersen proof agrees (the claimed
    card is what the shares give), so the proof is what convicts it."""
    arena = Arena(tmp_path, players=3, seed=34, cheater=1)
    sent: list[bytes] = []

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        if not not_leading(m) or move >= 60:
            return None
        state = peer_of(m).state
        j = next(p for p, c in hand_cards(m).items() if c not in (move, GAIA))
        partial = decrypt_with(state.positions[j].c, state.shares_of(j))
        share = group.sub(partial, card_points(state.num_cards)[move])
        sent.extend(send_show(m, j, move, share=share))
        return sent

    arena.cheat_once(attempt)
    arena.assert_blamed(1, "invalid decryption share proof")
    _evidence_is_its_show(arena, sent)
