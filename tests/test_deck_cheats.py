"""Every cheat is caught, and blamed on the right seat with signed evidence."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

import pytest
from deck_local import Ed25519Codec, LocalBus, deal, kind_of, make_codecs, make_table, rewrite
from druids_p2p.deck.messages import ShuffleMsg
from druids_p2p.deck.peer import random_scalar
from druids_p2p.deck.share_book import batch_index

from druids_p2p.deck import (
    DeckFault,
    DeckParams,
    MalformedMessage,
    audit_transcript,
    group,
)
from druids_p2p.deck.cards import card_points
from druids_p2p.deck.elgamal import Deck, rerandomize
from druids_p2p.deck.params import SHUFFLE_PASS
from druids_p2p.deck.shuffle import shuffle_step

HAND = {3: 15, 4: 14, 5: 13}
Intercept = Callable[[int, bytes], bytes | None]
# A decoded message body: msgpack fields of many shapes, rewritten in place by each cheat.
Body = dict[str, Any]


class Table:
    def __init__(self, players: int) -> None:
        self.params = DeckParams(b"C" * 32, 3, 65, players, HAND[players], frozenset({60}))
        self.codecs = make_codecs(self.params)
        self.peers = make_table(self.params, codecs=self.codecs)
        self.bus = LocalBus(self.peers)

    def kind(self, raw: bytes) -> str:
        return kind_of(self.codecs[0], raw)

    def deal(self, intercept: Intercept | None = None) -> None:
        self.bus.start()
        self.bus.run(intercept)

    def send(self, seat: int, raw: bytes) -> None:
        self.bus.post(seat, [raw])
        self.bus.run()

    def reveal_all(self, intercept: Intercept | None = None) -> None:
        for p in self.peers:
            self.bus.post(p.seat, [p.reveal()])
        self.bus.run(intercept)


def only(seat: int, kind: str, table: Table, mutate: Callable[[Body], None]) -> Intercept:
    """Rewrite (and re-sign) the first message of ``kind`` from ``seat``."""
    done = False

    def intercept(sender: int, raw: bytes) -> bytes:
        nonlocal done
        if not done and sender == seat and table.kind(raw) == kind:
            done = True
            return rewrite(table.codecs[seat], raw, mutate)
        return raw

    return intercept


def random_point() -> bytes:
    return group.base_mul(random_scalar(os.urandom))


def assert_evidence(fault: DeckFault, codec: Ed25519Codec, seat: int) -> None:
    """evidence[0] is signed by the culprit; the rest authenticate too (they give context)."""
    assert fault.evidence, "a fault must carry the signed message(s) that prove it"
    assert codec.open(fault.evidence[0]).seat == seat
    for raw in fault.evidence[1:]:
        codec.open(raw)


# ------------------------------------------------------------------------------ decryption shares
def test_wrong_decryption_share_is_blamed_by_its_recipient_at_once() -> None:
    t = Table(4)

    def mutate(body: Body) -> None:
        body["batches"][batch_index(1, 2)]["d"][3] = random_point()

    with pytest.raises(DeckFault) as exc:
        t.deal(only(1, "deck_shares", t, mutate))
    assert exc.value.seat == 1
    assert "seat 2" in exc.value.reason
    assert_evidence(exc.value, t.codecs[0], 1)


def test_wrong_share_accepted_by_a_colluding_recipient_is_blamed_at_audit() -> None:
    t = Table(3)
    t.deal()
    t.reveal_all()
    honest = list(t.peers[0].transcript())
    shares_raw = next(
        r for r in honest if t.kind(r) == "deck_shares" and t.codecs[0].open(r).seat == 1
    )

    def mutate(body: Body) -> None:
        body["batches"][0]["d"][0] = random_point()

    forged = [rewrite(t.codecs[1], r, mutate) if r == shares_raw else r for r in honest]
    with pytest.raises(DeckFault) as exc:
        audit_transcript(t.params, forged, t.codecs[0])
    assert exc.value.seat == 1 and "wrong decryption share" in exc.value.reason
    assert_evidence(exc.value, t.codecs[0], 1)


# ------------------------------------------------------------------------------ shuffles
def _cheating_shuffle(t: Table, seat: int, mutate: Callable[[Body], None]) -> DeckFault:
    """Deal with ``seat`` tampering with its shuffle (re-signed, so only the shuffle is wrong):
    the first peer to check it refuses it and blames the shuffler, before anybody has sent a
    salt or a share (deck.md §6.3: nothing is built on an unproven shuffle)."""
    with pytest.raises(DeckFault) as exc:
        t.deal(only(seat, "deck_shuffle", t, mutate))
    fault = exc.value
    assert fault.seat == seat
    assert "invalid proof of a shuffle" in fault.reason
    assert_evidence(fault, t.codecs[0], seat)
    assert t.kind(fault.evidence[0]) == "deck_shuffle"
    assert not any(p.log.salts or p.log.shares for p in t.peers)
    return fault


def _fresh(t: Table, card: int) -> tuple[bytes, bytes]:
    """A fresh encryption of ``card`` under the joint key, with randomness of the cheater's own."""
    joint = t.peers[0].joint_key
    assert joint is not None
    r = random_scalar(os.urandom)
    point = card_points(65)[card]
    return group.base_mul(r), group.add(point, group.mul(r, joint))


