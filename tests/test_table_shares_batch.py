"""A deals' ``table_shares`` proofs of a seat's cards are checked by that seat in two steps
(deck.md §8.3): each one's challenge as it arrives, and the equation on its ``T2`` with every
other seat's proof of its cards in one batch, each weighted by a hash of all it sent, once the
last is in. Real TablePeer objects in process: a ``T2`` that is not its proof's commitment is
refused at the batch and blamed on its signer; two seats whose errors would cancel in an
unweighted sum are refused too; a bad one held when a seat falls silent is blamed first; and the
batch multiplies each A of the seat's cards once for all the messages, not once a message."""

from __future__ import annotations

from typing import Any

import pytest
from deck_local import rewrite
from table_local import GAME, TABLE_ID, TableBus, make_table

from druids_p2p.bench.tables import counting
from druids_p2p.deck import group
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.lincomb import sum_products
from druids_p2p.deck.proofs import batch_coefficients, shares_digest, shares_statement
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_state import context_params

NUM_CARDS, CARDS, SEATS = 16, tuple(range(12)), 3
BATCH = (0, 1, 2) * 3
"""Nine cards round-robin: each seat owes its shares of the six positions dealt to the others."""
REASON = "table_shares: invalid decryption share proof (one proof for a seat's cards)"
DEALS = TableOp("deals", deck="d", seats=BATCH)


def _ints(scalar: bytes) -> int:
    return int.from_bytes(scalar, "little")


def _scalar(value: int) -> bytes:
    return (value % group.ORDER).to_bytes(32, "little")


def shuffled(seed: bytes) -> TableBus:
    bus = make_table(SEATS, NUM_CARDS, seed)
    bus.push(TableOp("shuffle", deck="d", cards=CARDS))
    return bus


HONEST = 0
"""The seat that checks: the proofs below are those of the shares of its cards."""


def _proof(body: dict[str, Any]) -> dict[str, Any]:
    """The body's proof of the shares of seat ``HONEST``'s cards."""
    (proof,) = [pr for pr in body["proofs"] if pr["seat"] == HONEST]
    assert isinstance(proof, dict)
    return proof


def _statement(bus: TableBus, seat: int, body: dict[str, Any]) -> tuple[Any, ...]:
    state = bus.peers[seat].state
    params = context_params(TABLE_ID, GAME, SEATS, b"share", "d", 1)
    parts = [part for part in body["shares"] if state.positions[part["pos"]].owner == HONEST]
    positions = [part["pos"] for part in parts]
    a_list = [state.positions[p].a for p in positions]
    d_list = [part["d"] for part in parts]
    return params, positions, a_list, d_list


def commit_to(bus: TableBus, seat: int, body: dict[str, Any], t2: bytes, w: int = 7) -> None:
    """``seat`` proves its shares of ``HONEST``'s cards in ``body`` with its true secret and a
    ``T2`` of its choice: ``e`` binds ``T1 = w·B`` and that ``T2``, ``s = w + e·x``, so the
    challenge holds."""
    peer = bus.peers[seat]
    params, positions, a_list, d_list = _statement(bus, seat, body)
    statement = shares_statement(params, seat, peer._key, positions, a_list, d_list)
    e = statement.challenge(group.base_mul(_scalar(w)), t2)
    proof = _proof(body)
    proof["e"], proof["t2"] = e, t2
    proof["s"] = _scalar(w + _ints(e) * _ints(peer._secret))


def error_of(bus: TableBus, seat: int, body: dict[str, Any]) -> bytes:
    """``s·A* − e·D* − T2`` of ``seat``'s proof of ``HONEST``'s cards: the identity when true."""
    params, positions, a_list, d_list = _statement(bus, seat, body)
    digest = shares_digest(params, seat, bus.peers[seat]._key, positions, a_list, d_list)
    coefs = [_ints(c) for c in batch_coefficients(digest, len(a_list))]
    proof = _proof(body)
    e, s = _ints(proof["e"]), _ints(proof["s"])
    scalars = [s * c for c in coefs] + [-e * c for c in coefs] + [-1]
    return sum_products(group.IDENTITY, scalars, [*a_list, *d_list, proof["t2"]])


def own_messages(bus: TableBus) -> list[bytes]:
    """Every seat's ``table_shares`` of ``DEALS``, made but not delivered."""
    return [raw for peer in bus.peers for raw in peer.push(DEALS)]


def test_a_t2_that_is_not_its_commitment_is_refused_at_the_batch_and_blamed() -> None:
    """``T2`` is checked by the batch only: seat 1 sends its true shares with a ``T2`` that is
    not its commitment (the challenge binds it, so the message is taken); once the deals is
    complete the batch fails, and alone seat 1's equation fails: it is blamed, with its signed
    message and its key; the honest seats' shares held up."""
    bus = shuffled(b"t2")
    made = own_messages(bus)

    def wrong_t2(body: dict[str, Any]) -> None:
        commit_to(bus, 1, body, group.add(_proof(body)["t2"], group.BASE))

    made[1] = rewrite(bus.codecs[1], made[1], wrong_t2)
    honest = bus.peers[0]
    assert honest.receive(made[1]) == []  # its challenge holds: taken, the deals waits for seat 2
    with pytest.raises(DeckFault) as info:
        honest.receive(made[2])
    assert info.value.seat == 1 and info.value.reason == REASON
    assert info.value.evidence == (made[1], honest.state.keys[1].raw)


