"""The card table's final audit (deck.md §10.3): once every secret is out every card is known, so
every share, opening and card is checked again by someone who made none of them, and the first
failure names a seat with signed evidence; each A's discrete log is followed from the revealed
secrets, so the audit multiplies by the base point.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from druids_p2p.deck import group
from druids_p2p.deck.cards import Deck, card_table
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.shuffle import derive_permutation, derive_rerandomizers, statement_seed
from druids_p2p.deck.shuffle_passes import prove_held
from druids_p2p.deck.table_messages import (
    DEAL,
    DEALS,
    EXPECTED_KIND,
    SHUFFLE,
    Codec,
    TableOp,
    TableShuffleMsg,
)
from druids_p2p.deck.table_ops import advance, waiting
from druids_p2p.deck.table_state import DeckState, TableState

# Each A's discrete log, once checked, so that the audit multiplies by the base point.
ORDER = group.ORDER


class KnownLogs:
    """``k·A`` for the audit of ``state`` (its final reveal complete): by the base point where
    ``A``'s log is known and checked, else by ``A``."""

    def __init__(self, state: TableState) -> None:
        self._derived = _derive(state)
        self._checked: dict[bytes, int | None] = {}

    def times(self, k: int, a: bytes) -> bytes:
        """``k·A`` for an integer ``0 < k < 2^256`` and a valid point ``A`` (a position's)."""
        log = self._log(a)
        if log is not None:
            scalar = k * log % ORDER
            if scalar:
                return group.base_mul(scalar.to_bytes(32, "little"))
        return group.mul(k.to_bytes(32, "little"), a)

    def _log(self, a: bytes) -> int | None:
        if a in self._checked:
            return self._checked[a]
        log = self._derived.get(a)
        if log is not None and (not log or group.base_mul(log.to_bytes(32, "little")) != a):
            log = None
        self._checked[a] = log
        return log


def _derive(state: TableState) -> dict[bytes, int]:
    """point -> its log, followed through every shuffle's passes in the order they were made
    (each from the seat's revealed secret and the input it shuffled: ``state.starts``)."""
    joint = state.joint_key
    logs: dict[bytes, int] = {group.BASE: 1}
    if joint is None or len(state.secrets) != state.seats:
        return logs
    for index, (source, pass_no) in sorted(state.starts.items()):
        op = state.ops[index]
        if op.kind != SHUFFLE:
            continue
        params = state.context(b"shuffle", op.deck, index)
        for seat in range(state.seats):
            sent = state.slots.get((index, seat))
            if sent is None or not isinstance(sent.msg, TableShuffleMsg):
                break
            secret = state.secrets[seat].to_bytes(32, "little")
            seed = statement_seed(secret, params, seat, pass_no, source, joint)
            size = len(source)
            perm = derive_permutation(params, seat, pass_no, seed, size)
            rs = derive_rerandomizers(params, seat, pass_no, seed, size)
            out = Deck(sent.msg.a, sent.msg.c)
            for t, (j, r) in enumerate(zip(perm, rs, strict=True)):
                before = logs.get(source.a[j])
                if before is not None and t < len(out):
                    logs.setdefault(out.a[t], (before + int.from_bytes(r, "little")) % ORDER)
            source = out
    return logs


# The audit itself.
@dataclass(frozen=True, slots=True)
class AuditedPosition:
    """Position ``index`` as it really was: its card, where it came from and where it lies."""

    index: int
    card: int
    deck: str
    op: int
    owner: int | None
    zone: str | None


@dataclass(frozen=True, slots=True)
class TableAudit:
    """The whole table once everything is known, for the rule set's replay of the game."""

    positions: tuple[AuditedPosition, ...]
    decks: dict[str, tuple[int, ...]]
    """Each deck's cards at the end, top first."""
    dealt: tuple[tuple[int, ...], ...]
    """Per seat, the cards dealt to it, in the order of the deals."""


Times = Callable[[int, bytes], bytes]
"""``k·A`` (:class:`~druids_p2p.deck.table_audit.KnownLogs`, or a generic multiplication)."""


