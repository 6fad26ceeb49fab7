"""The card-table operations whose messages are checked in one batch once the last is in.

A shuffle's passes and a deals' ``table_shares`` are each batched, one weighted sum for all,
before anything is drawn or used (deck.md §10.2, §8.3). Kept apart from ``table_ops`` because the
batch, its fallback blame and the silent-seat check are one piece of reasoning (deck.md §10.2).
"""

from __future__ import annotations

from collections.abc import Mapping

from druids_p2p.deck.cards import Deck
from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.proofs import (
    SharesTerms,
    shares_batch_holds,
    shares_challenge_holds,
    shares_terms,
)
from druids_p2p.deck.shuffle_proof import OwnShuffle, ShuffleStatement, verify_shuffles
from druids_p2p.deck.table_messages import (
    DEALS,
    SHUFFLE,
    TableMessage,
    TableOp,
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
    if not todo or verify_shuffles(params, joint, [st for _, st, _ in todo], own, split=True):
        return
    for sent, st, made in todo:
        if not verify_shuffles(params, joint, [st], split=True):
            raise _pass_fault(sent, _BAD_PROOF, *made, *state.key_raws())


# --------------------------------------------------------------------------- a deals' shares
BAD_SHARES = "table_shares: invalid decryption share proof (one proof for all its shares)"


def _claim(
    state: TableState, seat: int, msg: TableSharesMsg
) -> tuple[bytes, list[int], list[bytes], list[bytes], tuple[bytes, bytes, bytes]]:
    positions = [part.position for part in msg.shares]
    a_list = [state.positions[p].a for p in positions]
    d_list = [part.share for part in msg.shares]
    return state.keys[seat].msg.key, positions, a_list, d_list, (msg.e, msg.s, msg.t2)


def challenge_holds(state: TableState, params: DeckParams, seat: int, msg: TableSharesMsg) -> bool:
    """The check of ``seat``'s ``table_shares`` as it arrives (its positions already checked):
    its challenge binds ``s·B − e·h`` and ``T2`` (``proofs.shares_challenge_holds``)."""
    key, positions, a_list, d_list, proof = _claim(state, seat, msg)
    return shares_challenge_holds(params, seat, key, positions, a_list, d_list, proof)


def keep_terms(
    state: TableState, params: DeckParams, seat: int, msg: TableSharesMsg, raw: bytes
) -> SharesTerms:
    """The message's part of the batch, computed once (ahead of its step's end, when the net
    layer checks it early, or when the step completes) and kept by its raw bytes."""
    terms = state.share_terms.get(raw)
    if terms is None:
        key, positions, a_list, d_list, proof = _claim(state, seat, msg)
        terms = shares_terms(params, seat, key, positions, a_list, d_list, proof)
        state.share_terms[raw] = terms
    return terms


def prove_deals(state: TableState, params: DeckParams, index: int, seats: tuple[int, ...]) -> None:
    """Every other seat's ``table_shares`` of deals ``index`` (all stored, each one's challenge
    checked) in one batch; if it fails, each alone in seat order: :class:`DeckFault` on the
    first bad one, with its signed message and its key as evidence."""
    _prove(state, params, [(seat, state.slots[(index, seat)]) for seat in seats])


def prove_held_shares(state: TableState) -> None:
    """Check now the ``table_shares`` the deals in progress holds (they are otherwise checked
    together once the last is in): a caller about to blame a seat for not sending its own asks
    first, so that a bad one before the silence is the one blamed."""
    op = state.current
    if op is None or op.kind != DEALS or state.begun != state.done:
        return
    index = state.done
    held = sorted(seat for (i, seat) in state.checked if i == index)
    todo = [(seat, state.slots[(index, seat)]) for seat in held]
    _prove(state, state.context(b"share", op.deck, index), todo, batch=False)


def _prove(
    state: TableState,
    params: DeckParams,
    todo: list[tuple[int, Sent[TableMessage]]],
    batch: bool = True,
) -> None:
    """The equations on ``T2`` of ``todo`` (but this seat's own): in one sum if ``batch``, and
    each alone if that fails or is not asked for; the first false one, in seat order, blamed."""
    todo = [(seat, sent) for seat, sent in todo if sent.raw not in state.own]
    parts: list[tuple[list[bytes], SharesTerms]] = []
    for seat, sent in todo:
        msg = sent.msg
        assert isinstance(msg, TableSharesMsg)
        a_list = [state.positions[part.position].a for part in msg.shares]
        parts.append((a_list, keep_terms(state, params, seat, msg, sent.raw)))
    if not parts or (batch and shares_batch_holds(parts)):
        return
    for (seat, sent), part in zip(todo, parts, strict=True):
        if not shares_batch_holds([part]):
            raise DeckFault(seat, BAD_SHARES, (sent.raw, state.keys[seat].raw))
