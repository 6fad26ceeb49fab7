"""A deals' ``table_shares`` (deck.md §8.3, §10.2 ``deals``): each one's challenge is checked as
soon as it is stored (a bad one convicts its signer at once), and the equation on ``T2`` of all of
them in one batch once the last is in, before the deals completes, so before any of their shares
is used; only if the batch fails, each alone in seat order, to blame the first bad one.

Why a batch: every seat checks every other seat's shares, and a deals' messages share their
``A_t`` (the positions dealt, each in the shares of every seat but its receiver), so one weighted
sum multiplies each ``A_t`` once for all the messages, not once a message. Kept apart from
:mod:`druids_p2p.deck.table_ops` as :mod:`~druids_p2p.deck.shuffle_passes` is: the batch, its
fallback and the check of the messages held when a seat falls silent are one piece of reasoning.
"""

from __future__ import annotations

from druids_p2p.deck.errors import DeckFault
from druids_p2p.deck.params import DeckParams
from druids_p2p.deck.proofs import (
    SharesTerms,
    shares_batch_holds,
    shares_challenge_holds,
    shares_terms,
)
from druids_p2p.deck.table_messages import DEALS, TableMessage, TableSharesMsg
from druids_p2p.deck.table_state import Sent, TableState

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
