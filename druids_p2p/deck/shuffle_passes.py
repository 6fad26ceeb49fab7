"""The card-table operations whose messages are checked in one batch once the last is in.

A shuffle's passes and a deals' ``table_shares`` are each batched, one weighted sum for all,
before anything is drawn or used (deck.md §10.2, §8.3). Kept apart from ``table_ops`` because the
batch, its fallback blame and the silent-seat check are one piece of reasoning (deck.md §10.2).
"""

from __future__ import annotations

from collections.abc import Mapping

from druids_p2p.deck.cards import Deck
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.lincomb import Aside
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.proofs import (
    SharesTerms,
    shares_batch_holds,
    shares_challenge_holds,
    shares_terms,
    verify_open,
)
from druids_p2p.deck.shuffle_proof import OwnShuffle, ShuffleStatement, verify_shuffles
from druids_p2p.deck.table_messages import (
    DEALS,
    PLAY,
    SHOW,
    SHUFFLE,
    SeatProof,
    TableMessage,
    TableOp,
    TableShareMsg,
    TableSharesMsg,
    TableShuffleMsg,
)
from druids_p2p.deck.table_state import Sent, TableState


def shuffle(state: TableState, index: int, op: TableOp, own: OwnShuffle | None = None) -> bool:
    """Each seat's pass in turn, taken as soon as it is well formed (checks 1-3 of deck.md
    §10.2): the next seat builds on it before anybody has checked its proof. Every pass's proof
    is checked, all in one batch, before the shuffle completes, so before anything is taken
    from the deck or any share of it is published; the first bad pass in seat order is blamed."""
    deck = state.decks[op.deck]
    while deck.a and state.progress < state.seats:
        seat = state.progress
        sent = state.slots.get((index, seat))
        if sent is None:
            return False
        msg = sent.msg
        assert isinstance(msg, TableShuffleMsg)
        source = shuffle_input(state, index)
        if msg.deck != op.deck:
            reason = f"shuffles deck {msg.deck}, but operation {index} shuffles {op.deck}"
            raise _pass_fault(sent, reason)
        if len(msg.a) != len(source):
            raise _pass_fault(sent, f"{len(msg.a)} ciphertexts, expected {len(source)}")
        if len(set(zip(msg.a, msg.c, strict=True))) != len(msg.a):
            raise _pass_fault(sent, "the output repeats a ciphertext")
        state.progress += 1
    if deck.a:
        _prove_passes(state, index, op, own, state.seats)
        last = state.slots[(index, state.seats - 1)]
        assert isinstance(last.msg, TableShuffleMsg)
        deck.a, deck.c = list(last.msg.a), list(last.msg.c)
        deck.source_raws = (last.raw,)
    deck.shuffles += 1
    deck.unshuffled_returns = False
    return True


def shuffle_input(state: TableState, index: int) -> Deck:
    """The input of the next pass of shuffle ``index`` (in progress): the deck as the shuffle
    began for seat 0, else the last accepted pass's output."""
    if state.progress == 0:
        deck = state.decks[state.ops[index].deck]
        return Deck(tuple(deck.a), tuple(deck.c))
    msg = state.slots[(index, state.progress - 1)].msg
    assert isinstance(msg, TableShuffleMsg)
    return Deck(msg.a, msg.c)


_BAD_PROOF = "invalid proof of a shuffle (it is not a re-encrypted permutation of its input)"


def _pass_fault(sent: Sent[TableMessage], reason: str, *context: bytes) -> DeckFault:
    return DeckFault(sent.seat, f"table_shuffle: {reason}", (sent.raw, *context))


def prove_held(state: TableState, own: Mapping[int, OwnShuffle] | None = None) -> None:
    """Check now the proofs of the passes a shuffle in progress holds (its first
    ``state.progress``), which it would otherwise check with the rest once the last pass is in,
    or of the ``table_shares`` a deals in progress holds (:func:`prove_held_shares`).
    Who asks: whoever is about to blame a seat for not sending its message (a deadline, the
    audit of a record that stops there), so that a bad one before it is blamed first, as the
    table would have once the operation completed. :class:`DeckFault` on the first bad one."""
    prove_held_shares(state)
    op = state.current
    if op is None or op.kind != SHUFFLE or state.begun != state.done or not state.progress:
        return
    index = state.done
    if state.joint_key is not None and state.decks[op.deck].a:
        _prove_passes(state, index, op, None if own is None else own.get(index), state.progress)


