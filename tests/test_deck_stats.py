"""Uniformity of the deal: the permutation every shuffle pass uses, and a Druids (2017) round's
deal at the card table (``games/druids2017/game.round_ops``: ``deck`` and ``lead``
shuffled, seats-1 cards transferred onto ``lead``, ``lead`` reshuffled and dealt one to each seat,
``deck`` dealt round-robin) — on card ids with the passes' own permutations, and through real
encrypted deals.

Seeds are fixed, so these tests are deterministic; the thresholds are chi-square quantiles at
p = 1e-4 (Wilson-Hilferty), and a deliberately biased shuffle is shown to fail the same test so
that passing means something.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from table_local import dealt_round

from druids_p2p.deck import DeckParams
from druids_p2p.deck import table_peer as table_peer_module
from druids_p2p.deck.shuffle import (
    ByteStream,
    derive_permutation,
    fisher_yates,
    shuffle_output,
    uniform_below,
)
from druids_p2p.deck.table_state import TableState
from druids_p2p.games.druids2017.cards import GAIA, HAND_SIZE, N_CARDS
from druids_p2p.games.druids2017.game import LEAD, OTHERS, round_ops

Perm = Callable[[int, int, int, int], list[int]]
"""(operation index, seat, pass, size) -> that seat's pass over the deck: output t is input
perm[t] (``deck/shuffle.derive_permutation``)."""


def chi2_critical(df: int, z: float = 3.719) -> float:
    """Upper quantile of chi-square(df) at the normal quantile z (z = 3.719: p = 1e-4)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def chi2(counts: list[int], expected: list[float]) -> float:
    return sum((o - e) ** 2 / e for o, e in zip(counts, expected, strict=True))


def seed_of(*parts: int) -> bytes:
    return hashlib.sha256(b"stats" + b"".join(p.to_bytes(4, "big") for p in parts)).digest()


def druids(players: int) -> DeckParams:
    return DeckParams(b"S" * 32, 1, N_CARDS, players, HAND_SIZE[players], frozenset({GAIA}))


def plain_round(players: int, perm: Perm) -> list[list[int]]:
    """A round's deal on card ids, operation by operation as the card table does it (every
    seat's pass of a shuffle in seat order, a created deck as listed, a transfer from the top of
    one deck to the bottom of another, a deal from the top): each seat's cards in the order
    dealt."""
    decks: dict[str, list[int]] = {}
    passes: Counter[str] = Counter()
    hands: list[list[int]] = [[] for _ in range(players)]
    for index, op in enumerate(round_ops(players)):
        if op.kind == "shuffle":
            cards = decks.setdefault(op.deck, list(op.cards))
            passes[op.deck] += 1
            for seat in range(players):
                order = perm(index, seat, passes[op.deck], len(cards))
                cards[:] = [cards[order[t]] for t in range(len(cards))]
        elif op.kind == "create":  # public, as listed: nobody passes
            decks[op.deck] = list(op.cards)
        elif op.kind == "transfer":
            decks[op.deck].append(decks[op.source].pop(0))
        elif op.kind == "deals":  # the top cards in order, the i-th to seats[i]
            for seat in op.seats:
                hands[seat].append(decks[op.deck].pop(0))
        else:  # pragma: no cover - a round's deal is shuffles, transfers and deals
            raise AssertionError(op.kind)
    return hands


def sattolo(seed: bytes, size: int) -> list[int]:
    """Sattolo's variant of Fisher-Yates (j < i): a cyclic permutation, never a card in place."""
    stream = ByteStream(b"biased", seed)
    perm = list(range(size))
    for k in range(size - 1, 0, -1):
        j = uniform_below(stream, k)
        perm[k], perm[j] = perm[j], perm[k]
    return perm


# ------------------------------------------------------------------------ the permutation itself
def test_small_permutations_are_exactly_uniform() -> None:
    params = druids(3)
    counts = Counter(
        tuple(derive_permutation(params, 0, 1, seed_of(i), 4)) for i in range(24 * 400)
    )
    assert len(counts) == 24
    assert chi2(list(counts.values()), [400.0] * 24) < chi2_critical(23)


def test_positions_of_a_65_card_shuffle_are_uniform() -> None:
    params = druids(5)
    runs = 65 * 60
    grid = [[0] * 65 for _ in range(65)]
    for i in range(runs):
        for pos, card in enumerate(derive_permutation(params, 2, 1, seed_of(7, i), 65)):
            grid[card][pos] += 1
    flat = [c for row in grid for c in row]
    assert chi2(flat, [runs / 65] * len(flat)) < chi2_critical(64 * 64)


def test_the_statistic_rejects_a_biased_shuffle() -> None:
    """Sattolo's variant (j < i) never leaves a card in place: the same test must catch it."""
    runs = 65 * 60
    grid = [[0] * 65 for _ in range(65)]
    for i in range(runs):
        for pos, card in enumerate(sattolo(seed_of(9, i), 65)):
            grid[card][pos] += 1
    flat = [c for row in grid for c in row]
    assert chi2(flat, [runs / 65] * len(flat)) > chi2_critical(64 * 64)


def test_uniform_below_has_no_modulo_bias() -> None:
    stream = ByteStream(b"bias", b"x")
    counts = Counter(uniform_below(stream, 3) for _ in range(30_000))
    assert chi2([counts[v] for v in range(3)], [10_000.0] * 3) < chi2_critical(2)
    assert fisher_yates(ByteStream(b"one", b""), 1) == [0]


