"""The round's chain of shuffles as one seat sees it: each seat's input, its own step, the proofs.

Seat 0 shuffles the public encryptions of the cards under the joint key; every later seat
shuffles its predecessor's published output (deck.md §6.3). This room builds each input, makes
this seat's own shuffle from its seed, and verifies the others' proofs in seat order before
anything is built on them, a run of consecutive shuffles in one batch. :attr:`ShuffleChain.proven`
counts the shuffles proven so far, this seat's own once it is sent.
"""

from __future__ import annotations

from druids_p2p.deck.checks import check_shuffles
from druids_p2p.deck.elgamal import Deck, public_encryptions
from druids_p2p.deck.log import RoundLog
from druids_p2p.deck.messages import ShuffleMsg
from druids_p2p.deck.params import SHUFFLE_PASS, DeckParams
from druids_p2p.deck.shuffle import derive_permutation, derive_rerandomizers, shuffle_step
from druids_p2p.deck.shuffle_proof import OwnShuffle


class ShuffleChain:
    """The shuffles of one round for ``seat``, whose shuffle ``seed`` fixes its own step."""

    def __init__(self, params: DeckParams, log: RoundLog, seat: int, seed: bytes) -> None:
        self.params = params
        self.log = log
        self.seat = seat
        self._seed = seed
        self._start: tuple[bytes, Deck] | None = None
        """Seat 0's input, the public encryptions under the joint key (made once: 64 additions)."""
        self.proven = 0
        """How many shuffles, in seat order, are proven (this seat's own counts once sent)."""

    def input(self, seat: int, joint_key: bytes) -> Deck:
        """``seat``'s input: the public start for seat 0, else seat−1's published output."""
        if seat == 0:
            if self._start is None or self._start[0] != joint_key:
                start = public_encryptions(self.params, self.params.shuffled_cards(), joint_key)
                self._start = (joint_key, start)
            return self._start[1]
        prev = self.log.shuffles[seat - 1].msg
        return Deck(prev.a, prev.c)

    def shuffle(self, deck: Deck, joint_key: bytes) -> ShuffleMsg:
        """This seat's shuffle of ``deck``, with its proof."""
        out, proof = shuffle_step(self.params, self.seat, SHUFFLE_PASS, self._seed, deck, joint_key)
        return ShuffleMsg(self.params.round_no, pass_no=SHUFFLE_PASS, a=out.a, c=out.c, proof=proof)

    def prove(self, joint_key: bytes, now: bool = False) -> None:
        """Verify the received shuffles, in seat order, before anything is built on them
        (deck.md §6.3): this seat's own shuffle waits for every earlier one, and the final deck
        (so the salt, and every share) for all of them. A run of consecutive shuffles is checked
        in one batch when the first of those two moments comes (cheaper than one by one: the
        batch shares the generators and each output that is the next input); a bad proof is
        blamed on its shuffler then, before this seat has sent anything that builds on it."""
        params, log, n = self.params, self.log, self.params.seats
        while self.proven < n and self.proven != self.seat:
            end = self.proven
            while end < n and end != self.seat and end in log.shuffles:
                end += 1
            if end == self.proven or (not now and end - 1 not in (self.seat - 1, n - 1)):
                return  # nothing waits on these yet: wait for more of the run
            batch = [
                (log.shuffles[seat], self.input(seat, joint_key))
                for seat in range(self.proven, end)
            ]
            own = self._own_shuffle(joint_key) if self.proven == self.seat + 1 else None
            # the batch before this seat's own shuffle is on the deal's critical path, every
            # other seat waiting with its core idle: there half the sum goes to the helper
            # thread; the last batch runs at every seat at once and stays on one thread
            check_shuffles(params, log, batch, joint_key, own, split=end == self.seat)
            self.proven = end

    def _own_shuffle(self, joint_key: bytes) -> OwnShuffle:
        """This seat's shuffle as its seed made it (the batch after it starts from its output)."""
        source = self.input(self.seat, joint_key)
        mine = self.log.shuffles[self.seat].msg
        size = len(source)
        return OwnShuffle(
            source,
            Deck(mine.a, mine.c),
            derive_permutation(self.params, self.seat, SHUFFLE_PASS, self._seed, size),
            derive_rerandomizers(self.params, self.seat, SHUFFLE_PASS, self._seed, size),
        )