def test_shuffle_that_duplicates_a_card_is_refused_at_the_shuffle_step() -> None:
    t = Table(5)  # one pass: every ciphertext reaches the final deck

    def mutate(body: Body) -> None:
        joint = t.peers[1].joint_key
        assert joint is not None
        a, c = rerandomize(body["a"][0], body["c"][0], random_scalar(os.urandom), joint)
        body["a"][7], body["c"][7] = a, c

    _cheating_shuffle(t, 1, mutate)


def test_shuffle_that_replaces_a_card_by_garbage_is_refused() -> None:
    t = Table(3)

    def mutate(body: Body) -> None:
        body["c"][2] = group.add(body["c"][2], random_point())

    _cheating_shuffle(t, 1, mutate)


def test_shuffle_that_substitutes_a_card_of_its_choice_is_refused() -> None:
    """Drop one card and put a fresh encryption of another (here: a second Gaia) in its place."""
    t = Table(4)

    def mutate(body: Body) -> None:
        body["a"][5], body["c"][5] = _fresh(t, 60)

    _cheating_shuffle(t, 2, mutate)


def test_shuffle_with_a_tagged_ciphertext_is_refused() -> None:
    """(k·A, k·C) decrypts to k·M: a tag its author could later recognise. Not a re-encryption."""
    t = Table(3)
    k = random_scalar(os.urandom)

    def mutate(body: Body) -> None:
        body["a"][0], body["c"][0] = group.mul(k, body["a"][0]), group.mul(k, body["c"][0])

    _cheating_shuffle(t, 0, mutate)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_forged_last_shuffle_of_chosen_cards_is_refused(players: int) -> None:
    """Issue 12's attack: the last shuffler publishes fresh encryptions of cards and randomness
    of its own choosing, so that it would know every hand once the salts are in. Its proof,
    even an honest proof of some other shuffle, cannot cover them: refused and blamed before
    any salt or share is sent, by the peers that received it."""
    t = Table(players)
    last = players - 1

    def mutate(body: Body) -> None:
        size = len(body["a"])
        fresh = [_fresh(t, card) for card in range(size)]
        body["a"] = [a for a, _ in fresh]
        body["c"] = [c for _, c in fresh]

    done = False

    def intercept(sender: int, raw: bytes) -> bytes:
        nonlocal done
        if not done and sender == last and t.kind(raw) == "deck_shuffle":
            done = True
            return rewrite(t.codecs[last], raw, mutate)
        return raw

    with pytest.raises(DeckFault) as exc:
        t.deal(intercept)
    assert done and exc.value.seat == last
    assert "invalid proof of a shuffle" in exc.value.reason
    assert_evidence(exc.value, t.codecs[0], last)
    assert not any(p.log.salts or p.log.shares for p in t.peers if p.seat != last)


def test_shuffle_with_the_wrong_length_is_blamed_on_receipt() -> None:
    t = Table(3)

    def mutate(body: Body) -> None:
        del body["a"][-1], body["c"][-1]
        for key in ("c", "ch", "sh", "sp", "th"):  # the proof's vectors, consistently
            del body["proof"][key][-1]

    with pytest.raises(DeckFault) as exc:
        t.deal(only(0, "deck_shuffle", t, mutate))
    assert exc.value.seat == 0 and "ciphertexts, expected" in exc.value.reason


# ------------------------------------------------------------------------------ keys and reveals
def test_key_with_a_bad_proof_is_blamed() -> None:
    t = Table(4)

    def mutate(body: Body) -> None:
        body["s"] = random_scalar(os.urandom)

    with pytest.raises(DeckFault) as exc:
        t.deal(only(3, "deck_key", t, mutate))
    assert exc.value.seat == 3 and "proof of knowledge" in exc.value.reason
    assert_evidence(exc.value, t.codecs[0], 3)


