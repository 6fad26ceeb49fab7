"""deck.md §14.2's vector: one Druids 2017 round at its card table, as a LAN table's transcript
holds it, recomputed from the implementation (``protocol_vectors`` writes and checks it).

Real :class:`~druids_p2p.deck.table_peer.TablePeer` seats run the round's schedule
(``games/druids2017/game.round_ops``) over signed wire messages, each seat's copy of
the game (``TableSeat2017``) gives its owners' word and its moves, and every message is sealed
on the head of its step and appended in the step's order (protocol.md §5), so that a second
implementation can compare the round message by message.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from vector_keys import ALICE, BOB, CAROL, seat_root

from druids_p2p.deck.table_audit import audit_state
from druids_p2p.deck.table_messages import TableOp
from druids_p2p.deck.table_peer import TablePeer
from druids_p2p.games.druids2017.cards import HAND_SIZE, N_CARDS
from druids_p2p.games.druids2017.game import GameOptions, round_ops
from druids_p2p.games.druids2017.notation import MOVES, format_card
from druids_p2p.games.druids2017.table_seat import TableSeat2017
from druids_p2p.table.card_table_play import table_op
from druids_p2p.table.codec import TABLE_TYPES, Chain, WireCodec
from druids_p2p.table.table_state import TableSecret
from druids_p2p.wire import ZERO_HASH, Message, MsgType
from druids_p2p.wire.envelope import head0, next_head

ROUND_VECTOR_ID = hashlib.sha256(b"druids-p2p druids2017 round vector").digest()
ROUND_VECTOR_SEATS = 3


@dataclass
class RoundGame:
    """deck.md §14.2: a Druids 2017 round's card table as a LAN table's transcript holds it."""

    peers: list[TablePeer]
    copies: list[TableSeat2017]
    sent: list[Message] = field(default_factory=list)
    """Every message in transcript order: each step's, in play order, on the step's head."""
    head: bytes = b""
    hands: list[dict[int, int]] = field(default_factory=list)
    """Each seat's hand after the deal, position -> card (what it alone knows)."""
    trick: list[tuple[int, int, int, str]] = field(default_factory=list)
    """The first trick: (seat, position, card, zone) of each show, in play order."""


def round_2017_game() -> RoundGame:
    """Round 0 of a 3-seat Druids 2017 game at its card table (protocol.md §11.2): the keys, the
    schedule of ``game.round_ops``, every seat's owners' word on Gaia and its words'
    check, the first trick (each mover shows its first legal move's card), then the final
    reveal (a whole round plays on to its last trick first). Each message is sealed in its
    sender's chain on the head at its step's start and appended once its step is complete, in
    play order, as protocol.md §5 schedules it; seats are wire.md's alice, bob, carol."""
    idents = (ALICE, BOB, CAROL)
    keys = [i.public_key for i in idents]
    options = GameOptions(players=ROUND_VECTOR_SEATS, variant=False, rounds=1)
    game = RoundGame([], [], head=head0(ROUND_VECTOR_ID))
    pending: list[Message] = []
    """Sealed, not yet appended: a step's messages until all are in."""
    chains = [Chain(i, ROUND_VECTOR_ID, lambda: (0, ZERO_HASH)) for i in idents]
    n = ROUND_VECTOR_SEATS
    per_step = {MsgType.TABLE_SHUFFLE: 1, MsgType.TABLE_SHOW: 1}
    """Messages a step holds, by type (a ``table_shares`` step, every seat's: n)."""

    def seat_of(key: bytes) -> int | None:
        return keys.index(key) if key in keys else None

    def head_of(seat: int) -> Callable[[], bytes]:
        return lambda: step_head(seat)

    def step_head(seat: int) -> bytes:
        """The head of the step ``seat`` seals for: the transcript's, after its own messages of
        the steps before, which wait to be appended (it ran ahead on them alone: a pass, a
        show), as a table seals them (``table/card_table_round.py`` ``_head``)."""
        head = game.head
        for msg in pending:
            if msg.sender == keys[seat]:
                head = next_head(head, msg.hash)
        return head

    for s in range(n):
        codec = WireCodec(s, chains[s], head_of(s), seat_of, lambda _: None, pending.append)
        entropy = TableSecret(seat_root(s)).entropy("table/druids2017")
        game.peers.append(TablePeer(ROUND_VECTOR_ID, 0, n, N_CARDS, codec, entropy=entropy))
        game.copies.append(TableSeat2017(options, s))

    def flush() -> None:
        """Append each step once all its messages are in, in play order, then hand its deck
        messages to the seats that did not send them (which may answer with the next step's)."""
        for _ in range(1000):
            if not pending:
                return
            ops = [m.body.get("op") for m in pending]
            step = None if None in ops else min(o for o in ops if o is not None)
            batch = sorted(
                (m for m in pending if m.body.get("op") == step), key=lambda m: keys.index(m.sender)
            )
            assert len(batch) == per_step.get(batch[0].type, n), "a step with a message missing"
            head = batch[0].head
            for msg in batch:
                assert msg.head == head == game.head, "every message on its step's head"
                pending.remove(msg)
            for msg in batch:
                game.sent.append(msg)
                game.head = next_head(game.head, msg.hash)
            for msg in batch:
                if msg.type in TABLE_TYPES:
                    for peer in game.peers:
                        if keys[peer.seat] != msg.sender:
                            peer.receive(msg.raw)
        raise AssertionError("the round does not settle")

    def moves(tokens: Sequence[str]) -> None:
        """A step of every seat's ``move``: the owners' words, or their checks."""
        for s, token in enumerate(tokens):
            body = {"move": token, "round": 0}
            pending.append(chains[s].seal_message(MsgType.MOVE, body, step_head(s)))
        flush()

    for peer in game.peers:
        peer.start()
    schedule = [copy.ops() for copy in game.copies]
    assert all(ops == round_ops(n) for ops in schedule)
    for peer in game.peers:
        for op in schedule[0]:
            peer.push(table_op(op))
    flush()
    for peer, copy in zip(game.peers, game.copies, strict=True):
        game.hands.append({p: peer.known()[p] for p in peer.hand()})
        for p, card in sorted(game.hands[-1].items()):
            copy.learn(p, card)
    words = [copy.own_word() or "" for copy in game.copies]
    moves(words)
    for copy in game.copies:
        for s, token in enumerate(words):
            copy.word(s, token)
    assert not any(copy.words_contradicted for copy in game.copies)
    moves(["Words:fit"] * n)
    for _ in range(n):
        mover = game.copies[0].to_move
        assert mover is not None and all(c.to_move == mover for c in game.copies)
        own = game.copies[mover]
        shown = own.table_move(MOVES[own.legal_moves()[0]])
        assert shown is not None
        card, zone = shown
        position = own.position_of(card)
        for copy in game.copies:
            copy.play(mover, position, zone, None if copy is own else card)
        show = TableOp("show", seat=mover, zone=zone)
        for peer in game.peers:
            peer.push(show, position if peer.seat == mover else None)
        flush()
        game.trick.append((mover, position, card, zone))
    for peer in game.peers:
        peer.push(TableOp("final"))
    flush()
    assert all(peer.state.finished for peer in game.peers)
    return game