def test_two_seats_whose_errors_cancel_in_an_unweighted_sum_are_refused() -> None:
    """Seats 1 and 2 collude: seat 1 puts a false share under a proof made for it (its error
    ``E ≠ 0``), seat 2 true shares under a ``T2`` that carries ``−E``. The plain sum of the two
    equations is the identity; each message's weight, hashed from all it sent, keeps them
    apart: the honest seat refuses them and blames seat 1, the first in seat order."""
    bus = shuffled(b"cancel")
    made = own_messages(bus)
    state = bus.peers[1].state
    errors: list[bytes] = []

    def false_share(body: dict[str, Any]) -> None:
        part = body["shares"][2]  # position 3, dealt to seat 0
        part["d"] = group.add(part["d"], state.positions[part["pos"]].a)
        commit_to(bus, 1, body, _honest_t2(bus, 1, body, w=7))  # as an honest prover would
        errors.append(error_of(bus, 1, body))

    def cancel(body: dict[str, Any]) -> None:
        (error,) = errors
        commit_to(bus, 2, body, group.add(_honest_t2(bus, 2, body, w=11), error), w=11)
        assert group.add(error_of(bus, 2, body), error) == group.IDENTITY

    made[1] = rewrite(bus.codecs[1], made[1], false_share)
    made[2] = rewrite(bus.codecs[2], made[2], cancel)
    assert errors[0] != group.IDENTITY
    honest = bus.peers[0]
    honest.receive(made[1])
    with pytest.raises(DeckFault) as info:
        honest.receive(made[2])
    assert info.value.seat == 1 and info.value.reason == REASON


def _honest_t2(bus: TableBus, seat: int, body: dict[str, Any], w: int) -> bytes:
    """``w·A*`` over the shares now in ``body``: the ``T2`` of an honest prover's nonce ``w``."""
    params, positions, a_list, d_list = _statement(bus, seat, body)
    digest = shares_digest(params, seat, bus.peers[seat]._key, positions, a_list, d_list)
    coefs = [_ints(c) for c in batch_coefficients(digest, len(a_list))]
    return sum_products(group.IDENTITY, [w * c for c in coefs], a_list)


def test_a_bad_table_shares_held_when_a_seat_falls_silent_is_blamed_first() -> None:
    """Seat 2 never sends its shares; seat 1's, whose ``T2`` is wrong, is held. Before the
    silence is blamed (a deadline, an audit of the record), the held ones are checked alone:
    seat 1 is blamed, not seat 2."""
    bus = shuffled(b"held")
    made = own_messages(bus)
    made[1] = rewrite(
        bus.codecs[1],
        made[1],
        lambda body: commit_to(bus, 1, body, group.add(_proof(body)["t2"], group.BASE)),
    )
    honest = bus.peers[0]
    honest.receive(made[1])
    with pytest.raises(DeckFault) as info:
        honest.prove_held()
    assert info.value.seat == 1 and info.value.reason == REASON


def test_an_honest_deals_passes_its_batch_and_prove_held_blames_nobody() -> None:
    bus = shuffled(b"honest")
    made = own_messages(bus)
    honest = bus.peers[0]
    honest.receive(made[1])
    honest.prove_held()  # seat 1's alone holds
    honest.receive(made[2])
    assert honest.state.done == 2 and len(honest.known()) == 3


def test_the_batch_multiplies_each_dealt_a_once_for_every_message() -> None:
    """A seat's check, during the deal, of the others' proofs of the shares of its ``h`` cards:
    one generic multiplication a message for its challenge, ``h + 1`` for its shares and ``T2``,
    and one a card for all of them (``h``), where a check of each alone took ``2h + 1`` a
    message; then one a card of its hand, to read it. The proofs of the other seats' cards wait
    (deck.md §10.2): none of their shares is multiplied here."""
    bus = shuffled(b"cost")
    made = own_messages(bus)
    honest = bus.peers[0]
    with counting() as ops:
        ops.current = 0
        honest.receive(made[1])
        honest.receive(made[2])
    senders, own_cards = 2, len(BATCH) // SEATS
    assert ops.of(0)["mul"] == senders * (1 + own_cards + 1) + own_cards + own_cards, ops.of(0)
    assert ops.of(0)["mul"] < senders * (2 * own_cards + 1) + own_cards
    assert sorted(honest.state.unproven) == [1, 2], "the proofs of seats 1's and 2's cards wait"
