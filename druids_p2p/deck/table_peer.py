"""One seat at the card table, driven by plain method calls (no I/O) so that the same code runs
in a peer, a test and a bench: push the schedule's operations, feed it what arrives, send what it
returns. Its secret, and the cards dealt to it, are all it holds that the public state does not."""

from __future__ import annotations

import os
from collections.abc import Callable

from druids_p2p.deck import group
from druids_p2p.deck.cards import card_table, decrypt_with
from druids_p2p.deck.errors import AuditRequired, MalformedMessage, NotReady
from druids_p2p.deck.lincomb import multiply_all
from druids_p2p.deck.proofs import prove_key, prove_open, prove_shares
from druids_p2p.deck.shuffle import shuffle_output, statement_seed
from druids_p2p.deck.shuffle_passes import (
    check_aside,
    owed_shares,
    prove_held,
    share_groups,
    shuffle_input,
)
from druids_p2p.deck.shuffle_proof import OwnShuffle, prove_shuffle
from druids_p2p.deck.table_messages import (
    DEAL,
    DEALS,
    FINAL,
    KIND_TABLE_SHARE,
    KIND_TABLE_SHARES,
    PLAY,
    REVEAL,
    SHOW,
    SHUFFLE,
    TABLE_MESSAGES,
    TURN,
    Codec,
    Envelope,
    Opening,
    SeatProof,
    SharePart,
    TableKeyMsg,
    TableMessage,
    TableOp,
    TableOpenMsg,
    TablePlayMsg,
    TableRevealMsg,
    TableShareMsg,
    TableSharesMsg,
    TableShowMsg,
    TableShuffleMsg,
    hand_zone,
    parse_table_body,
)
from druids_p2p.deck.table_ops import advance, due, precheck_share
from druids_p2p.deck.table_state import TableState

Entropy = Callable[[int], bytes]
MAX_OWN_STEPS = 1 << 16
"""A bound on the messages one call may make (one per operation at most)."""


