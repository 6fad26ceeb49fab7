"""The end-of-round audit: with every secret revealed, recompute the whole deal and blame.

Every shuffle was proven on arrival; each is also a function of a seed its seat committed to before
the keys were known, so after the reveal everybody recomputes every step (output and proof) from
the previous seat's *published* output and compares bytes. The first
mismatch names its author. Every decryption share and every opened card is then checked against
the revealed secrets, and the full hands come out for the caller's rules replay (renege check).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from druids_p2p.deck import group
from druids_p2p.deck.assign import Assignment
from druids_p2p.deck.cards import card_points
from druids_p2p.deck.checks import check_key, check_reveal, check_salt
from druids_p2p.deck.elgamal import Deck, public_encryptions
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.log import RoundLog
from druids_p2p.deck.params import SHUFFLE_PASS, DeckParams
from druids_p2p.deck.shuffle import derive_permutation, derive_rerandomizers, shuffle_step
from druids_p2p.deck.signing import Codec


@dataclass(frozen=True, slots=True)
class Opened:
    """One card shown during play, in transcript order."""

    seat: int
    position: int
    card: int


@dataclass(frozen=True, slots=True)
class AuditResult:
    """The deal as it really was, for the caller's replay through the rules."""

    deal: tuple[int, ...]
    """Card at each dealt position 0..k-1."""
    hands: tuple[tuple[int, ...], ...]
    """Per seat, the cards of its positions in that seat's position order (``assignment``)."""
    opened: tuple[Opened, ...]
    undealt: tuple[int, ...]
    """The cards out of this round, in id order."""
    assignment: Assignment
    """Which positions each seat was dealt, recomputed from the revealed salts."""


def _require(log: RoundLog, params: DeckParams) -> None:
    """A missing message is blamed on its author, in protocol order (no evidence exists)."""
    n = params.seats
    for name, table in (
        ("deck_commit", log.commits),
        ("deck_key", log.keys),
        ("deck_shuffle", log.shuffles),
        ("deck_salt", log.salts),
        ("deck_shares", log.shares),
        ("deck_reveal", log.reveals),
    ):
        for seat in range(n):
            if seat not in table:
                raise DeckFault(seat, f"no {name} message")


@dataclass(frozen=True, slots=True)
class _Known:
    """What each position of a deck is once every secret is out: its card and its total
    randomness ρ, so that its ciphertext is (ρ·B, M + ρ·x·B), x the joint secret.

    Why: with every discrete log known, each ciphertext, decryption share and opening the
    audit recomputes is a *base* multiplication (libsodium's precomputed table, about a third of
    a generic one), and a deal whose every shuffle recomputes exactly needs no decryption."""

    cards: tuple[int, ...]
    rand: tuple[int, ...]


def _base(k: int) -> bytes:
    """k·B for any integer k (the identity for k ≡ 0 mod l, which libsodium refuses)."""
    k %= group.ORDER
    return group.base_mul(k.to_bytes(32, "little")) if k else group.IDENTITY


def _start(cards: tuple[int, ...]) -> _Known:
    """The public encryptions (B, M + H) of ``cards`` (elgamal.py): randomness 1."""
    return _Known(cards, (1,) * len(cards))


def _encrypt(params: DeckParams, known: _Known, x: int) -> Deck:
    points = card_points(params.num_cards)
    add = group.add
    return Deck(
        tuple(_base(rho) for rho in known.rand),
        tuple(
            add(points[card], _base(rho * x))
            for card, rho in zip(known.cards, known.rand, strict=True)
        ),
    )


def _shuffled(params: DeckParams, seat: int, seed: bytes, known: _Known) -> _Known:
    """``seat``'s step (deck.md §7) applied to what is known: output t is input perm[t]
    re-randomised by r_t, so it holds that card with randomness ρ_{perm[t]} + r_t."""
    size = len(known.cards)
    perm = derive_permutation(params, seat, SHUFFLE_PASS, seed, size)
    rs = derive_rerandomizers(params, seat, SHUFFLE_PASS, seed, size)
    return _Known(
        tuple(known.cards[perm[t]] for t in range(size)),
        tuple(known.rand[perm[t]] + int.from_bytes(rs[t], "little") for t in range(size)),
    )


def _check_shuffles(
    params: DeckParams,
    log: RoundLog,
    joint_key: bytes,
    x: int,
    proofs_checked: bool,
    own: int | None,
) -> _Known:
    """Recompute every shuffle from its revealed seed, each from the previous seat's
    *published* output, and return what every final position holds. The first mismatch names
    its author; when seat s is checked, the output it took equals the recomputation, so the
    cards and randomness tracked from the public start are exact."""
    known = _start(params.shuffled_cards())
    deck = public_encryptions(params, params.shuffled_cards(), joint_key)
    for seat in range(params.seats):
        published = log.shuffles[seat]
        seed = log.reveals[seat].msg.seed
        msg = published.msg
        known = _shuffled(params, seat, seed, known)
        if seat == own:  # made here from this seed: it is its recomputation
            honest = True
        elif proofs_checked:  # the proof held on receipt: only the seed's binding is left
            expected = _encrypt(params, known, x)
            honest = expected.a == msg.a and expected.c == msg.c
        else:
            expected, proof = shuffle_step(params, seat, SHUFFLE_PASS, seed, deck, joint_key)
            honest = expected.a == msg.a and expected.c == msg.c and proof == msg.proof
        if not honest:
            raise DeckFault(
                seat,
                "shuffle does not match its recomputation from the revealed seed (a card was "
                "dropped, duplicated or replaced, or the proof was not made from the seed)",
                (
                    published.raw,
                    log.reveals[seat].raw,
                    *log.shuffle_input_raw(seat),
                    *log.all_key_raws(),
                ),
            )
        deck = Deck(msg.a, msg.c)
    # final_deck: the first kept ciphertexts of the last shuffle, then the required cards'
    # public encryptions
    extra = _start(params.required_sorted)
    return _Known(known.cards[: params.kept] + extra.cards, known.rand[: params.kept] + extra.rand)