def _prove_passes(
    state: TableState, index: int, op: TableOp, own: OwnShuffle | None, held: int
) -> None:
    """The first ``held`` passes of shuffle ``index`` but this state's own, checked in one
    batch (``verify_shuffles``: one random linear combination of every equation of every proof,
    M. Bellare, J. Garay, T. Rabin, "Fast Batch Verification for Modular Exponentiation and
    Digital Signatures", EUROCRYPT 1998, with full-size weights); only if the batch fails, pass
    by pass in seat order, to blame the first bad one with the evidence a judge needs (deck.md
    §10.2 check 4)."""
    joint = state.joint_key
    assert joint is not None
    deck = state.decks[op.deck]
    params = state.context(b"shuffle", op.deck, index)
    pass_no = deck.shuffles + 1
    source = Deck(tuple(deck.a), tuple(deck.c))
    context: tuple[bytes, ...] = deck.source_raws
    todo: list[tuple[Sent[TableMessage], ShuffleStatement, tuple[bytes, ...]]] = []
    for seat in range(held):
        sent = state.slots[(index, seat)]
        msg = sent.msg
        assert isinstance(msg, TableShuffleMsg)
        out = Deck(msg.a, msg.c)
        if sent.raw not in state.own:
            todo.append((sent, ShuffleStatement(seat, pass_no, source, out, msg.proof), context))
        source, context = out, (sent.raw,)
    # every seat waits for this batch before the table goes on: half of its sum on the helper
    # thread, where there is a second core (lincomb.py)
    public = state.public()[1]
    statements = [st for _, st, _ in todo]
    if not todo or verify_shuffles(params, joint, statements, own, split=True, public=public):
        return
    for sent, st, made in todo:
        if not verify_shuffles(params, joint, [st], split=True):
            raise _pass_fault(sent, _BAD_PROOF, *made, *state.key_raws())


# --------------------------------------------------------------------------- a deals' shares
BAD_SHARES = "table_shares: invalid decryption share proof (one proof for a seat's cards)"


def owed_shares(state: TableState, index: int, seat: int) -> list[int]:
    """The positions of deal, deals or turn ``index`` (begun) whose share ``seat`` owes: every
    one not dealt to it, in position order."""
    return [p for p in state.taken(index) if state.positions[p].owner != seat]


def proven(
    state: TableState, params: DeckParams, seat: int, msg: TableShareMsg | TableSharesMsg
) -> bool:
    """The message's proof holds with ``seat``'s key: a ``table_share``'s of its one share (8.2),
    the challenge of each due proof of a ``table_shares`` (8.3; the equations on their ``T2``
    are checked with the deals' other ``table_shares`` once all are in,
    ``prove_deals``)."""
    if isinstance(msg, TableShareMsg):
        key, a = state.keys[seat].msg.key, state.positions[msg.position].a
        return verify_open(params, seat, msg.position, key, a, msg.share, (msg.e, msg.s))
    return all(challenge_holds(state, params, seat, msg, pr) for pr in due_proofs(state, msg))


def share_groups(state: TableState, positions: list[int]) -> dict[int, list[int]]:
    """owner -> the indexes into ``positions`` (a deals' positions) of that seat's, in seat
    order: the shares one proof of a ``table_shares`` covers (deck.md §8.3)."""
    groups: dict[int, list[int]] = {}
    for i, p in enumerate(positions):
        owner = state.positions[p].owner
        assert owner is not None  # a deals deals every position to a seat
        groups.setdefault(owner, []).append(i)
    return dict(sorted(groups.items()))


def proof_seats_fit(state: TableState, msg: TableSharesMsg, owed: list[int]) -> bool:
    """A ``table_shares`` carries one proof a seat it deals to, in seat order."""
    return [pr.seat for pr in msg.proofs] == list(share_groups(state, owed))


def check_proof_seats(
    state: TableState, seat: int, msg: TableSharesMsg, owed: list[int], raw: bytes
) -> None:
    """Check 1 of a ``table_shares`` (its shares' positions checked): its proofs' seats."""
    if not proof_seats_fit(state, msg, owed):
        want = list(share_groups(state, owed))
        why = f"proofs for seats {[pr.seat for pr in msg.proofs]}, but its shares are of "
        raise DeckFault(seat, f"{msg.KIND}: {why}positions dealt to seats {want}", (raw,))


