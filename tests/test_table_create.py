"""The card table's ``create`` operation (protocol version 2): a deck of publicly known cards,
made by every seat alike from the schedule, with no message and no pass. What it must never
allow: a message for it (nobody owes one), a draw from it before a shuffle (where each card lies
is public), a seat building on other cards than the schedule lists (its next pass is refused),
or a card made twice. And what it is for: a Druids (2017) round deals with two shuffles, not
three (deck.md §14.2)."""

from __future__ import annotations

import pytest
from table_local import CARDS, TableBus, dealt_round, make_table

from druids_p2p.deck import group
from druids_p2p.deck.cards import card_points
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_state import TableOpError
from druids_p2p.games.druids2017.game import LEAD, round_ops

NUM_CARDS = 16
GAIA_HERE = 10
"""The card the small lead deck is created with (not among CARDS)."""


def test_a_created_deck_is_the_public_encryption_of_its_cards_and_costs_no_message() -> None:
    bus = make_table(3, NUM_CARDS, b"create")
    sent = len(bus.sent)
    bus.push(TableOp("create", deck=LEAD, cards=(GAIA_HERE, 11)))
    assert len(bus.sent) == sent, "nobody sends anything for a create"
    joint = bus.peers[0].state.joint_key
    assert joint is not None
    points = card_points(NUM_CARDS)
    for peer in bus.peers:
        state = peer.state
        lead = state.decks[LEAD]
        assert lead.a == [group.BASE, group.BASE]
        assert lead.c == [group.add(points[GAIA_HERE], joint), group.add(points[11], joint)]
        assert lead.unshuffled_returns and lead.shuffles == 0 and lead.source_raws == ()
        assert state.done == 1 and {GAIA_HERE, 11} <= state.created
    assert len({p.state.digest() for p in bus.peers}) == 1


def test_a_draw_from_a_created_deck_before_any_shuffle_is_refused() -> None:
    """Every card's place in a created deck is public: a deal from it would deal a known card."""
    for draw in (
        TableOp("deal", deck=LEAD, seat=0),
        TableOp("turn", deck=LEAD, zone="up"),
        TableOp("deals", deck=LEAD, seats=(0, 1)),
    ):
        bus = make_table(2, NUM_CARDS, b"create")
        bus.push(TableOp("create", deck=LEAD, cards=(GAIA_HERE, 11)))
        with pytest.raises(TableOpError, match="shuffle it first"):
            bus.push(draw)


def test_a_created_deck_once_shuffled_deals_its_cards() -> None:
    bus = make_table(2, NUM_CARDS, b"create")
    bus.push(TableOp("create", deck=LEAD, cards=(GAIA_HERE, 11)))
    bus.push(TableOp("shuffle", deck=LEAD))
    assert sum(1 for _, raw in bus.sent if bus.kind(raw) == "table_shuffle") == 2
    bus.push(TableOp("deals", deck=LEAD, seats=(0, 1)))
    dealt = sorted(card for peer in bus.peers for card in peer.known().values())
    assert dealt == [GAIA_HERE, 11]


def test_a_table_shuffle_sent_for_a_create_is_blamed_on_its_signer() -> None:
    """A create owes no message: a ``table_shuffle`` signed for its index (here seat 1's real
    pass of ``deck``, its ``op`` changed) convicts its signer, with that message as evidence."""
    bus = make_table(3, NUM_CARDS, b"create")
    bus.push(TableOp("shuffle", deck="deck", cards=CARDS))
    _, raw = next((s, r) for s, r in bus.sent if s == 1 and bus.kind(r) == "table_shuffle")
    env = bus.codecs[1].open(raw)
    forged = bus.codecs[1].seal("table_shuffle", {**env.body, "op": 1})
    bus.queue.append((1, forged))
    bus.run()  # stored ahead of the schedule: operation 1 is not pushed yet
    with pytest.raises(DeckFault) as info:
        bus.push(TableOp("create", deck=LEAD, cards=(GAIA_HERE,)))
    assert info.value.seat == 1
    assert "table_shuffle for operation 1, which is a create" in info.value.reason
    assert info.value.evidence == (forged,)


