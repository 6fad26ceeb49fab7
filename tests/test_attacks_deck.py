"""Deck cheats at the table: commitments, keys, decryption shares and card openings that do not
match what the seat committed to, each blamed on its sender with the signed evidence.

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
    move_body,
    no_linger,
    not_leading,
    open_into_move,
    random_point,
    rewrite,
    send_move,
)
from druids_p2p.deck.messages import OpenMsg
from druids_p2p.deck.peer import random_scalar
from table_harness import game_of

from druids_p2p.deck import group
from druids_p2p.deck.cards import card_points
from druids_p2p.deck.elgamal import decrypt_with
from druids_p2p.games.druids2017 import format_move
from druids_p2p.net.table import TableMachine
from druids_p2p.wire import MsgType, decode, decode_receipt, is_receipt

__all__ = ["no_linger"]  # the arena's autouse fixture applies here too


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
    victim: list[int] = []

    def mutate(body: dict[str, Any]) -> None:
        batch = body["batches"][0]
        victim.append(batch["to"])
        batch["d"][2] = random_point()

    arena.tamper = rewrite(arena, 1, MsgType.DECK_SHARES, mutate)
    arena.run()
    (recipient,) = victim
    arena.assert_blamed(1, f"invalid decryption shares for seat {recipient}'s cards")


def test_tampered_share_in_a_card_opening_is_blamed(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=24, cheater=1)

    def mutate(body: dict[str, Any]) -> None:
        body["open"]["d"] = random_point()

    arena.tamper = rewrite(arena, 1, MsgType.MOVE, mutate)
    arena.run()
    arena.assert_blamed(1, "invalid decryption share proof")


def test_reveal_not_matching_the_commitment(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=25, cheater=1)

    def mutate(body: dict[str, Any]) -> None:
        body["seed"] = os.urandom(32)

    arena.tamper = rewrite(arena, 1, MsgType.DECK_REVEAL, mutate)
    arena.run()
    arena.assert_blamed(1, "revealed shuffle seed does not match its commitment")


def test_revealed_secret_not_matching_the_key(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=26, cheater=2)

    def mutate(body: dict[str, Any]) -> None:
        body["x"] = random_scalar(os.urandom)

    arena.tamper = rewrite(arena, 2, MsgType.DECK_REVEAL, mutate)
    arena.run()
    arena.assert_blamed(2, "revealed secret does not match its published key share")


def test_move_of_a_card_never_opened(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=27, cheater=1)

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        if not not_leading(m) or move >= 60:
            return None
        return send_move(m, format_move(move))

    arena.cheat_once(attempt)
    arena.assert_blamed(1, "without opening that card")


def test_move_claiming_another_card_than_the_one_opened(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=28, cheater=1)

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        cards = domain_cards(m)
        if not not_leading(m) or move >= 60 or len(cards) < 2:
            return None
        assert m.deck is not None
        other = next(c for c in cards if c != move)
        return open_into_move(m, format_move(move), other)  # plays one card, shows another

    arena.cheat_once(attempt)
    arena.assert_blamed(1, "without opening that card")


def _forged_open(m: TableMachine, position: int, card: int) -> list[bytes]:
    """A move playing ``card`` that opens any position, with a valid share and proof from this
    seat's secret, unchecked."""
    deck = m.deck
    assert deck is not None
    d, e, s = deck._prepare_opening(position)  # a real share and proof, of any position
    return _sealed_opening(m, OpenMsg(deck.params.round_no, position, card, d, e, s))


def _sealed_opening(m: TableMachine, opening: OpenMsg) -> list[bytes]:
    """A move playing ``opening.card`` that carries ``opening`` as it is, unchecked."""
    assert m.deck is not None and m.codec is not None
    m.codec.carry(move_body(m, format_move(opening.card)))
    m.deck._codec.seal(OpenMsg.KIND, opening.to_body())
    return m._drain()


def test_opening_a_position_dealt_to_another_seat(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=29, cheater=1)

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        if not not_leading(m) or move >= 60:
            return None
        assert m.deck is not None and m.my_seat is not None
        owner = (m.my_seat + 1) % 3
        return _forged_open(m, m.deck.positions(owner)[0], move)

    arena.cheat_once(attempt)
    arena.assert_blamed(1, "which was dealt to seat")


def test_opening_own_position_as_a_card_dealt_to_someone_else(tmp_path: Path) -> None:
    arena = Arena(tmp_path, players=3, seed=30, cheater=1)

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        rnd = game_of(m).round
        if not not_leading(m) or rnd is None or rnd.lead_domain < 0:
            return None
        assert m.deck is not None and m.deck._hand is not None and m.my_seat is not None
        hand = set(m.deck.hand())
        seen = {o.card for o in m.deck.opened}
        wanted = [c for c in range(60) if c not in hand and c not in seen]
        card = max(wanted, key=lambda c: (c // 12 == rnd.lead_domain, c % 12))
        opened_positions = {o.position for o in m.deck.opened}
        mine = [p for p in m.deck.positions(m.my_seat) if p not in opened_positions]
        return _forged_open(m, mine[0], card)  # a real share of my position, claiming its card

    arena.cheat_once(attempt)
    arena.assert_blamed(1, "claimed card")


def test_a_made_up_share_is_acknowledged_then_convicted_by_its_proof(tmp_path: Path) -> None:
    """The cheater opens one of its positions with a share made up so that it decrypts to another
    card it wants to play. Everything but the Chaum-Pedersen proof agrees, so peers acknowledge
    the move first (the proof is the one check a receipt does not wait for) and then, before they
    look at anything else, the proof fails and convicts the cheater."""
    arena = Arena(tmp_path, players=3, seed=34, cheater=1)

    def attempt(m: TableMachine, move: int) -> list[bytes] | None:
        if not not_leading(m) or move >= 60:
            return None
        deck = m.deck
        assert deck is not None and deck.final_deck is not None and deck._hand is not None
        assert deck._book is not None
        opened = {o.position for o in deck.opened}
        j = next(p for p, c in deck._hand.items() if c != move and p not in opened)
        partial = decrypt_with(deck.final_deck.c[j], deck._book.others_shares(j, deck.seat))
        share = group.sub(partial, card_points(deck.params.num_cards)[move])
        one = (1).to_bytes(32, "little")
        out = _sealed_opening(m, OpenMsg(deck.params.round_no, j, move, share, one, one))
        forged.extend(decode(raw).hash for raw in out)
        return out

    forged: list[bytes] = []
    acknowledged: set[int] = set()

    def watch(frm: int, to: int, raw: bytes) -> bytes:
        if is_receipt(raw) and decode_receipt(raw).msg in forged:
            acknowledged.add(frm)
        return raw

    arena.tamper = watch
    arena.cheat_once(attempt)
    arena.assert_blamed(1, "invalid decryption share proof")
    assert acknowledged and acknowledged <= set(arena.honest)