def test_key_chosen_after_the_commitment_is_blamed() -> None:
    t = Table(3)

    def mutate(body: Body) -> None:
        body["key"] = random_point()

    with pytest.raises(DeckFault) as exc:
        t.deal(only(2, "deck_key", t, mutate))
    assert exc.value.seat == 2 and "does not match its commitment" in exc.value.reason
    assert len(exc.value.evidence) == 2


@pytest.mark.parametrize(
    ("field", "reason"),
    [("seed", "seed does not match its commitment"), ("x", "secret does not match")],
)
def test_revealed_secret_that_does_not_match_is_blamed(field: str, reason: str) -> None:
    t = Table(3)
    t.deal()

    def mutate(body: Body) -> None:
        body[field] = random_scalar(os.urandom)

    with pytest.raises(DeckFault) as exc:
        t.reveal_all(only(2, "deck_reveal", t, mutate))
    assert exc.value.seat == 2 and reason in exc.value.reason
    assert_evidence(exc.value, t.codecs[0], 2)


def test_equivocation_is_blamed_with_both_messages() -> None:
    t = Table(3)
    t.bus.start()
    first = next(raw for s, raw in t.bus.queue if s == 0)
    second = rewrite(t.codecs[0], first, lambda b: b.__setitem__("commit", os.urandom(32)))
    t.bus.run()
    with pytest.raises(DeckFault) as exc:
        t.peers[1].receive(second)
    assert exc.value.seat == 0 and "equivocation" in exc.value.reason
    assert exc.value.evidence == (first, second)


# ------------------------------------------------------------------------------ opening cards
def _open_body(t: Table, seat: int, position: int, card: int) -> bytes:
    body = {
        "card": card,
        "d": random_point(),
        "e": random_scalar(os.urandom),
        "pos": position,
        "round": t.params.round_no,
        "s": random_scalar(os.urandom),
    }
    return t.codecs[seat].seal("deck_open", body)


def test_opening_a_card_dealt_to_someone_else_is_blamed() -> None:
    t = Table(4)
    t.deal()
    victim = t.peers[0].positions(2)[0]
    with pytest.raises(DeckFault) as exc:
        t.send(1, _open_body(t, 1, victim, 0))
    assert exc.value.seat == 1 and "dealt to seat 2" in exc.value.reason
    assert_evidence(exc.value, t.codecs[0], 1)


def test_opening_a_card_twice_is_blamed() -> None:
    t = Table(3)
    t.deal()
    cheat = t.peers[1]
    card = cheat.hand()[0]
    first = cheat.open_card(card)
    t.send(1, first)
    with pytest.raises(ValueError):
        cheat.open_card(card)  # an honest peer refuses to
    again = rewrite(t.codecs[1], first, lambda b: b.__setitem__("s", random_scalar(os.urandom)))
    with pytest.raises(DeckFault) as exc:
        t.send(1, again)
    assert exc.value.seat == 1 and "twice" in exc.value.reason
    assert exc.value.evidence == (first, again)


def test_opening_with_a_wrong_share_or_claim_is_blamed() -> None:
    t = Table(3)
    t.deal()
    cheat = t.peers[0]
    hand = cheat.hand()
    honest = cheat.open_card(hand[0])
    wrong_card = rewrite(t.codecs[0], honest, lambda b: b.__setitem__("card", hand[1]))
    with pytest.raises(DeckFault) as exc:
        t.peers[1].receive(wrong_card)
    assert exc.value.seat == 0 and "claimed card" in exc.value.reason
    wrong_share = rewrite(t.codecs[0], honest, lambda b: b.__setitem__("d", random_point()))
    with pytest.raises(DeckFault) as exc:
        t.peers[2].receive(wrong_share)
    assert exc.value.seat == 0 and "proof" in exc.value.reason


# ------------------------------------------------------------------------------ bad bytes
def test_unauthenticated_bytes_are_rejected_without_blame() -> None:
    t = Table(3)
    t.bus.start()
    raw = t.bus.queue[0][1]
    with pytest.raises(MalformedMessage):
        t.peers[1].receive(raw[:-1] + bytes([raw[-1] ^ 1]))
    stranger = make_codecs(t.params)[0]  # a key that holds no seat here
    with pytest.raises(MalformedMessage):
        t.peers[1].receive(stranger.seal("deck_commit", {"commit": bytes(32)}))
    other_round = DeckParams(b"C" * 32, 4, 65, 3, 15, frozenset({60}))
    replay = Ed25519Codec(other_round, 0, t.codecs[0]._private, t.codecs[0].public_keys)
    with pytest.raises(MalformedMessage):
        t.peers[1].receive(replay.seal("deck_commit", {"commit": bytes(32)}))


