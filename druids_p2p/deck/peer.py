"""One seat's side of one round's deal, driven by plain method calls (no I/O, no threads).

The caller broadcasts every byte string this object returns to every other seat and feeds every
byte string it receives to :meth:`DeckPeer.receive`. Messages may arrive in any order: anything
that arrives early is stored and acted on as soon as the protocol reaches it.

Flow per seat: commit -> (all commits) key -> (all keys, every earlier shuffle proven) shuffle ->
(final deck) salt -> (all salts: the position assignment) shares -> (all shares) hand; then
``open_card`` per card played, ``reveal`` at the end, ``audit`` once everybody has revealed.
The chain of shuffles is :mod:`.shuffle_chain`'s, the decryption shares (made, checked, and the
hand decrypted from them) :mod:`.share_book`'s; this class drives both and handles the openings.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable

from druids_p2p.deck import group
from druids_p2p.deck.assign import Assignment, salt_hash
from druids_p2p.deck.audit import AuditResult, Opened, audit_log
from druids_p2p.deck.cards import card_table
from druids_p2p.deck.checks import (
    check_key,
    check_reveal,
    check_salt,
    commitment,
)
from druids_p2p.deck.elgamal import Deck, final_deck
from druids_p2p.deck.errors import AuditRequired, DeckFault, MalformedMessage, NotReady
from druids_p2p.deck.log import RoundLog, Signed
from druids_p2p.deck.messages import (
    CommitMsg,
    KeyMsg,
    Message,
    OpenMsg,
    RevealMsg,
    SaltMsg,
)
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.proofs import prove_key, prove_open, verify_open
from druids_p2p.deck.share_book import ShareBook, batch_index
from druids_p2p.deck.shuffle_chain import ShuffleChain
from druids_p2p.deck.signing import Codec

Entropy = Callable[[int], bytes]


def random_scalar(entropy: Entropy) -> bytes:
    """A uniform non-zero scalar from 64 bytes of entropy."""
    while True:
        x = group.scalar_from_wide(entropy(64))
        if not group.is_zero_scalar(x):
            return x


class DeckPeer:
    """A seat's state for one round. Secrets never leave it except through :meth:`reveal`."""

    def __init__(
        self,
        params: DeckParams,
        codec: Codec,
        *,
        entropy: Entropy = os.urandom,
        defer_open_proofs: bool = False,
    ) -> None:
        """``defer_open_proofs``: an opening whose share decrypts to exactly the card it claims
        (and to no card already seen) is accepted at once and its Chaum-Pedersen proof is checked
        by :meth:`check_open_proofs`, which the caller runs before it acts on anything else. A
        table uses this to acknowledge a move before paying for the proof (about 200 µs); any
        opening that does not decrypt as claimed has its proof checked first, to blame right."""
        if not 0 <= codec.seat < params.seats:
            raise ValueError(f"seat {codec.seat} is not at a {params.seats}-seat table")
        self.params = params
        self.seat = codec.seat
        self.log = RoundLog(params)
        self._codec = codec
        self._secret = random_scalar(entropy)
        self._seed = entropy(32)
        self._salt = entropy(32)  # drawn after the seed: a restart regenerates identical bytes
        self._key = group.base_mul(self._secret)
        self._seed_hash = hashlib.sha256(self._seed).digest()
        self._salt_hash = salt_hash(self._salt)
        self._own: set[bytes] = set()
        self._started = False
        self._key_sent = False
        self._checked_keys: set[int] = set()
        self._checked_reveals: set[int] = set()
        self._joint_key: bytes | None = None
        self._chain = ShuffleChain(params, self.log, self.seat, self._seed)
        """The shuffles, this seat's own and the others' proofs (:mod:`.shuffle_chain`)."""
        self._final: Deck | None = None
        self._salt_sent = False
        self._checked_salts: set[int] = set()
        self._assignment: Assignment | None = None
        self._shares_sent = False
        self._book: ShareBook | None = None
        """The decryption shares, once the assignment is fixed (:mod:`.share_book`)."""
        self._hand: dict[int, int] | None = None
        self._hand_error: AuditRequired | None = None
        self._prepared: dict[int, tuple[bytes, bytes, bytes]] = {}
        """Own position -> (share, e, s) of its opening, made once the hand is known."""
        self._defer_proofs = defer_open_proofs
        self._unproven: list[Signed[OpenMsg]] = []
        self._opens_done = 0  # how many of log.opens have been processed
        self._opened: list[Opened] = []
        self._opened_cards: dict[int, int] = {}
        self._reveal_raw: bytes | None = None

    def __repr__(self) -> str:
        return f"DeckPeer(seat={self.seat}, table={self.params.table_id.hex()[:16]})"

    # ================================================================== driving the protocol
    def start(self) -> list[bytes]:
        """Commit to this round's key share and shuffle seed."""
        if self._started:
            return []
        self._started = True
        c = commitment(self.params, self.seat, self._key, self._seed_hash)
        out = [self._emit(CommitMsg(self.params.round_no, c))]
        out += self._advance()
        return out

    def receive(self, raw: bytes) -> list[bytes]:
        """Take one message from another seat; return the messages to broadcast in response.

        Raises :class:`MalformedMessage` for bytes that do not authenticate (drop them),
        :class:`DeckFault` when the signer broke the protocol, :class:`AuditRequired` when a card
        shown in play decrypts wrongly although every proof held.
        """
        env = self._codec.open(raw)
        if env.seat == self.seat:
            if raw in self._own:
                return []
            raise MalformedMessage("a message signed for this seat that it did not send")
        self.log.add(env.seat, env.kind, env.body, env.raw)
        return self._advance() if self._started else []

    def adopt_own(self, raw: bytes) -> None:
        """Take back one of this seat's own card openings from its saved record after a restart.

        Only openings are adopted: every other message of ours is regenerated byte for byte from
        the deterministic entropy and proof nonces (deck.md §8), whereas which card was opened was
        the player's choice.
        """
        env = self._codec.open(raw)
        if env.seat != self.seat or env.kind != OpenMsg.KIND:
            raise MalformedMessage("only this seat's own card openings can be adopted")
        msg = self.log.add(env.seat, env.kind, env.body, env.raw)
        assert isinstance(msg, OpenMsg)
        self._own.add(raw)
        self._record_open(self.seat, msg.position, msg.card)

    def verify_all_shares(self) -> None:
        """Check every published share batch now (each is otherwise checked lazily, at the first
        opening of the seat it is for); raises :class:`DeckFault` naming a bad sender.

        Then, for every other seat's position, subtract all the shares but its owner's from the
        ciphertext: an opening during play then costs one subtraction instead of a sum of all
        shares, work moved from each card played to the deal."""
        if self._final is None:
            raise NotReady("the deal is not complete")
        if self._book is None:
            assert not self.log.shares, "shares are checked against the assignment"
            return
        self._book.verify_all()

    def prepare_openings(self) -> None:
        """Make the share and proof of every card of this seat's hand now (about 160 µs each):
        neither depends on when or why a card is played, so a caller that can spare the time
        between the deal and play takes them off the path of its moves."""
        if self._hand is None:
            raise NotReady("this seat's hand is not known")
        for j in self._hand:
            if j not in self._prepared and j not in self.log.open_at:
                self._prepared[j] = self._prepare_opening(j)

    @property
    def deal_complete(self) -> bool:
        """True once this seat knows its hand (or knows the deal needs an audit)."""
        return self._hand is not None or self._hand_error is not None

    def hand(self) -> tuple[int, ...]:
        """This seat's cards in position order; :class:`AuditRequired` if they do not decrypt."""
        if self._hand_error is not None:
            raise self._hand_error
        if self._hand is None:
            raise NotReady("the deal is not complete")
        assert self._assignment is not None
        return tuple(self._hand[j] for j in self._assignment.positions(self.seat))

    def open_card(self, card: int) -> bytes:
        """Show one card of this seat's hand to everybody (what playing it means)."""
        hand = self.hand()
        if self._reveal_raw is not None:
            raise NotReady("this seat has already revealed its secrets")
        assert self._final is not None and self._hand is not None
        if card not in hand:
            raise ValueError(f"card {card} is not in seat {self.seat}'s hand")
        if card in self._opened_cards:
            raise ValueError(f"card {card} has already been opened")
        j = next(p for p, c in self._hand.items() if c == card)
        prepared = self._prepared.pop(j, None)
        d, e, s = prepared if prepared is not None else self._prepare_opening(j)
        raw = self._emit(
            OpenMsg(round_no=self.params.round_no, position=j, card=card, share=d, e=e, s=s)
        )
        self._record_open(self.seat, j, card)
        return raw

    @property
    def opened(self) -> tuple[Opened, ...]:
        """Cards shown so far, in the order this seat accepted them."""
        return tuple(self._opened)

    def reveal(self) -> bytes:
        """Publish this round's secrets: after this nothing about the deal is hidden."""
        if self._reveal_raw is None:
            self._reveal_raw = self._emit(
                RevealMsg(round_no=self.params.round_no, secret=self._secret, seed=self._seed)
            )
        return self._reveal_raw

    @property
    def all_revealed(self) -> bool:
        return len(self.log.reveals) == self.params.seats

    def audit(self) -> AuditResult:
        """Recompute the whole round from the transcript; raise :class:`DeckFault` on a cheat."""
        if not self.all_revealed:
            missing = [s for s in range(self.params.seats) if s not in self.log.reveals]
            raise NotReady(f"no deck_reveal yet from seat(s) {missing}")
        self.check_open_proofs()
        proven = self._chain.proven == self.params.seats  # every shuffle's proof held here
        return audit_log(self.params, self.log, proofs_checked=proven, own=self.seat)

    # ================================================================== read-only views
    def transcript(self) -> tuple[bytes, ...]:
        """Every signed message of the round (own and received), in the order it was logged."""
        return tuple(self.log.raws)

    @property
    def joint_key(self) -> bytes | None:
        return self._joint_key

    @property
    def final_deck(self) -> Deck | None:
        return self._final

    @property
    def assignment(self) -> Assignment | None:
        """Who holds which position; None until every seat's salt is in."""
        return self._assignment

    def holder_of(self, card: int) -> int:
        """The seat dealt a required card (deck.md §2): its position is public, so everybody
        knows its holder as soon as the assignment is fixed (:class:`NotReady` before)."""
        if card not in self.params.required:
            raise ValueError(f"card {card} is not a required card; its holder is secret")
        if self._assignment is None:
            raise NotReady("the position assignment is not known yet")
        return self._assignment.owner(self.params.required_position(card))

    def positions(self, seat: int) -> tuple[int, ...]:
        """``seat``'s positions in its position order (:class:`NotReady` before the salts)."""
        if self._assignment is None:
            raise NotReady("the position assignment is not known yet")
        return self._assignment.positions(seat)

    def published_shares(self, position: int) -> dict[int, bytes]:
        """seat -> decryption share for ``position``, from every message this seat has seen."""
        out: dict[int, bytes] = {}
        if self._assignment is None:
            return out
        t = self._assignment.index(position)
        owner = self._assignment.owner(position)
        for sender, signed in self.log.shares.items():
            if sender != owner:
                out[sender] = signed.msg.batches[batch_index(sender, owner)].shares[t]
        opened = self.log.open_at.get(position)
        if opened is not None:
            out[owner] = opened.msg.share
        return out

    def open_message(self, position: int) -> bytes:
        """The signed deck_open of ``position``: evidence if the caller's replay finds a renege."""
        signed = self.log.open_at.get(position)
        if signed is None:
            raise KeyError(f"position {position} has not been opened")
        return signed.raw

    # ================================================================== internals
    def _emit(self, msg: Message) -> bytes:
        raw = self._codec.seal(msg.KIND, msg.to_body())
        self.log.add_parsed(self.seat, msg, raw)
        self._own.add(raw)
        return raw

    def _advance(self) -> list[bytes]:
        out: list[bytes] = []
        while self._step(out):
            pass
        return out

    def _step(self, out: list[bytes]) -> bool:
        """Do the next thing the stored messages allow; False when nothing is left to do."""
        params, log = self.params, self.log
        n = params.seats
        if not self._key_sent and len(log.commits) == n:
            self._key_sent = True
            e, s = prove_key(params, self.seat, self._secret, self._key)
            key = KeyMsg(
                params.round_no,
                key=self._key,
                seed_hash=self._seed_hash,
                e=e,
                s=s,
                salt_hash=self._salt_hash,
            )
            out.append(self._emit(key))
            return True
        for seat in log.keys:
            if seat not in self._checked_keys and seat in log.commits:
                check_key(params, log, seat)
                self._checked_keys.add(seat)
        for seat in log.reveals:
            if seat not in self._checked_reveals and seat in self._checked_keys:
                check_reveal(params, log, seat)
                self._checked_reveals.add(seat)
        if self._joint_key is None:
            if len(self._checked_keys) < n:
                return False
            self._joint_key = group.sum_points([log.keys[s].msg.key for s in range(n)])
        chain = self._chain
        chain.prove(self._joint_key)
        if self.seat not in log.shuffles and chain.proven == self.seat:  # earlier ones proven
            mine = chain.shuffle(chain.input(self.seat, self._joint_key), self._joint_key)
            out.append(self._emit(mine))
            chain.proven += 1
            return True
        if self._final is None:
            if chain.proven < n:
                return False
            last = log.shuffles[n - 1].msg
            self._final = final_deck(params, Deck(last.a, last.c), self._joint_key)
        if not self._salt_sent:  # only now: no salt may be known before the final deck is fixed
            self._salt_sent = True
            out.append(self._emit(SaltMsg(params.round_no, self._salt)))
            return True
        for seat in log.salts:
            if seat not in self._checked_salts:
                check_salt(log, seat)
                self._checked_salts.add(seat)
        if self._assignment is None:
            if len(self._checked_salts) < n:
                return False
            self._assignment = Assignment.derive(params, [log.salts[s].msg.salt for s in range(n)])
            log.set_assignment(self._assignment)
            self._book = ShareBook(
                params, log, self.seat, self._secret, self._key, self._final, self._assignment
            )
        assert self._book is not None
        if not self._shares_sent:
            self._shares_sent = True
            out.append(self._emit(self._book.make()))
            return True
        for sender in log.shares:
            if sender != self.seat:  # my shares are checked the moment they arrive
                self._book.ensure_batch(sender, self.seat)
        if len(log.shares) < n:
            return False
        if not self.deal_complete:
            hand = self._book.decrypt_hand()
            if isinstance(hand, AuditRequired):
                self._hand_error = hand
            else:
                self._hand = hand
        while self._opens_done < len(log.opens):
            signed = log.opens[self._opens_done]
            self._opens_done += 1
            if signed.seat != self.seat:
                self._process_open(signed, self._final)
        return False

    def prove_held_shuffles(self) -> None:
        """Check now every held shuffle whose proof waits for a batch (see
        :meth:`.ShuffleChain.prove`): a caller that hears another seat stop uses this so that its
        own checks, not the other's word, decide whom to blame. :class:`DeckFault` on a bad one."""
        if self._joint_key is not None:
            self._chain.prove(self._joint_key, now=True)

    @property
    def open_proofs_pending(self) -> bool:
        """True while an accepted opening still waits for :meth:`check_open_proofs`."""
        return bool(self._unproven)

    def check_open_proofs(self) -> None:
        """Verify the proofs of openings accepted ahead of them; :class:`DeckFault` on a bad one."""
        if self._final is None:
            return
        pending, self._unproven = self._unproven, []
        for signed in pending:
            self._check_open_proof(signed, self._final)

    def _check_open_proof(self, signed: Signed[OpenMsg], final: Deck) -> None:
        msg, seat, j = signed.msg, signed.seat, signed.msg.position
        key = self.log.keys[seat].msg.key
        if not verify_open(self.params, seat, j, key, final.a[j], msg.share, (msg.e, msg.s)):
            raise DeckFault(
                seat,
                f"invalid decryption share proof when opening position {j}",
                (signed.raw, *self.log.key_raw(seat), *self.log.final_raw()),
            )

    def _process_open(self, signed: Signed[OpenMsg], final: Deck) -> None:
        params, msg, seat = self.params, signed.msg, signed.seat
        j = msg.position
        assert self._book is not None
        partial = self._book.partial(j, seat)
        card = card_table(params.num_cards).get(group.sub(partial, msg.share))
        seen = card in self._opened_cards or (
            self._hand is not None and card in self._hand.values()
        )
        if not self._defer_proofs or card is None or card != msg.card or seen:
            self._check_open_proof(signed, final)  # first: a bad proof is the fault to blame
        else:
            self._unproven.append(signed)
        if card is None:
            raise AuditRequired(
                f"position {j} opened by seat {seat} decrypts to no card", (signed.raw,)
            )
        if card != msg.card:
            raise DeckFault(
                seat,
                f"claimed card {msg.card} at position {j}, which holds card {card}",
                (signed.raw, *self.log.final_raw(), *self.log.shares_raws(seat)),
            )
        if self._hand is not None and card in self._hand.values():
            raise AuditRequired(
                f"card {card} shown by seat {seat} at position {j} is also in seat {self.seat}'s "
                "hand: it was duplicated in the deck",
                (signed.raw,),
            )
        if card in self._opened_cards:
            raise AuditRequired(
                f"card {card} shown at positions {self._opened_cards[card]} and {j}: "
                "it was duplicated in the deck",
                (self.log.open_at[self._opened_cards[card]].raw, signed.raw),
            )
        self._record_open(seat, j, card)

    def _prepare_opening(self, j: int) -> tuple[bytes, bytes, bytes]:
        """Own share of position j and its proof (see :meth:`prepare_openings`)."""
        assert self._final is not None
        a = self._final.a[j]
        d = group.mul(self._secret, a)
        e, s = prove_open(self.params, self.seat, j, self._secret, self._key, a, d)
        return d, e, s

    def _record_open(self, seat: int, position: int, card: int) -> None:
        self._opened_cards[card] = position
        self._opened.append(Opened(seat, position, card))