def _check_shares(
    params: DeckParams,
    log: RoundLog,
    known: _Known,
    secrets: list[bytes],
    assignment: Assignment,
) -> None:
    """Every published share must be x_s·A_j, that is (x_s·ρ_j)·B."""
    for sender in range(params.seats):
        signed = log.shares[sender]
        x = int.from_bytes(secrets[sender], "little")
        for batch in signed.msg.batches:
            for j, d in zip(assignment.positions(batch.to), batch.shares, strict=True):
                if _base(x * known.rand[j]) != d:
                    raise DeckFault(
                        sender,
                        f"wrong decryption share for position {j} (dealt to seat {batch.to})",
                        (signed.raw, log.reveals[sender].raw, *log.final_raw()),
                    )


def _check_opens(
    params: DeckParams, log: RoundLog, known: _Known, secrets: list[bytes], deal: tuple[int, ...]
) -> tuple[Opened, ...]:
    opened: list[Opened] = []
    for signed in log.opens:
        msg, seat = signed.msg, signed.seat
        j = msg.position
        if _base(int.from_bytes(secrets[seat], "little") * known.rand[j]) != msg.share:
            raise DeckFault(
                seat,
                f"wrong decryption share when opening position {j}",
                (signed.raw, log.reveals[seat].raw, *log.final_raw()),
            )
        if msg.card != deal[j]:
            raise DeckFault(
                seat,
                f"opened position {j} as card {msg.card} but it holds {deal[j]}",
                (signed.raw, *log.final_raw(), *(log.reveals[s].raw for s in range(params.seats))),
            )
        opened.append(Opened(seat, j, msg.card))
    return tuple(opened)


def audit_log(
    params: DeckParams, log: RoundLog, *, proofs_checked: bool = False, own: int | None = None
) -> AuditResult:
    """Recompute and check the whole round; raise :class:`DeckFault` at the first violation.

    ``proofs_checked``: every shuffle's proof was verified when it arrived (a live peer's own
    log), so the recomputation compares the outputs only; a saved transcript recomputes each
    proof as well, which checks it (an honest proof is a function of the seed). ``own``: the
    seat of a live peer auditing its own log, whose shuffle it made itself from the seed it
    revealed, so it is not recomputed (its cards and randomness are still tracked)."""
    _require(log, params)
    for seat in range(params.seats):
        check_key(params, log, seat)
    for seat in range(params.seats):
        check_reveal(params, log, seat)
    joint_key = group.sum_points([log.keys[s].msg.key for s in range(params.seats)])
    secrets = [log.reveals[s].msg.secret for s in range(params.seats)]
    # check_reveal held for every seat: x_s·B is its key share, so x·B is the joint key
    x = sum(int.from_bytes(secret, "little") for secret in secrets) % group.ORDER
    known = _check_shuffles(params, log, joint_key, x, proofs_checked, own)
    for seat in range(params.seats):
        check_salt(log, seat)
    n = params.seats
    assignment = Assignment.derive(params, [log.salts[s].msg.salt for s in range(n)])
    log.set_assignment(assignment)  # places (and owner-checks) openings logged before the salts
    # Every ciphertext of the final deck was recomputed exactly as (ρ·B, M + ρ·x·B), so it
    # decrypts to the card tracked at its position: no decryption is left to do.
    deal = known.cards
    _check_shares(params, log, known, secrets, assignment)
    opened = _check_opens(params, log, known, secrets, deal)
    hands = tuple(tuple(deal[j] for j in assignment.positions(seat)) for seat in range(n))
    dealt = set(deal)
    undealt = tuple(c for c in range(params.num_cards) if c not in dealt)
    return AuditResult(
        deal=deal, hands=hands, opened=opened, undealt=undealt, assignment=assignment
    )


def audit_transcript(params: DeckParams, transcript: Iterable[bytes], codec: Codec) -> AuditResult:
    """Audit from raw signed messages alone (e.g. a saved record), in their original order.

    Raw bytes that do not authenticate raise :class:`MalformedMessage`: a transcript is expected
    to hold only messages that were accepted when the round was played.
    """
    log = RoundLog(params)
    for raw in transcript:
        env = codec.open(raw)
        log.add(env.seat, env.kind, env.body, env.raw)
    return audit_log(params, log)