# ------------------------------------------------------------------------ a round's deal
def passes(players: int, run: int, honest: str, biased_lead: bool = False) -> Perm:
    """Every seat's passes in deal ``run``. ``honest == "one"``: every seat but one (a different
    one each run) makes the same passes in every deal, as cheaters who fix their permutations
    would; ``biased_lead``: the honest seat reshuffles ``lead`` with Sattolo's biased variant."""
    params = druids(players)
    good = run % players

    def perm(index: int, seat: int, pass_no: int, size: int) -> list[int]:
        if honest == "one" and seat != good:
            return derive_permutation(params, seat, pass_no, bytes([seat]) * 32, size)
        if biased_lead and round_ops(players)[index].deck == LEAD:  # lead's only shuffle
            return sattolo(seed_of(players, run, index, seat), size)
        return derive_permutation(params, seat, pass_no, seed_of(players, run, index, seat), size)

    return perm


def gaia_seat(hands: list[list[int]]) -> int:
    """Gaia's holder: the seat whose ``lead`` card (the first dealt to it) it is."""
    (seat,) = [s for s, hand in enumerate(hands) if hand[0] == GAIA]
    assert all(GAIA not in hand[1:] for hand in hands)
    return seat


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("honest", ["all", "one"])
def test_gaias_seat_and_every_other_cards_place_are_uniform(players: int, honest: str) -> None:
    """With one honest seat among fixed-permutation cheaters, the round is still dealt
    uniformly: Gaia lies at each seat equally often, and each of the 64 other cards is at each
    seat, or out of the round, as often as h - 1/n cards of a seat's h and the undealt rest
    say (every card of a 5-seat round is dealt)."""
    h = HAND_SIZE[players]
    runs = 3000
    seats: Counter[int] = Counter()
    where = {c: Counter[int]() for c in OTHERS}
    out = players  # the column of "not dealt this round"
    for i in range(runs):
        hands = plain_round(players, passes(players, i, honest))
        assert [len(hand) for hand in hands] == [h] * players
        dealt = [c for hand in hands for c in hand]
        assert len(set(dealt)) == len(dealt) == players * h
        seats[gaia_seat(hands)] += 1
        for s, hand in enumerate(hands):
            for card in hand:
                if card != GAIA:
                    where[card][s] += 1
        for card in set(OTHERS) - set(dealt):
            where[card][out] += 1
    assert chi2([seats[s] for s in range(players)], [runs / players] * players) < chi2_critical(
        players - 1
    )
    at_seat = (h - 1 / players) / len(OTHERS)
    columns = [(s, at_seat) for s in range(players)]
    undealt = 1 - players * at_seat
    if undealt > 1e-9:
        columns.append((out, undealt))
    else:
        assert all(where[c][out] == 0 for c in OTHERS)
    counts = [where[c][k] for c in OTHERS for k, _ in columns]
    expected = [runs * p for _ in OTHERS for _, p in columns]
    assert chi2(counts, expected) < chi2_critical(len(OTHERS) * (len(columns) - 1))


@pytest.mark.parametrize("players", [3, 5])
def test_the_statistic_rejects_a_biased_lead_shuffle(players: int) -> None:
    """The honest seat reshuffles ``lead`` with Sattolo's variant (never a card in place) and
    the others fix their passes: Gaia's seat is no longer uniform, and the same test says so."""
    runs = 3000
    seats = Counter(
        gaia_seat(plain_round(players, passes(players, i, "one", biased_lead=True)))
        for i in range(runs)
    )
    assert chi2([seats[s] for s in range(players)], [runs / players] * players) > chi2_critical(
        players - 1
    )


@pytest.mark.slow
def test_encrypted_deals_follow_the_plain_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Real card-table deals (seeded entropy) deal exactly what the plain model says for the
    permutations their passes derived: each seat's hand, Gaia's holder included. So the model's
    uniformity above is the real deal's."""
    made: dict[tuple[bytes, int, int], list[int]] = {}

    def recording(params: DeckParams, seat: int, pass_no: int, seed: bytes, *rest: Any) -> Any:
        made[(params.table_id, seat, pass_no)] = derive_permutation(
            params, seat, pass_no, seed, len(rest[0])
        )
        return shuffle_output(params, seat, pass_no, seed, *rest)

    monkeypatch.setattr(table_peer_module, "shuffle_output", recording)
    holders: Counter[int] = Counter()
    for i in range(6):
        players = 3 + i % 3
        made.clear()
        bus = dealt_round(players, b"stats %d" % i, round_no=i)
        state = bus.peers[0].state

        def perm(
            index: int, seat: int, pass_no: int, size: int, state: TableState = state
        ) -> list[int]:
            context = state.context(b"shuffle", state.ops[index].deck, index)
            order = made[(context.table_id, seat, pass_no)]
            assert len(order) == size
            return order

        hands = plain_round(players, perm)
        assert [[peer.card_at(p) for p in peer.hand()] for peer in bus.peers] == hands
        holders[gaia_seat(hands)] += 1
    assert sum(holders.values()) == 6


def test_a_round_deal_counts_every_message() -> None:
    """Each seat's key, every seat's pass of the two shuffles (``deck``; ``lead``, created as
    Gaia, once the transfers are on it), and for each of the two
    ``deals`` (``lead``, then ``deck``) one ``table_shares`` from every seat, carrying its share
    of every card dealt to another seat: nothing else."""
    players = 3
    bus = dealt_round(players)
    kinds = Counter(bus.kind(raw) for _, raw in bus.sent)
    dealt = players * HAND_SIZE[players]
    assert kinds == {
        "table_key": players,
        "table_shuffle": 2 * players,
        "table_shares": 2 * players,
    }
    state = bus.peers[0].state
    carried = sum(len(pos.shares) for pos in state.positions)
    assert carried == dealt * (players - 1), "a share of each card from every seat but its own"