def _push_each(bus: TableBus, ops: list[TableOp]) -> None:
    """Give seat s the operation ops[s] (a seat whose schedule differs), then deliver."""
    for peer, op in zip(bus.peers, ops, strict=True):
        bus._call(peer.seat, lambda p=peer, o=op: p.push(o))  # type: ignore[misc]
    bus.run()


def test_a_seat_that_creates_another_card_list_is_blamed_at_its_pass() -> None:
    """Seat 0 creates ``lead`` as another card than the schedule lists (9 for 10) and shuffles
    what it made: its pass is no re-encrypted permutation of the deck every other seat holds,
    so they refuse its proof and blame seat 0 before anything is dealt from it."""
    seats = 3
    bus = make_table(seats, NUM_CARDS, b"create")
    bus.push(TableOp("shuffle", deck="deck", cards=CARDS))
    honest = TableOp("create", deck=LEAD, cards=(GAIA_HERE,))
    _push_each(bus, [TableOp("create", deck=LEAD, cards=(9,)), honest, honest])
    for _ in range(seats - 1):
        bus.push(TableOp("transfer", deck=LEAD, source="deck"))
    with pytest.raises(DeckFault) as info:
        bus.push(TableOp("shuffle", deck=LEAD))
    assert info.value.seat == 0
    assert "invalid proof of a shuffle" in info.value.reason
    assert not any(bus.kind(raw) == "table_shares" for _, raw in bus.sent)


def test_a_create_the_table_cannot_make_is_the_schedules_error() -> None:
    bus = make_table(2, NUM_CARDS, b"create")
    bus.push(TableOp("shuffle", deck="deck", cards=CARDS))
    with pytest.raises(TableOpError, match="deck deck exists"):
        bus.push(TableOp("create", deck="deck", cards=(GAIA_HERE,)))
    bus = make_table(2, NUM_CARDS, b"create")
    bus.push(TableOp("shuffle", deck="deck", cards=CARDS))
    with pytest.raises(TableOpError, match="already at the table"):
        bus.push(TableOp("create", deck=LEAD, cards=(3,)))
    bus = make_table(2, NUM_CARDS, b"create")
    with pytest.raises(TableOpError, match="distinct cards"):
        bus.push(TableOp("create", deck=LEAD, cards=(4, 4)))
    bus = make_table(2, NUM_CARDS, b"create")
    with pytest.raises(TableOpError, match="not an id"):
        bus.push(TableOp("create", deck=LEAD, cards=(NUM_CARDS,)))


@pytest.mark.parametrize(
    "fields",
    [
        {"deck": LEAD},
        {"cards": (1,)},
        {"deck": LEAD, "cards": (1,), "seat": 0},
        {"deck": LEAD, "cards": (1,), "zone": "up"},
        {"deck": LEAD, "cards": (1,), "source": "deck"},
    ],
)
def test_a_create_without_its_deck_and_cards_or_with_other_fields_is_refused(
    fields: dict[str, object],
) -> None:
    with pytest.raises(ValueError):
        TableOp("create", **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_2017_round_deals_with_two_shuffles_of_passes_by_every_seat(players: int) -> None:
    """``lead`` is created with Gaia, not shuffled as a deck of one: the round's critical path
    is 2·n passes (``deck``, then ``lead`` once the transfers are on it), not 3·n."""
    kinds = [op.kind for op in round_ops(players)]
    assert kinds.count("shuffle") == 2 and kinds.count("create") == 1
    bus = dealt_round(players, b"two shuffles")
    passes = [raw for _, raw in bus.sent if bus.kind(raw) == "table_shuffle"]
    assert len(passes) == 2 * players