class TablePeer:
    """A seat's state for one game at the card table."""

    def __init__(
        self,
        table_id: bytes,
        round_no: int,
        seats: int,
        num_cards: int,
        codec: Codec,
        *,
        entropy: Entropy = os.urandom,
    ) -> None:
        self.state = TableState(table_id, round_no, seats, num_cards, codec.seat)
        self._codec = codec
        self._seat = codec.seat
        """The codec's seat (it signs for one seat, for good), read once."""
        while True:
            secret = group.scalar_from_wide(entropy(64))
            if not group.is_zero_scalar(secret):
                break
        self._secret = secret
        self._key = group.base_mul(secret)
        self._choices: dict[int, int] = {}
        self._cards: dict[int, int] = {}
        self._own_shares: dict[int, bytes] = {}
        """x·A of each position dealt to this seat, made to read its card and kept for its
        opening (a show, a reveal): one multiplication fewer on the mover's path."""
        self._passes: dict[int, OwnShuffle] = {}
        """This seat's pass of each shuffle, as it made it (secret: its permutation)."""
        self._started = False

    def __repr__(self) -> str:
        return f"TablePeer(seat={self._seat})"

    @property
    def seat(self) -> int:
        return self._seat

    # ------------------------------------------------------------------ driving
    def start(self) -> list[bytes]:
        """Publish this seat's key share (with its Schnorr proof)."""
        if self._started:
            return []
        self._started = True
        params = self.state.context(b"key", "", 0)
        e, s = prove_key(params, self._seat, self._secret, self._key)
        out = [self._emit(TableKeyMsg(self.state.round_no, self._key, e, s))]
        return out + self._act()

    def push(self, op: TableOp, position: int | None = None) -> list[bytes]:
        """The schedule's next operation; ``position`` is this seat's choice for its own play
        or show (a show claims the position's card, so it must be one dealt to this seat)."""
        mine = op.kind in (PLAY, SHOW) and op.seat == self._seat
        if mine != (position is not None):
            raise ValueError("a position is given exactly for this seat's own plays and shows")
        if op.kind == SHOW and mine and position not in self._cards:
            raise ValueError(
                f"seat {self._seat} was not dealt position {position}: it cannot show it"
            )
        index = self.state.push(op)
        if position is not None:
            self._choices[index] = position
        return self._act()

    def receive(self, raw: bytes) -> list[bytes]:
        """Take one message from another seat; return this seat's messages in response.

        :class:`MalformedMessage`: drop it. :class:`DeckFault`: the signer cheated (evidence
        attached). :class:`AuditRequired`: a card decrypted wrongly although every proof held."""
        return self._take(self._codec.open(raw))

    def push_received(self, op: TableOp, env: Envelope) -> list[bytes]:
        """:meth:`push` another seat's play or show ``op`` and :meth:`receive` the message
        that makes it (opened already: ``env``), with one pass over the table's operations
        for the two, not one each (a move at a table is this, on every other seat)."""
        if op.kind not in (PLAY, SHOW) or op.seat == self._seat:
            raise ValueError("push_received takes another seat's play or show")
        self.state.push(op)
        return self._take(env)

    def _take(self, env: Envelope) -> list[bytes]:
        raw = env.raw
        if env.seat == self._seat:
            if raw in self.state.own:
                return []
            raise MalformedMessage("a message signed for this seat that it did not send")
        shaped = env.shaped
        if isinstance(shaped, TABLE_MESSAGES) and env.kind == shaped.KIND:
            self.state.take(env.seat, shaped, env.raw)  # its shape was checked on receipt
        else:
            self.state.add(env.seat, env.kind, env.body, env.raw)
        return self._act() if self._started else []

    def prove_held(self) -> None:
        """Check now the proofs of the passes held by the shuffle in progress, or of the
        ``table_shares`` held by the deals in progress (they are otherwise checked together
        once the last is in): a caller about to blame a seat for a missing message asks first,
        so that a bad one before it is the one blamed (:class:`DeckFault`,
        :func:`~druids_p2p.deck.shuffle_passes.prove_held`)."""
        prove_held(self.state, self._passes)

    def check_unproven(self) -> bool:
        """Start checking, on the aside thread, the stored proofs of other seats' cards
        that the deals left unchecked here, unless the table is dealing (its critical path) or
        such a check is under way (:func:`~druids_p2p.deck.shuffle_passes.check_aside`): a LAN
        peer asks while it waits, so that the first card opened finds them checked, on a core
        the moves did not need. True if it started one."""
        return check_aside(self.state)

    def precheck(self, env: Envelope) -> None:
        """Check now the proof of another seat's share(s) for the step in progress, so that only
        the last message to arrive is left to check then (nothing stored or judged here:
        :func:`~druids_p2p.deck.table_ops.precheck_share`)."""
        if env.seat == self._seat or env.kind not in (KIND_TABLE_SHARE, KIND_TABLE_SHARES):
            return
        try:
            msg = env.shaped if isinstance(env.shaped, TABLE_MESSAGES) else None
            if msg is None or env.kind != msg.KIND:
                msg = parse_table_body(env.kind, env.body)
            else:
                msg.check_members()  # (no proof is checked on points the group refuses)
        except MalformedMessage:
            return
        if isinstance(msg, TableShareMsg | TableSharesMsg) and msg.round_no == self.state.round_no:
            precheck_share(self.state, env.seat, msg, env.raw)

    # ------------------------------------------------------------------ what this seat knows
    def known(self) -> dict[int, int]:
        """position -> card for every position this seat knows: the public ones and its own."""
        out = dict(self._cards)
        for p, pos in enumerate(self.state.positions):
            if pos.card is not None:
                out[p] = pos.card
        return out

    def hand(self) -> tuple[int, ...]:
        """The positions in this seat's hand, in the order they came."""
        return self.state.zone(hand_zone(self._seat))

    def card_at(self, position: int) -> int:
        card = self.known().get(position)
        if card is None:
            raise NotReady(f"seat {self._seat} does not know position {position}")
        return card

    def transcript(self) -> tuple[bytes, ...]:
        return tuple(self.state.raws)

    # ------------------------------------------------------------------ internals
    def _emit(self, msg: TableMessage) -> bytes:
        raw = self._codec.seal(msg.KIND, msg.to_body())
        self.state.own.add(raw)
        self.state.put(self._seat, msg, raw)  # made here from its typed value: nothing to parse
        return raw

    def _act(self) -> list[bytes]:
        out: list[bytes] = []
        for _ in range(MAX_OWN_STEPS):
            self._learn(advance(self.state, self._passes))
            msg = self._my_part() if due(self.state, self._seat) else None
            if msg is None:
                break
            out.append(self._emit(msg))
        return out

    def _learn(self, completed: list[int]) -> None:
        """The card of every position just dealt to this seat (by a deal or a deals): C minus
        every other seat's share minus its own."""
        state = self.state
        for index in completed:
            if state.ops[index].kind not in (DEAL, DEALS):
                continue
            for p in state.taken(index):
                pos = state.positions[p]
                if pos.owner != self._seat:
                    continue
                own = group.mul(self._secret, pos.a)
                self._own_shares[p] = own
                shares = [own, *state.shares_of(p)]
                card = card_table(state.num_cards).get(decrypt_with(pos.c, shares))
                if card is None:
                    raise AuditRequired(
                        f"position {p} dealt to seat {self._seat} decrypts to no card"
                    )
                self._cards[p] = card

    def _my_part(self) -> TableMessage | None:
        state, index = self.state, self.state.done
        op = state.current
        assert op is not None
        round_no, seat = state.round_no, self._seat
        if op.kind == SHUFFLE:
            joint = state.joint_key
            assert joint is not None
            params = state.context(b"shuffle", op.deck, index)
            source, pass_no = shuffle_input(state, index), state.decks[op.deck].shuffles + 1
            seed = statement_seed(self._secret, params, seat, pass_no, source, joint)
            # shuffle_step's two halves: its permutation and re-randomisers are kept, not derived
            # a second time
            out, perm, rs = shuffle_output(params, seat, pass_no, seed, source, joint)
            proof = prove_shuffle(params, seat, pass_no, seed, joint, source, out, perm, rs)
            self._passes[index] = OwnShuffle(source, out, perm, rs)
            return TableShuffleMsg(round_no, index, op.deck, out.a, out.c, proof)
        if op.kind in (DEAL, TURN):
            p = state.at_op[index]
            d, e, s = self._share(b"share", op.deck, index, p)
            return TableShareMsg(round_no, index, p, d, e, s)
        if op.kind == DEALS:
            return self._shares(index, op.deck)
        if op.kind == PLAY:
            return TablePlayMsg(round_no, index, self._choices[index], op.zone)
        if op.kind == SHOW:
            p = self._choices[index]
            d, e, s = self._share(b"open", op.zone, index, p)
            return TableShowMsg(round_no, index, p, self._cards[p], d, e, s, op.zone)
        if op.kind == REVEAL:
            opens = []
            for p in state.plans[index][seat]:
                d, e, s = self._share(b"open", op.zone, index, p)
                opens.append(Opening(p, self._cards[p], d, e, s))
            return TableOpenMsg(round_no, index, tuple(opens))
        if op.kind == FINAL:
            return TableRevealMsg(round_no, index, self._secret)
        return None

    def _shares(self, index: int, deck: str) -> TableSharesMsg:
        """This seat's part of deals ``index``: its share of every position it owes, with one
        composite proof a seat it deals to (deck.md §8.3), each bound to the operation, this
        seat and that seat's positions."""
        state = self.state
        owed = owed_shares(state, index, self.seat)
        a_list = [state.positions[p].a for p in owed]
        d_list = multiply_all(self._secret, a_list, split=True)
        params = state.context(b"share", deck, index)
        proofs = []
        for owner, group_of in share_groups(state, owed).items():
            ps = [owed[i] for i in group_of]
            a_g, d_g = [a_list[i] for i in group_of], [d_list[i] for i in group_of]
            e, s, t2 = prove_shares(params, self.seat, self._secret, self._key, ps, a_g, d_g)
            proofs.append(SeatProof(owner, e, s, t2))
        parts = tuple(SharePart(p, d) for p, d in zip(owed, d_list, strict=True))
        return TableSharesMsg(state.round_no, index, parts, tuple(proofs))

    def _share(self, what: bytes, name: str, index: int, p: int) -> tuple[bytes, bytes, bytes]:
        """This seat's decryption share of position ``p`` with its DLEQ proof, bound to the
        operation (what, deck or zone, index), the seat and the position."""
        a = self.state.positions[p].a
        d = self._own_shares.get(p) or group.mul(self._secret, a)
        params = self.state.context(what, name, index)
        e, s = prove_open(params, self._seat, p, self._secret, self._key, a, d)
        return d, e, s
