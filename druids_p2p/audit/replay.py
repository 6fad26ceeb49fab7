"""A record turned back into the game it holds, for druids replay: the audit's own replay of its
card tables, watched (who sat where, each round's deal once its final reveal is in, every move,
each seat's view when the record holds every secret), with the audit's verdict travelling with
it. Whose record it is comes from the peer home it sits in, or the seat the user names.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from druids_p2p.audit.audit import audit_messages
from druids_p2p.audit.audit_card_table import CardTableReplay
from druids_p2p.audit.schedule import ScheduleWalk
from druids_p2p.games.registry import RULESETS, default_name, table_options
from druids_p2p.games.seam import (
    MOVE,
    WORD,
    CardTableRuleset,
    CommonRuleset,
    GameMove,
    TableMove,
    TableOptions,
)
from druids_p2p.lan.seating import seat_order
from druids_p2p.table.codec import all_moves, moves_of, signed_token
from druids_p2p.wire import (
    Message,
    MsgType,
    RecordError,
    Transcript,
    WireError,
    decode,
    read_record,
)
from druids_p2p.wire.record import MAGIC
from druids_p2p.wire.transcript import AuditProblem, AuditReport, verify_chain, version_refusal


# A game at the mental card table read back from its record for ``druids replay``: a game of one
# round (Druids 2004) move by move (who played what, the card a face-down play put down, each
# seat's view after every move, and how the game ended); a game dealt round by round (Druids
# 2017) as its rounds (each round's hands as dealt and its moves, the game's JSON notation).
@dataclass(frozen=True)
class ReplayedPlay:
    """One move of the record, as signed."""

    seat: int
    """The play seat that made it."""
    token: str
    """The move as signed (a face-down play names only its zone: ``play slot:4``)."""
    card: int | None
    """The card a face-down play put down, known once every secret is in the record."""


@dataclass(frozen=True)
class ReplayedRound:
    number: int
    """0-based."""
    hands: tuple[tuple[int, ...], ...] | None
    """Each play seat's hand as dealt (card ids), known once the round's reveal is recorded."""
    moves: tuple[tuple[int, GameMove], ...]
    """(play seat, the game's move value) in the order the record holds them."""


@dataclass(frozen=True)
class CardTableGame:
    """The moves of a card table's record and each seat's view after each of them."""

    plays: tuple[ReplayedPlay, ...]
    views: tuple[tuple[Any, ...], ...] = field(repr=False)
    """``views[k][seat]``: the seat's view once the first ``k`` moves and everything they
    opened had settled (``views[0]``: before the first move); empty without the secrets."""
    totals: list[int] | None
    winners: list[int] | None
    ended_by: str | None
    complete: bool
    """The record holds the whole game, up to its result."""
    rounds: tuple[ReplayedRound, ...] = ()
    """A game read by rounds: each round's hands and moves (no ``views`` then)."""


def replay_card_table(
    transcript: Transcript, rules: CardTableRuleset, players: int, by_rounds: bool = False
) -> CardTableGame:
    """Replay a verified card table's record (see the module); never raises the audit's
    problems: the game is read up to the first one. ``by_rounds``: read it as its rounds."""
    seen: dict[int, tuple[Any, ...]] = {}

    def settled(replay: CardTableReplay) -> None:
        if replay.cards_known:  # the view of the last settling at a move count is kept
            seen[sum(map(len, replay.copy.log))] = tuple(
                replay.copy.view(s) for s in range(players)
            )

    walk = ScheduleWalk(transcript)
    with contextlib.suppress(AuditProblem):  # the audit names it; what is in place is read
        walk.run()
    if walk.seated_at is None:
        return CardTableGame((), (), None, None, None, False)
    _, options = table_options(transcript.messages[0].body["options"])
    watch = None if by_rounds else settled
    replay = CardTableReplay(transcript.messages, walk, rules, options, watch)
    with contextlib.suppress(AuditProblem):
        replay.run()
    plays = tuple(
        ReplayedPlay(
            m.seat, signed_token(m), None if m.position is None else replay.card_at(m.position, r)
        )
        for r, m in all_moves(replay.copy)
    )
    views: list[tuple[Any, ...]] = []
    for k in range(len(plays) + 1):  # a step of several words settles once, after the last
        later = [c for c in seen if c >= k]
        if not later:
            break
        views.append(seen[min(later)])
    copy = replay.copy
    return CardTableGame(
        plays=plays,
        views=tuple(views),
        totals=list(copy.totals),
        winners=None if copy.winners is None else list(copy.winners),
        ended_by=copy.ended_by,
        complete=replay.complete,
        rounds=_rounds(replay) if by_rounds else (),
    )


def _rounds(replay: CardTableReplay) -> tuple[ReplayedRound, ...]:
    """Every round the record reached (see the module), up to the first move that cannot be
    named (the audit names what is wrong there)."""
    out: list[ReplayedRound] = []
    for r, (state, _) in enumerate(replay.tables):
        moves: list[tuple[int, GameMove]] = []
        for m in moves_of(replay.copy, r):
            if m.kind == WORD:
                continue
            move = _named(replay, r, m)
            if move is None:
                break
            moves.append((m.seat, move))
        if not state.keys and not moves:
            break  # the record stops before this round's first message
        out.append(ReplayedRound(r, replay.dealt.get(r), tuple(moves)))
    return tuple(out)


def _named(replay: CardTableReplay, round_no: int, m: TableMove) -> GameMove | None:
    """The game's move a taken move is: its value, or the show of its card into its zone."""
    if m.kind == MOVE:
        return m.move
    assert m.position is not None
    card = m.card if m.card is not None else replay.card_at(m.position, round_no)
    if card is None:
        return None
    try:
        return replay.copy.shown_move(card, m.zone)
    except ValueError:
        return None


# A LAN table's record file turned back into the game it holds: who sat where, each round's deal
# (once that round's reveal is in the record) and every move, for ``druids replay RECORD``. Every
# game is read by the audit's own replay of its card tables (this module): a game
# dealt round by round (its rule set offers ``rounds``: Druids 2017) as its rounds, each round's
# hands as dealt and its moves (and so in the game's JSON notation), a game of one round (Druids
# 2004) move by move, with each seat's view after every move.
class RecordReplayError(Exception):
    """The file is a record but not one of a LAN table that can be replayed: one line."""


@dataclass(frozen=True)
class ReplayedGame:
    path: Path
    options: TableOptions
    names: tuple[str, ...]
    """By play seat."""
    keys: tuple[bytes, ...]
    owner: int | None
    """The play seat of the record's owner, if known."""
    rounds: tuple[ReplayedRound, ...]
    audit: AuditReport
    stopped: str | None
    """The reason of the abort that ends the record, if it ends in one."""
    ruleset: str = field(default_factory=default_name)
    """The rule set the seat message binds (its cards and moves are read and written by it)."""
    card_table: CardTableGame | None = None
    """A game of one round (Druids 2004): its moves and views (``rounds`` is empty)."""

    @property
    def rules(self) -> CommonRuleset:
        return RULESETS[self.ruleset]

    def notation(self) -> dict[str, Any] | None:
        """The revealed rounds in the JSON notation ``druids replay`` takes (docs/rules.md);
        None for a game of one round (its record holds no setup in the notation's terms)."""
        if self.card_table is not None:
            return None
        card = self.rules.format_card
        return {
            "players": self.options.players,
            "variant": self.options.variant,
            "rounds": [
                {
                    "hands": [[card(c) for c in hand] for hand in r.hands],
                    "moves": [m.token() for _, m in r.moves],
                }
                for r in self.rounds
                if r.hands is not None
            ],
        }

    def as_json(self) -> dict[str, Any]:
        """``druids replay RECORD --json``: the replayed game, headless."""
        card = self.rules.format_card
        out: dict[str, Any] = {
            "kind": "record",
            "game": self.ruleset,
            "record": str(self.path),
            "players": [{"seat": i, "name": n} for i, n in enumerate(self.names)],
            "owner": self.owner,
            "options": {
                "players": self.options.players,
                "variant": self.options.variant,
                "rounds": self.options.rounds,
            },
            "audit": self.audit.to_json(),
            "stopped": self.stopped,
            "rounds": [
                {
                    "round": r.number,
                    "revealed": r.hands is not None,
                    "hands": None
                    if r.hands is None
                    else [[card(c) for c in hand] for hand in r.hands],
                    "moves": [{"seat": s, "move": m.token()} for s, m in r.moves],
                }
                for r in self.rounds
            ],
            "notation": self.notation(),
        }
        played = self.card_table
        if played is not None:
            out |= {
                "moves": [
                    {
                        "seat": p.seat,
                        "move": p.token,
                        "card": None if p.card is None else card(p.card),
                    }
                    for p in played.plays
                ],
                "outcome": {
                    "complete": played.complete,
                    "totals": played.totals,
                    "winners": played.winners,
                    "ended_by": played.ended_by,
                },
            }
        return out


def is_record_file(path: Path) -> bool:
    """True if the file starts like a record (``druids replay`` tells records from notation)."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(MAGIC))
    except OSError:
        return False
    return head.startswith(MAGIC[:4])  # a cut or other-version header is still a record


def _public_key(identity_file: Path) -> bytes | None:
    try:
        data = json.loads(identity_file.read_text())
        return bytes.fromhex(str(data["public_key"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def owner_keys(path: Path) -> list[bytes]:
    """Who may own the record, most likely first: the identity of the peer home it is kept in
    (``<home>/tables/<id>/record.druids``), then this user's own (the terminal UI keeps its
    tables in a game folder, the identity in the user's data folder). Read, never created."""
    from druids_p2p.wire.identity import identity_path

    home = path.resolve().parent.parent.parent
    keys = [_public_key(home / "identity.json"), _public_key(identity_path())]
    return [k for k in keys if k is not None]


def read_game(path: Path, owner: bytes | None = None, seat: int | None = None) -> ReplayedGame:
    """Read, audit and replay a LAN table's record. ``seat`` (a play seat) overrides the owner
    found beside the record; raises :class:`RecordReplayError` with one line otherwise."""
    try:
        read = read_record(path)
    except RecordError as exc:
        raise RecordReplayError(str(exc)) from None
    refusal = version_refusal(read.messages, "replays")
    if refusal is not None:
        raise RecordReplayError(f"{path}: {refusal}")
    report = audit_messages(read.messages, read.tail)
    messages = _decoded(read.messages)
    if not messages or messages[0].type is not MsgType.SEAT:
        raise RecordReplayError(f"{path}: not a LAN table's record (no seat message first)")
    seat_msg = messages[0]
    keys = tuple(bytes(k) for k in seat_msg.body["seats"])
    names_by_key = dict(zip(keys, seat_msg.body["names"], strict=True))
    try:
        ruleset, options = table_options(seat_msg.body["options"])
    except ValueError as exc:
        raise RecordReplayError(f"{path}: the table's options are not playable: {exc}") from None
    nonces = {m.sender: m.body["nonce"] for m in messages if m.type is MsgType.SEAT_NONCE}
    seated = set(nonces) == set(keys)
    order = seat_order(seat_msg.table_id, keys, nonces) if seated else keys
    rules = RULESETS[ruleset]
    by_rounds = "rounds" in rules.table_flags  # a game dealt round by round: read as its rounds
    played = _card_table(read.messages[: len(messages)], rules, options.players, by_rounds)
    mine = [owner] if owner is not None else owner_keys(path)
    owner_seat = next((order.index(k) for k in mine if k in order), None)
    if seat is not None:
        if not 0 <= seat < options.players:
            raise RecordReplayError(f"--seat must be 0..{options.players - 1}, not {seat}")
        owner_seat = seat
    last = messages[-1]
    stopped = str(last.body.get("reason")) if last.type is MsgType.ABORT else None
    return ReplayedGame(
        path=path,
        options=options,
        names=tuple(str(names_by_key[k]) for k in order),
        keys=tuple(order),
        owner=owner_seat,
        rounds=played.rounds,
        audit=report,
        stopped=stopped,
        ruleset=ruleset,
        card_table=None if by_rounds else played,
    )


def _card_table(
    raws: Sequence[bytes], rules: CardTableRuleset, players: int, by_rounds: bool
) -> CardTableGame:
    """The card tables' rounds, or moves and views (this module), from the longest
    prefix of the record whose chain holds (the audit names where it breaks)."""
    try:
        transcript = verify_chain(raws)
    except AuditProblem as problem:
        index = problem.message_index
        try:
            transcript = verify_chain(raws[:index] if index else ())
        except AuditProblem:
            return CardTableGame((), (), None, None, None, False)
    return replay_card_table(transcript, rules, players, by_rounds)


def _decoded(raws: Sequence[bytes]) -> list[Message]:
    """The record's messages up to the first that does not verify (the audit names that one)."""
    out: list[Message] = []
    for raw in raws:
        try:
            out.append(decode(raw))
        except WireError:
            break
    return out
