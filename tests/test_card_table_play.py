"""Whole Druids (2004) games at a mental card table, every seat in its own copy, over signed wire
messages: no seat is told anything but what its deck seat decrypts (no true game anywhere).

Each seat is the rule set's copy of the game (``table_seat``) with the deck's ``TablePeer`` and
the LAN table's codec (``table/card_table_play.py``); a rule bot moves from its own copy. Every copy
agrees on the end and the scores, every deck state is equal, and the final audit of all the
signed messages, with every secret revealed, accounts for every card exactly once.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from druids_p2p.deck.table_audit import audit_record
from druids_p2p.deck.table_peer import TablePeer
from druids_p2p.games.druids2004.policy import greedy_move
from druids_p2p.games.druids2004.table_seat import TableSeat2004
from druids_p2p.games.registry import RULESETS
from druids_p2p.table.card_table_play import CardTablePlay, MoveFault, table_op
from druids_p2p.table.codec import Chain, WireCodec
from druids_p2p.table.table_state import TableSecret
from druids_p2p.wire import ZERO_HASH, Identity, Message, MsgType, decode
from druids_p2p.wire.envelope import head0, next_head

RULES = RULESETS["druids2004"]
TABLE_ID = bytes(range(32))
GAME = 0
MAX_DELIVERIES = 200_000


class Table:
    """Seats wired together in one process: every sealed message goes to every other seat,
    in the order sealed (as the codec queues it, like the table machine's outbox)."""

    def __init__(self, players: int, seed: int) -> None:
        self.players = players
        self.sent: list[Message] = []
        self._by_raw: dict[bytes, Message] = {}
        self.queue: list[tuple[int, bytes]] = []
        self.unplaced: list[tuple[int, bytes, int]] = []
        """Each seat's own move messages sealed and not yet told their place (its index in
        ``sent``, this harness's transcript)."""
        self.head = head0(TABLE_ID)
        ids = [Identity.from_seed(bytes([seed, s]) * 16, f"p{s}") for s in range(players)]
        self.keys = [i.public_key for i in ids]
        options = RULES.make_options(players)
        self.seats: list[CardTablePlay] = []
        self.codecs: list[WireCodec] = []
        for s, ident in enumerate(ids):
            chain = Chain(ident, TABLE_ID, lambda: (0, ZERO_HASH))
            codec = WireCodec(s, chain, lambda: self.head, self.seat_of, self.decoded, self.sealed)
            secret = TableSecret(bytes([seed, s, 7, 9]) * 8)
            peer = TablePeer(
                TABLE_ID, GAME, players, RULES.deck_size, codec, entropy=secret.entropy("t")
            )
            copy = RULES.table_seat(options, s, random.Random(seed * 10 + s))
            seal = self._sealer(chain)
            self.codecs.append(codec)
            self.seats.append(
                CardTablePlay(copy, peer, self.seat_of, seal, self.decoded, RULES.Move)
            )

    def _sealer(self, chain: Chain) -> Callable[[str], Message]:
        def seal_move(token: str) -> Message:
            msg = chain.seal_message(MsgType.MOVE, {"move": token, "round": GAME}, self.head)
            self.sealed(msg)
            return msg

        return seal_move

    def seat_of(self, key: bytes) -> int | None:
        return self.keys.index(key) if key in self.keys else None

    def sealed(self, msg: Message) -> None:
        self.sent.append(msg)
        self._by_raw[msg.raw] = msg
        self.head = next_head(self.head, msg.hash)
        who = self.keys.index(msg.sender)
        self.queue.extend((j, msg.raw) for j in range(self.players) if j != who)
        if msg.type is MsgType.MOVE or msg.type is MsgType.TABLE_PLAY:
            self.unplaced.append((who, msg.raw, len(self.sent) - 1))

    def place_own(self) -> None:
        """Tell each mover where its own move messages lie (once its call has returned, as the
        table does when it appends them); the others learn it on delivery."""
        for who, raw, at in self.unplaced:
            self.seats[who].placed(raw, at)
        self.unplaced.clear()

    def deliver(self, j: int, raw: bytes) -> None:
        msg = self._by_raw[raw]
        if msg.type is MsgType.MOVE or msg.type is MsgType.TABLE_PLAY:
            self.seats[j].placed(raw, self.sent.index(msg))
        self.seats[j].receive(msg)
        self.place_own()

    def decoded(self, raw: bytes) -> Message | None:
        """A message some seat sealed here (decoded once, as a table's transcript holds it)."""
        return self._by_raw.get(raw)

    def settle(self) -> None:
        for _ in range(MAX_DELIVERIES):
            if not self.queue:
                return
            j, raw = self.queue.pop(0)
            self.deliver(j, raw)
        raise AssertionError("the messages did not settle")

    def run(self, rng: random.Random) -> None:
        for seat in self.seats:
            seat.start()
        self.place_own()
        for _ in range(MAX_DELIVERIES):
            self.settle()
            movers = [s for s in self.seats if s.my_turn]
            if not movers:
                return
            (mover,) = movers
            mover_copy = mover.copy
            assert isinstance(mover_copy, TableSeat2004)
            mover.play(RULES.Move.of(greedy_move(mover_copy.world, rng)))
            self.place_own()
        raise AssertionError("the game did not end")


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_a_whole_game_at_the_card_table_every_seat_knowing_only_its_own(
    players: int, seed: int
) -> None:
    table = Table(players, seed)
    table.run(random.Random(seed))
    copies = [s.copy for s in table.seats]
    assert all(c.game_over for c in copies), "the game ran to its end"
    assert len({(tuple(c.totals), tuple(c.winners or ())) for c in copies}) == 1
    states = [s.peer.state for s in table.seats]
    assert all(st.finished for st in states) and len({st.digest() for st in states}) == 1
    ops = [table_op(op) for op in states[0].ops]
    deck_messages = [m.raw for m in table.sent if m.type is not MsgType.MOVE]
    audit = audit_record(
        TABLE_ID, GAME, players, RULES.deck_size, table.codecs[0], ops, deck_messages
    )
    in_zones = [p.card for p in audit.positions if p.zone]
    in_decks = [c for deck in audit.decks.values() for c in deck]
    put = sorted(c for op in ops for c in op.cards)  # the new decks: every card at this table
    assert len(put) == len(set(put)) and sorted(in_zones + in_decks) == put, "every card, once"
    moves = [m for m in table.sent if m.type is MsgType.MOVE]
    assert {decode(m.raw).body["move"].split(":")[0] for m in moves} >= {"Draw", "Ritual"}


def test_a_move_the_rules_refuse_is_blamed_on_its_mover_with_its_signed_message() -> None:
    table = Table(2, 4)
    for seat in table.seats:
        seat.start()
    table.settle()
    mover, other = table.seats[0], table.seats[1]
    assert mover.my_turn
    cheat = mover._seal_move("Draw:gem")  # it must first play its cards
    table.queue.clear()
    with pytest.raises(MoveFault, match="must first play") as caught:
        other.receive(cheat)
    assert caught.value.seat == 0 and caught.value.raw == cheat.raw
