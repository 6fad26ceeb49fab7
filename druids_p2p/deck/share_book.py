"""One seat's book of the round's decryption shares, from the final deck and the assignment on.

Every seat sends, to each other seat, the shares that strip its key from that seat's positions,
with one batch proof (deck.md §6.5). This room makes this seat's shares, checks every other
seat's batches once (lazily: a batch for another seat is checked at its first opening, or all at
once by :meth:`ShareBook.verify_all`), decrypts this seat's hand, and keeps, for every position
of another seat, the ciphertext minus every share but its owner's, so that an opening during
play costs one subtraction. :class:`~druids_p2p.deck.peer.DeckPeer` makes one as soon as the
assignment is fixed and hands it its key share.
"""

from __future__ import annotations

from druids_p2p.deck import group
from druids_p2p.deck.assign import Assignment
from druids_p2p.deck.cards import card_table
from druids_p2p.deck.elgamal import Deck, decrypt_with
from druids_p2p.deck.errors import AuditRequired, DeckFault
from druids_p2p.deck.log import RoundLog
from druids_p2p.deck.messages import ShareBatch, SharesMsg
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.proofs import prove_batch, verify_batch


def batch_index(sender: int, recipient: int) -> int:
    """Where the batch for ``recipient`` sits in ``sender``'s shares (own seat skipped)."""
    return recipient if recipient < sender else recipient - 1


class ShareBook:
    """The decryption shares of one round as ``seat`` sees them: its own, and the checked others."""

    def __init__(
        self,
        params: DeckParams,
        log: RoundLog,
        seat: int,
        secret: bytes,
        key: bytes,
        final: Deck,
        assignment: Assignment,
    ) -> None:
        self.params = params
        self.log = log
        self.seat = seat
        self._secret = secret
        self._key = key
        self.final = final
        self.assignment = assignment
        self._my_shares: dict[int, bytes] = {}
        self._verified: set[tuple[int, int]] = set()
        self._partials: dict[int, bytes] = {}
        """Other seats' positions -> the ciphertext minus every share but its owner's."""

    def make(self) -> SharesMsg:
        """This seat's shares for every other seat's positions, one proven batch per seat."""
        params, x, mul, final = self.params, self._secret, group.mul, self.final
        batches: list[ShareBatch] = []
        for seat in range(params.seats):
            if seat == self.seat:
                continue
            positions = self.assignment.positions(seat)
            a_list = [final.a[j] for j in positions]
            d_list = [mul(x, a) for a in a_list]
            self._my_shares.update(zip(positions, d_list, strict=True))
            e, s = prove_batch(params, self.seat, seat, x, self._key, a_list, d_list)
            batches.append(ShareBatch(to=seat, shares=tuple(d_list), e=e, s=s))
        return SharesMsg(params.round_no, tuple(batches))

    def ensure_batch(self, sender: int, recipient: int) -> None:
        """Verify ``sender``'s shares for ``recipient``'s positions once (lazily for observers).

        This seat's own batches are not checked: it made them here from its own secret, and the
        signed message it sent (or replays from its own record) is those very bytes."""
        if sender == self.seat or (sender, recipient) in self._verified:
            return
        signed = self.log.shares[sender]
        batch = signed.msg.batches[batch_index(sender, recipient)]
        a_list = [self.final.a[j] for j in self.assignment.positions(recipient)]
        key = self.log.keys[sender].msg.key
        if not verify_batch(
            self.params, sender, recipient, key, a_list, list(batch.shares), (batch.e, batch.s)
        ):
            raise DeckFault(
                sender,
                f"invalid decryption shares for seat {recipient}'s cards",
                (signed.raw, *self.log.key_raw(sender), *self.log.final_raw()),
            )
        self._verified.add((sender, recipient))

    def verify_all(self) -> None:
        """Check every published batch now, then (once every seat's shares are in) strip all the
        shares but its owner's from every other seat's position (see the module docstring)."""
        for sender in self.log.shares:
            for recipient in range(self.params.seats):
                if recipient != sender:
                    self.ensure_batch(sender, recipient)
        if len(self.log.shares) < self.params.seats:
            return
        for owner in range(self.params.seats):
            if owner != self.seat:
                for j in self.assignment.positions(owner):
                    self._partials[j] = decrypt_with(self.final.c[j], self.others_shares(j, owner))

    def decrypt_hand(self) -> dict[int, int] | AuditRequired:
        """This seat's position -> card, or why the deal needs an audit (a position that
        decrypts to no card, a card dealt twice)."""
        params, me, final = self.params, self.seat, self.final
        others = [s for s in range(params.seats) if s != me]
        for sender in others:
            self.ensure_batch(sender, me)
        table = card_table(params.num_cards)
        columns = [self.log.shares[s].msg.batches[batch_index(s, me)].shares for s in others]
        hand: dict[int, int] = {}
        for t, j in enumerate(self.assignment.positions(me)):
            shares = [col[t] for col in columns]
            shares.append(group.mul(self._secret, final.a[j]))
            card = table.get(decrypt_with(final.c[j], shares))
            if card is None:
                return AuditRequired(
                    f"position {j} of seat {me} decrypts to no card", self.log.final_raw()
                )
            if card in hand.values():
                return AuditRequired(
                    f"card {card} was dealt twice to seat {me}", self.log.final_raw()
                )
            hand[j] = card
        return hand

    def partial(self, j: int, owner: int) -> bytes:
        """Position ``j``'s ciphertext minus every share but its owner's."""
        partial = self._partials.get(j)
        if partial is None:
            partial = decrypt_with(self.final.c[j], self.others_shares(j, owner))
        return partial

    def others_shares(self, j: int, owner: int) -> list[bytes]:
        """Every published share of position j except its owner's (all verified by now)."""
        t = self.assignment.index(j)
        shares: list[bytes] = []
        for sender in range(self.params.seats):
            if sender == owner:
                continue
            if sender == self.seat:
                shares.append(self._my_shares[j])
                continue
            self.ensure_batch(sender, owner)
            shares.append(self.log.shares[sender].msg.batches[batch_index(sender, owner)].shares[t])
        return shares
