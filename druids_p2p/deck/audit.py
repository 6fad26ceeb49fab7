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
from druids_p2p.deck.cards import card_table
from druids_p2p.deck.checks import check_key, check_reveal, check_salt
from druids_p2p.deck.elgamal import Deck, final_deck, public_encryptions
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.log import RoundLog
from druids_p2p.deck.params import SHUFFLE_PASS, DeckParams
from druids_p2p.deck.shuffle import shuffle_output, shuffle_step
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


def _check_shuffles(
    params: DeckParams, log: RoundLog, joint_key: bytes, proofs_checked: bool
) -> Deck:
    deck = public_encryptions(params, params.shuffled_cards(), joint_key)
    for seat in range(params.seats):
        published = log.shuffles[seat]
        seed = log.reveals[seat].msg.seed
        msg = published.msg
        if proofs_checked:  # the proof held on receipt: only the seed's binding is left
            expected, _, _ = shuffle_output(params, seat, SHUFFLE_PASS, seed, deck, joint_key)
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
    return final_deck(params, deck, joint_key)


def _decrypt_all(params: DeckParams, final: Deck, secrets: list[bytes]) -> tuple[int, ...]:
    joint = secrets[0]
    for x in secrets[1:]:
        joint = group.scalar_add(joint, x)
    table = card_table(params.num_cards)
    cards: list[int] = []
    for a, c in zip(final.a, final.c, strict=True):
        point = c if group.is_zero_scalar(joint) else group.sub(c, group.mul(joint, a))
        card = table.get(point)
        if card is None:  # pragma: no cover - impossible once every shuffle recomputes exactly
            raise RuntimeError("audit: a verified deal decrypts to a non-card")
        cards.append(card)
    return tuple(cards)


def _check_shares(
    params: DeckParams,
    log: RoundLog,
    final: Deck,
    secrets: list[bytes],
    assignment: Assignment,
) -> None:
    for sender in range(params.seats):
        signed = log.shares[sender]
        x = secrets[sender]
        for batch in signed.msg.batches:
            for j, d in zip(assignment.positions(batch.to), batch.shares, strict=True):
                if group.mul(x, final.a[j]) != d:
                    raise DeckFault(
                        sender,
                        f"wrong decryption share for position {j} (dealt to seat {batch.to})",
                        (signed.raw, log.reveals[sender].raw, *log.final_raw()),
                    )


def _check_opens(
    params: DeckParams, log: RoundLog, final: Deck, secrets: list[bytes], deal: tuple[int, ...]
) -> tuple[Opened, ...]:
    opened: list[Opened] = []
    for signed in log.opens:
        msg, seat = signed.msg, signed.seat
        j = msg.position
        if group.mul(secrets[seat], final.a[j]) != msg.share:
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


def audit_log(params: DeckParams, log: RoundLog, *, proofs_checked: bool = False) -> AuditResult:
    """Recompute and check the whole round; raise :class:`DeckFault` at the first violation.

    ``proofs_checked``: every shuffle's proof was verified when it arrived (a live peer's own
    log), so the recomputation compares the outputs only; a saved transcript recomputes each
    proof as well, which checks it (an honest proof is a function of the seed)."""
    _require(log, params)
    for seat in range(params.seats):
        check_key(params, log, seat)
    for seat in range(params.seats):
        check_reveal(params, log, seat)
    joint_key = group.sum_points([log.keys[s].msg.key for s in range(params.seats)])
    secrets = [log.reveals[s].msg.secret for s in range(params.seats)]
    final = _check_shuffles(params, log, joint_key, proofs_checked)
    for seat in range(params.seats):
        check_salt(log, seat)
    n = params.seats
    assignment = Assignment.derive(params, [log.salts[s].msg.salt for s in range(n)])
    log.set_assignment(assignment)  # places (and owner-checks) openings logged before the salts
    deal = _decrypt_all(params, final, secrets)
    _check_shares(params, log, final, secrets, assignment)
    opened = _check_opens(params, log, final, secrets, deal)
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