def _decrypt(c: bytes, a: bytes, x: int, num_cards: int, times: Times | None = None) -> int | None:
    """C − x·A with the joint secret x: the card, or None for a point that is no card."""
    out: bytes = group.sub(c, (times or _secret_mul)(x, a))
    return card_table(num_cards).get(out)


def joint_secret(state: TableState, secrets: dict[int, bytes]) -> int | None:
    """The joint secret from every seat's revealed ``secrets`` (its final ``table_reveal``), or
    None unless each one matches its seat's ``table_key``: an auditor that has it reads every
    position as soon as it is taken (:func:`position_card`)."""
    if sorted(secrets) != list(range(state.seats)) or len(state.keys) != state.seats:
        return None
    for seat, secret in secrets.items():
        if not _fits_key(state, seat, secret):
            return None
    return sum(int.from_bytes(x, "little") for x in secrets.values()) % group.ORDER


def _fits_key(state: TableState, seat: int, secret: bytes) -> bool:
    return not group.is_zero_scalar(secret) and group.base_mul(secret) == state.keys[seat].msg.key


def secret_fault(state: TableState, seat: int, secret: bytes, raw: bytes) -> DeckFault | None:
    """What is false about ``seat``'s revealed ``secret`` (its signed ``table_reveal``, ``raw``)
    against what ``state`` holds of that seat: its ``table_key`` and every share and opening it
    proved. The offline audit asks this of every final secret in a record, also of a record it
    cannot replay to its final reveal (protocol.md §11), so no false secret passes unblamed."""
    key = state.keys.get(seat)
    if key is not None and not _fits_key(state, seat, secret):
        reason = "table_reveal: revealed secret does not match its table_key"
        return DeckFault(seat, reason, (raw, key.raw))
    x = {seat: int.from_bytes(secret, "little") % group.ORDER}
    for p in range(len(state.positions)):
        fault = next(_share_faults_at(state, p, x), None)
        if fault is not None:
            return DeckFault(seat, fault.reason, (raw, *fault.evidence))
    return None


def _share_faults_at(
    state: TableState, p: int, secrets: dict[int, int], times: Times | None = None
) -> Iterator[DeckFault]:
    """Each share and opening share of position ``p`` by a seat in ``secrets`` that is not that
    seat's secret times the position's A (deck.md §10.3, checks 1 and 2)."""
    pos = state.positions[p]
    times = times or _secret_mul
    for seat, sent in sorted(pos.shares.items()):
        if seat in secrets and times(secrets[seat], pos.a) != sent.msg.share:
            reason = f"audit: its share of position {p} is not its secret times A"
            yield DeckFault(seat, reason, (sent.raw,))
    opener = pos.opened
    if opener is not None and opener.seat in secrets:
        (opening,) = (o for o in opener.msg.opens if o.position == p)
        if times(secrets[opener.seat], pos.a) != opening.share:
            reason = f"audit: its opening share of position {p} is not its secret times A"
            yield DeckFault(opener.seat, reason, (opener.raw,))


def position_card(state: TableState, p: int, x: int) -> int | None:
    """Position ``p``'s card under the joint secret ``x`` (None: a point that is no card)."""
    pos = state.positions[p]
    return _decrypt(pos.c, pos.a, x, state.num_cards)


