"""A ``table_shares`` carries one composite Chaum-Pedersen proof a seat it deals to (deck.md
§8.3): its sender's shares of that seat's cards all use the one secret of its key, proven at
once on a random linear combination whose coefficients hash the whole statement (the batched DLEQ
of Henry and Goldberg, "Privacy Pass", Davidson et al. 2018, §3.2). Real TablePeer objects in
process: one wrong share among many, a proof from another operation, round, position set or
sender, or over a subset of the shares, is refused by the seat whose cards it proves and blamed
on the signer with its signed message and its key as evidence; which share is wrong is not
needed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from deck_local import rewrite
from table_local import GAME, TABLE_ID, TableBus, make_table

from druids_p2p.deck import group
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.proofs import prove_shares, verify_shares
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_state import context_params

NUM_CARDS = 16
CARDS = tuple(range(12))
SEATS = 3
BATCH = (0, 1, 2) * 3
"""Nine cards round-robin: seat 1 owes its shares of the six positions dealt to seats 0 and 2."""
CHEAT = 1
OWED = [0, 2, 3, 5, 6, 8]
REASON = "table_shares: invalid decryption share proof (one proof for a seat's cards)"


def shuffled(seed: bytes) -> TableBus:
    bus = make_table(SEATS, NUM_CARDS, seed)
    bus.push(TableOp("shuffle", deck="d", cards=CARDS))
    return bus


def reproved(
    bus: TableBus,
    body: dict[str, Any],
    *,
    op: int = 1,
    round_no: int = GAME,
    seat: int = CHEAT,
    shift: int = 0,
    keep: slice = slice(None),
) -> None:
    """The cheater re-makes the body's composite proofs (one a seat it deals to) with its true
    secret, each over the shares now in ``body`` of that seat's cards (or the ``keep`` slice of
    them), for operation ``op`` of round ``round_no``, as ``seat``, of those positions each
    shifted by ``shift``."""
    peer = bus.peers[CHEAT]
    state = peer.state
    params = context_params(TABLE_ID, round_no, SEATS, b"share", "d", op)
    for proof in body["proofs"]:
        mine = [
            part for part in body["shares"] if state.positions[part["pos"]].owner == proof["seat"]
        ]
        parts = mine[keep]
        listed = [part["pos"] + shift for part in parts]
        a_list = [state.positions[part["pos"]].a for part in parts]
        d_list = [part["d"] for part in parts]
        e, s, t2 = prove_shares(params, seat, peer._secret, peer._key, listed, a_list, d_list)
        proof |= {"e": e, "s": s, "t2": t2}


def tamper_next_shares(bus: TableBus, mutate: Callable[[dict[str, Any]], None]) -> None:
    """Seat 1's next ``table_shares`` is edited by ``mutate`` and re-signed by seat 1."""
    done = False

    def intercept(sender: int, raw: bytes) -> bytes | None:
        nonlocal done
        if done or sender != CHEAT or bus.kind(raw) != "table_shares":
            return raw
        done = True
        return rewrite(bus.codecs[CHEAT], raw, mutate)

    bus.intercept = intercept


def refused(bus: TableBus, mutate: Callable[[dict[str, Any]], None]) -> DeckFault:
    """Seat 1's ``table_shares`` of the deals ``BATCH``, edited and re-signed by seat 1, is
    refused by the honest seats, blaming seat 1 with the message and its key."""
    tamper_next_shares(bus, mutate)
    with pytest.raises(DeckFault) as info:
        bus.push(TableOp("deals", deck="d", seats=BATCH))
    fault = info.value
    assert fault.seat == CHEAT, fault
    signed = bus.codecs[0].open(fault.evidence[0])
    assert signed.seat == CHEAT and signed.kind == "table_shares" and signed.body["op"] == 1
    assert fault.evidence[1:] == (bus.peers[0].state.keys[CHEAT].raw,)
    assert fault.reason == REASON
    return fault


def test_an_honest_table_shares_is_one_proof_over_every_owed_share() -> None:
    bus = shuffled(b"one")
    before = len(bus.sent)
    bus.push(TableOp("deals", deck="d", seats=BATCH))
    for seat, (_, raw) in enumerate(bus.sent[before:]):
        body = bus.codecs[0].open(raw).body
        assert sorted(body) == ["op", "proofs", "round", "shares"]
        assert [pr["seat"] for pr in body["proofs"]] == [s for s in range(SEATS) if s != seat]
        assert all(sorted(part) == ["d", "pos"] for part in body["shares"])
        assert [part["pos"] for part in body["shares"]] == [
            p for p in range(len(BATCH)) if p % SEATS != seat
        ]