def test_signed_garbage_body_is_blamed_on_its_signer() -> None:
    t = Table(3)
    with pytest.raises(DeckFault) as exc:
        t.peers[1].receive(t.codecs[2].seal("deck_key", {"key": b"nope"}))
    assert exc.value.seat == 2 and "malformed" in exc.value.reason


def test_a_body_from_another_round_is_dropped_not_blamed() -> None:
    t = Table(3)
    t.bus.start()
    first = t.bus.queue[0][1]
    stale = rewrite(t.codecs[0], first, lambda b: b.__setitem__("round", 2))
    with pytest.raises(MalformedMessage):
        t.peers[1].receive(stale)


def test_last_shuffler_copying_a_ciphertext_is_refused_before_the_assignment() -> None:
    """deck.md 11.3 used to accept that the last shuffler could plant a re-randomised copy of
    one final ciphertext at another position (a card read with probability h/k, convicted only
    at the audit). With proofs of a shuffle the copy is refused on arrival: no salt is sent,
    so no assignment and no share exists that could help it read anything."""
    t = Table(5)
    last = t.params.seats - 1
    cheater = t.peers[last]
    honest_shuffle = cheater._chain.shuffle

    def cheating_shuffle(deck: Deck, joint_key: bytes) -> ShuffleMsg:
        msg = honest_shuffle(deck, joint_key)
        a, c = list(msg.a), list(msg.c)
        a[1], c[1] = rerandomize(a[0], c[0], random_scalar(os.urandom), joint_key)
        return dataclasses.replace(msg, a=tuple(a), c=tuple(c))

    cheater._chain.shuffle = cheating_shuffle  # type: ignore[method-assign]
    with pytest.raises(DeckFault) as exc:
        t.deal()
    assert exc.value.seat == last and "invalid proof of a shuffle" in exc.value.reason
    assert_evidence(exc.value, t.codecs[0], last)
    assert all(p.assignment is None for p in t.peers if p.seat != last)
    assert not any(p.log.shares for p in t.peers if p.seat != last)


def test_a_salt_that_does_not_match_its_hash_is_blamed() -> None:
    t = Table(3)
    with pytest.raises(DeckFault) as exc:
        t.deal(only(1, "deck_salt", t, lambda b: b.__setitem__("salt", bytes(32))))
    fault = exc.value
    assert fault.seat == 1 and "salt does not match" in fault.reason
    assert_evidence(fault, t.codecs[0], 1)
    assert t.kind(fault.evidence[0]) == "deck_salt" and t.kind(fault.evidence[1]) == "deck_key"
    # the honest seat that caught it never learnt an assignment from the bad salt
    assert not any(p.log.shares for p in t.peers if p.seat != 1)


@pytest.mark.parametrize("cheater", [0, 2])
def test_a_proven_shuffle_from_another_seed_is_blamed_by_every_live_audit(cheater: int) -> None:
    """Its proof holds (it is a real shuffle) but not from the committed seed: the audit that a
    live peer runs (proofs checked on arrival, so it recomputes the outputs only) names it."""
    params = DeckParams(b"S" * 32, 0, 65, 4, 14, frozenset({60}))
    peers = make_table(params)
    other_seed = os.urandom(32)

    def shuffle_from_other_seed(deck: Deck, key: bytes) -> ShuffleMsg:
        out, proof = shuffle_step(params, cheater, SHUFFLE_PASS, other_seed, deck, key)
        return ShuffleMsg(params.round_no, pass_no=SHUFFLE_PASS, a=out.a, c=out.c, proof=proof)

    peers[cheater]._chain.shuffle = shuffle_from_other_seed  # type: ignore[method-assign, assignment]
    bus = deal(peers)
    assert all(p.deal_complete for p in peers)
    for p in peers:
        bus.post(p.seat, [p.reveal()])
    bus.run()
    for p in peers:
        if p.seat == cheater:
            continue
        with pytest.raises(DeckFault) as exc:
            p.audit()
        assert exc.value.seat == cheater
        assert "does not match its recomputation" in exc.value.reason