def audit_state(state: TableState) -> TableAudit:
    """Decrypt and check everything; the state must have completed its final reveal."""
    if not state.finished:
        raise ValueError("the final reveal is not complete")
    x = sum(state.secrets.values()) % group.ORDER
    times = KnownLogs(state).times
    cards: list[int | None] = []
    for p, pos in enumerate(state.positions):
        fault = next(_share_faults_at(state, p, state.secrets, times), None)
        if fault is not None:
            raise fault
        opener = pos.opened
        card = _decrypt(pos.c, pos.a, x, state.num_cards, times)
        if pos.card is not None and pos.card != card and opener is not None:
            raise DeckFault(
                opener.seat, f"audit: position {p} was opened as card {pos.card}", (opener.raw,)
            )
        cards.append(card)
    live = tuple(p for p, pos in enumerate(state.positions) if pos.zone is not None)
    decks = _round_cards(state, x, cards, frozenset(state.created), live, state.decks, times)
    positions: list[AuditedPosition] = []
    for p, pos in enumerate(state.positions):
        card = cards[p]
        assert card is not None  # a returned card was public: checked against its ciphertext
        positions.append(AuditedPosition(p, card, pos.deck, pos.op, pos.owner, pos.zone))
    dealt: list[list[int]] = [[] for _ in range(state.seats)]
    for index in sorted(state.at_op):
        if state.ops[index].kind in (DEAL, DEALS):
            for p in state.taken(index):
                owner = positions[p].owner
                assert owner is not None  # a deal's and a deals' positions have their seat
                dealt[owner].append(positions[p].card)
    return TableAudit(tuple(positions), decks, tuple(tuple(d) for d in dealt))


def _round_cards(
    state: TableState,
    x: int,
    cards: list[int | None],
    created: frozenset[int],
    held: tuple[int, ...],
    decks: dict[str, DeckState],
    times: Times | None = None,
) -> dict[str, tuple[int, ...]]:
    """The table's cards: the positions ``held`` in its zones
    (``cards`` gives each position's) and its ``decks`` hold every ``created`` card exactly
    once. Returns each deck's cards, top first."""
    seen: dict[int, str] = {}

    def place(card: int | None, where: str, blame: tuple[int, tuple[bytes, ...]]) -> int:
        if card is None or card not in created or card in seen:
            seat, evidence = blame
            what = "no card" if card is None else f"card {card}, also {seen.get(card, 'unknown')}"
            raise DeckFault(seat, f"audit: {where} holds {what}", evidence)
        seen[card] = where
        return card

    for p in held:
        place(cards[p], f"position {p}", _shuffler(state, state.positions[p].from_raws))
    out: dict[str, tuple[int, ...]] = {}
    for name in sorted(decks):
        deck = decks[name]
        blame = _shuffler(state, deck.source_raws)
        out[name] = tuple(
            place(_decrypt(c, a, x, state.num_cards, times), f"deck {name}[{t}]", blame)
            for t, (a, c) in enumerate(zip(deck.a, deck.c, strict=True))
        )
    missing = sorted(created - set(seen))
    if missing:
        raise DeckFault(0, f"audit: cards {missing} are lost")  # pragma: no cover - proofs held
    return out


def _secret_mul(secret: int, point: bytes) -> bytes:
    return group.mul(secret.to_bytes(32, "little"), point)


def _shuffler(state: TableState, raws: tuple[bytes, ...]) -> tuple[int, tuple[bytes, ...]]:
    """Who made the ciphertexts in question: the signer of the last shuffle (a card that is not
    there can only come from a shuffle whose proof was forged)."""
    for (_, seat), sent in state.slots.items():
        if raws and sent.raw == raws[0]:
            return seat, raws
    return 0, raws  # pragma: no cover - a public start always decrypts


def audit_record(
    table_id: bytes,
    round_no: int,
    seats: int,
    num_cards: int,
    codec: Codec,
    ops: Iterable[TableOp],
    raws: Sequence[bytes],
) -> TableAudit:
    """Replay a record (the operations and the transcript) and audit it completely."""
    state = TableState(table_id, round_no, seats, num_cards)
    for op in ops:
        state.push(op)
    for raw in raws:
        env = codec.open(raw)
        state.add(env.seat, env.kind, env.body, env.raw)
        advance(state)
    advance(state)
    if not state.finished:
        prove_held(state)  # a pass held before the silence is judged before the silence
        late = waiting(state)
        current = state.current
        kind = (
            "table_key"
            if state.joint_key is None or current is None
            else EXPECTED_KIND[current.kind]
        )
        seat = late[0] if late else 0
        raise DeckFault(seat, f"audit: no {kind} message for operation {state.done}")
    return audit_state(state)