def test_one_wrong_share_among_many_blames_the_sender_even_with_a_proof_made_for_it() -> None:
    """Seat 1 puts (x+1)·A for one of its six shares and proves the whole list with its secret:
    its challenge holds, but the combination is false, so the deals' batch fails, and seat 1's
    proof alone: seat 1 is blamed once the deals' last ``table_shares`` is in."""
    bus = shuffled(b"wrong")
    state = bus.peers[CHEAT].state

    def lie(body: dict[str, Any]) -> None:
        part = body["shares"][3]
        a = state.positions[part["pos"]].a
        part["d"] = group.add(part["d"], a)
        reproved(bus, body)

    refused(bus, lie)


def test_one_share_changed_under_the_honest_proof_blames_the_sender() -> None:
    bus = shuffled(b"swap")
    state = bus.peers[CHEAT].state

    def swap(body: dict[str, Any]) -> None:
        body["shares"][5]["d"] = state.positions[body["shares"][5]["pos"]].a

    refused(bus, swap)


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("another operation", {"op": 2}),
        ("another round", {"round_no": GAME + 1}),
        ("another sender", {"seat": 2}),
        ("another position set", {"shift": 1}),
    ],
)
def test_a_proof_made_for_another_context_is_refused(name: str, where: dict[str, Any]) -> None:
    """The same true shares, proven by the true secret, but bound to another operation, round,
    sender or list of positions: the statement differs, so the proof fails."""
    bus = shuffled(b"replay")
    refused(bus, lambda body: reproved(bus, body, **where))


def test_a_proof_over_a_subset_of_the_shares_is_refused() -> None:
    """True proofs of the first two of each seat's three shares only, sent with all six."""
    bus = shuffled(b"subset")
    refused(bus, lambda body: reproved(bus, body, keep=slice(0, 2)))


def test_a_proof_replayed_from_an_earlier_deals_is_refused() -> None:
    """Seat 1's true proof of its shares at the first deals, put on its shares of the second."""
    bus = shuffled(b"again")
    before = len(bus.sent)
    bus.push(TableOp("deals", deck="d", seats=(0, 1, 2)))
    (old,) = [raw for sender, raw in bus.sent[before:] if sender == CHEAT]
    first = bus.codecs[0].open(old).body

    def replay(body: dict[str, Any]) -> None:
        body["proofs"] = first["proofs"]  # one for seat 0's card, one for seat 2's

    tamper_next_shares(bus, replay)
    with pytest.raises(DeckFault) as info:
        bus.push(TableOp("deals", deck="d", seats=(0, 1, 2)))
    assert info.value.seat == CHEAT and info.value.reason == REASON


def test_the_proof_holds_only_for_its_exact_statement() -> None:
    """The primitive alone: true shares verify; a subset, a reordering, another seat or
    position list, and a zero challenge or response do not."""
    bus = shuffled(b"prim")
    bus.push(TableOp("deals", deck="d", seats=BATCH))
    peer, state = bus.peers[CHEAT], bus.peers[CHEAT].state
    params = context_params(TABLE_ID, GAME, SEATS, b"share", "d", 1)
    a_list = [state.positions[p].a for p in OWED]
    d_list = [group.mul(peer._secret, a) for a in a_list]
    proof = prove_shares(params, CHEAT, peer._secret, peer._key, OWED, a_list, d_list)
    key = peer._key
    assert verify_shares(params, CHEAT, key, OWED, a_list, d_list, proof)
    assert proof == prove_shares(params, CHEAT, peer._secret, key, OWED, a_list, d_list)
    assert not verify_shares(params, CHEAT, key, OWED[:-1], a_list[:-1], d_list[:-1], proof)
    assert not verify_shares(params, CHEAT, key, OWED[::-1], a_list[::-1], d_list[::-1], proof)
    assert not verify_shares(params, 2, key, OWED, a_list, d_list, proof)
    assert not verify_shares(params, CHEAT, key, OWED, a_list, d_list[:-1], proof)
    assert not verify_shares(params, CHEAT, key, [], [], [], proof)
    zero = bytes(32)
    e, s, t2 = proof
    assert not verify_shares(params, CHEAT, key, OWED, a_list, d_list, (zero, s, t2))
    assert not verify_shares(params, CHEAT, key, OWED, a_list, d_list, (e, zero, t2))
    other = group.add(t2, group.BASE)  # T2 is bound by the challenge and by its equation
    assert not verify_shares(params, CHEAT, key, OWED, a_list, d_list, (e, s, other))