def _positions(body: Mapping[str, object]) -> str:
    """The positions a ``table_shares`` carries a share of: ``1,2`` or ``4,5,...,44 (28)``."""
    shares = body.get("shares")
    if not isinstance(shares, tuple | list):
        return ""
    pos = [str(part["pos"]) for part in shares]
    return ",".join(pos) if len(pos) <= 3 else f"{pos[0]},{pos[1]},...,{pos[-1]} ({len(pos)})"


def round_2017_lines() -> list[str]:
    """deck.md §14.2: one Druids 2017 round at the card table, message by message."""
    game = round_2017_game()
    names = [i.name for i in (ALICE, BOB, CAROL)]
    keys = [i.public_key for i in (ALICE, BOB, CAROL)]
    n = ROUND_VECTOR_SEATS
    lines = [
        f"table_id = {ROUND_VECTOR_ID.hex()}",
        f"head_0 = {head0(ROUND_VECTOR_ID).hex()}",
        f"round = 0, n = {n}, N = {N_CARDS}, h = {HAND_SIZE[n]}",
    ]
    lines += [f"seat {s} x = {peer._secret.hex()}" for s, peer in enumerate(game.peers)]
    for msg in game.sent:
        body = msg.body
        what = {
            MsgType.TABLE_KEY: "",
            MsgType.TABLE_SHUFFLE: f" op {body.get('op')} deck {body.get('deck')}",
            MsgType.TABLE_SHARES: f" op {body.get('op')} pos {_positions(body)}",
            MsgType.MOVE: f" {body.get('move')}",
            MsgType.TABLE_SHOW: (
                f" op {body.get('op')} pos {body.get('pos')} card {body.get('card')}"
                f" zone {body.get('zone')}"
            ),
            MsgType.TABLE_REVEAL: f" op {body.get('op')}",
        }[msg.type]
        lines.append(
            f"{names[keys.index(msg.sender)]} seq {msg.seq} type {int(msg.type)} "
            f"{msg.type.label}{what}: {len(msg.raw)} bytes, hash {msg.hash.hex()}"
        )
    for s, hand in enumerate(game.hands):
        cards = " ".join(f"{p}:{c}" for p, c in sorted(hand.items()))
        lines.append(f"seat {s} hand (position:card) = {cards}")
    for seat, position, card, zone in game.trick:
        token = format_card(card)
        lines.append(
            f"first trick: seat {seat} shows position {position}, {token} ({card}), into {zone}"
        )
    state = game.peers[0].state
    audit = audit_state(state)
    breaches = game.copies[0].breaches({p.index: p.card for p in audit.positions})
    lines.append(f"breaches at the final reveal: {breaches or 'none'}")
    lines.append(f"head after the final reveal = {game.head.hex()}")
    lines.append(f"state digest = {state.digest().hex()}")
    return lines