def defer(state: TableState, index: int, seat: int, msg: TableSharesMsg) -> None:
    """Keep the proofs of ``seat``'s ``table_shares`` this state does not check during the
    deals (the shares of other seats' cards) for :func:`prove_unproven`."""
    due = {pr.seat for pr in due_proofs(state, msg)}
    for proof in msg.proofs:
        if proof.seat not in due:
            state.unproven.setdefault(proof.seat, []).append((index, seat))


def due_proofs(state: TableState, msg: TableSharesMsg) -> list[SeatProof]:
    """The proofs of ``msg`` this state checks during its deals: those of the shares of its own
    seat's cards (an auditor's: all); the others wait in ``state.unproven``."""
    viewer = state.viewer
    return [pr for pr in msg.proofs if viewer is None or pr.seat == viewer]


def _claim(
    state: TableState, seat: int, msg: TableSharesMsg, proof: SeatProof
) -> tuple[bytes, list[int], list[bytes], list[bytes], tuple[bytes, bytes, bytes]]:
    shares = msg.shares
    parts = [shares[i] for i in share_groups(state, [x.position for x in shares])[proof.seat]]
    positions = [part.position for part in parts]
    a_list = [state.positions[p].a for p in positions]
    d_list = [part.share for part in parts]
    return state.keys[seat].msg.key, positions, a_list, d_list, (proof.e, proof.s, proof.t2)


def challenge_holds(
    state: TableState, params: DeckParams, seat: int, msg: TableSharesMsg, proof: SeatProof
) -> bool:
    """The check of one proof of ``seat``'s ``table_shares`` (its positions and proofs' seats
    already checked): its challenge binds ``s·B − e·h`` and ``T2``
    (``proofs.shares_challenge_holds``)."""
    key, positions, a_list, d_list, triple = _claim(state, seat, msg, proof)
    return shares_challenge_holds(params, seat, key, positions, a_list, d_list, triple)


def keep_terms(
    state: TableState,
    params: DeckParams,
    seat: int,
    msg: TableSharesMsg,
    proof: SeatProof,
    raw: bytes,
) -> tuple[list[bytes], SharesTerms]:
    """The proof's part of a batch (its A list and terms), computed once (ahead of its step's
    end, when the net layer checks it early, or when it is checked) and kept by the message's
    raw bytes and the proof's seat."""
    key, positions, a_list, d_list, triple = _claim(state, seat, msg, proof)
    terms = state.share_terms.get((raw, proof.seat))
    if terms is None:
        terms = shares_terms(params, seat, key, positions, a_list, d_list, triple)
        state.share_terms[(raw, proof.seat)] = terms
    return a_list, terms


Claim = tuple[DeckParams, int, Sent[TableMessage], SeatProof]
"""One proof of a ``table_shares`` to check: its context, its sender, its message, the proof."""


def prove_deals(state: TableState, params: DeckParams, index: int, seats: tuple[int, ...]) -> None:
    """The due proofs (:func:`due_proofs`) of every other seat's ``table_shares`` of deals
    ``index`` (all stored, each one's challenge checked) in one batch; if it fails, each alone
    in seat order: :class:`DeckFault` on the first bad one, with its signed message and its key
    as evidence."""
    _prove(state, _due(state, params, index, seats))


def prove_held_shares(state: TableState) -> None:
    """Check now every proof still unproven of a completed deals, and the ``table_shares`` the
    deals in progress holds (they are otherwise checked together once the last is in): a caller
    about to blame a seat for not sending its own (or stopping on another peer's abort) asks
    first, so that a bad one before the silence is the one blamed."""
    prove_unproven(state)
    op = state.current
    if op is None or op.kind != DEALS or state.begun != state.done:
        return
    index = state.done
    held = tuple(sorted(seat for (i, seat) in state.checked if i == index))
    _prove(state, _due(state, state.context(b"share", op.deck, index), index, held), False)


def _due(state: TableState, params: DeckParams, index: int, seats: tuple[int, ...]) -> list[Claim]:
    out: list[Claim] = []
    for seat in seats:
        sent = state.slots[(index, seat)]
        if sent.raw not in state.own:
            assert isinstance(sent.msg, TableSharesMsg)
            out += [(params, seat, sent, proof) for proof in due_proofs(state, sent.msg)]
    return out


def prove_unproven(state: TableState, owner: int | None = None) -> None:
    """Check the share proofs of ``owner``'s cards (None: every seat's) left for later by the
    deals, before they are used; a failed batch is checked again one by one so the first bad
    sender is blamed, and a check already made aside is taken instead (deck.md §10.2)."""
    owners = sorted(state.unproven) if owner is None else [owner]
    for seat in owners:
        check = state.aside.pop(seat, None)
        if check is not None and _held(check[1]):
            # (a later deals may have added others since)
            left = [e for e in state.unproven.get(seat, ()) if e not in check[0]]
            state.unproven.pop(seat, None)
            if left:
                state.unproven[seat] = left
    _prove(state, unproven_claims(state, owners), challenge=True)
    for seat in owners:
        state.unproven.pop(seat, None)


def unproven_claims(state: TableState, owners: list[int]) -> list[Claim]:
    """The unchecked proofs of ``owners``' cards, in order of deals, sender and seat."""
    todo: list[tuple[int, int, int]] = []
    for seat in owners:
        todo += [(index, sender, seat) for index, sender in state.unproven.get(seat, ())]
    claims: list[Claim] = []
    for index, sender, seat in sorted(todo):
        sent = state.slots[(index, sender)]
        assert isinstance(sent.msg, TableSharesMsg)
        params = state.context(b"share", state.ops[index].deck, index)
        claims += [(params, sender, sent, pr) for pr in sent.msg.proofs if pr.seat == seat]
    return claims


def check_aside(state: TableState) -> bool:
    """Start checking every unchecked proof on the aside thread (``lincomb.aside``), one
    check for each seat whose cards they are (an opening needs only its owner's), unless such
    checks are under way or the table is dealing: each is taken by :func:`prove_unproven` when
    due, a failure checked there again to name the culprit. True if it started them."""
    current = state.current
    if not state.unproven or state.aside:
        return False
    if current is not None and current.kind not in (PLAY, SHOW):
        return False
    for seat in sorted(state.unproven):
        claims = unproven_claims(state, [seat])
        check = Aside(lambda claim: _claim_part(state, claim), claims, shares_batch_holds)
        state.aside[seat] = (list(state.unproven[seat]), check)
    return True


def _claim_part(state: TableState, claim: Claim) -> tuple[list[bytes], SharesTerms] | None:
    """A claim's challenge checked and its part of the batch, changing nothing (it runs beside
    the table: it reads only keys and positions' ``A``, which nothing changes once dealt)."""
    params, seat, sent, proof = claim
    msg = sent.msg
    assert isinstance(msg, TableSharesMsg)
    key, positions, a_list, d_list, triple = _claim(state, seat, msg, proof)
    if not shares_challenge_holds(params, seat, key, positions, a_list, d_list, triple):
        return None
    return a_list, shares_terms(params, seat, key, positions, a_list, d_list, triple)


def _held(check: Aside[Claim, tuple[list[bytes], SharesTerms]]) -> bool:
    """The check aside's answer, finished here if need be; one that raised is no answer."""
    try:
        return check.take()
    except Exception:  # as a thread's exception was: none, the claims checked again here
        return False


def _prove(
    state: TableState, claims: list[Claim], batch: bool = True, challenge: bool = False
) -> None:
    """The equations on ``T2`` of ``claims``: in one sum if ``batch``, and each alone if that
    fails or is not asked for; with their challenges first if ``challenge`` (proofs not checked
    when their message was taken); the first false one, in order, blamed."""
    if not claims:
        return
    parts = [_terms(state, claim) for claim in claims]
    if (
        batch
        and not (challenge and not all(_challenge(state, claim) for claim in claims))
        and shares_batch_holds(parts)
    ):
        return
    for claim, part in zip(claims, parts, strict=True):
        if (challenge and not _challenge(state, claim)) or not shares_batch_holds([part]):
            _, seat, sent, _ = claim
            raise DeckFault(seat, BAD_SHARES, (sent.raw, state.keys[seat].raw))


def _terms(state: TableState, claim: Claim) -> tuple[list[bytes], SharesTerms]:
    params, seat, sent, proof = claim
    assert isinstance(sent.msg, TableSharesMsg)
    return keep_terms(state, params, seat, sent.msg, proof, sent.raw)


def _challenge(state: TableState, claim: Claim) -> bool:
    params, seat, sent, proof = claim
    assert isinstance(sent.msg, TableSharesMsg)
    return challenge_holds(state, params, seat, sent.msg, proof)
