"""``druids audit`` for LAN game records: the whole game re-checked from the signed messages alone.

On top of the wire-level checks (every signature, sequence number and link, via
``wire.audit``) and the schedule (``audit_schedule``: step types, canonical order, step heads, the
stop tail), this recomputes the seat-order coin flip, every round's mental deal from the
revealed secrets (``deck.audit_transcript``: commitments, keys, every shuffle, every share and
opening; a round cut short gets the public checks of ``audit_public``), and replays every move
through the rules engine with the whole deal known, checking that each played card was opened by
its player. (Acknowledgements are unsigned receipts between live peers, never part of a record.)
The verdict is one of ``protocol.md`` §9's: the first problem (message index, seat at fault)
makes a record invalid, unless it is the very fault the record's stop names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from druids_p2p.deck import DeckError, DeckFault, Envelope, MalformedMessage
from druids_p2p.deck import audit_transcript as deck_audit
from druids_p2p.games.seam import CardTableRuleset, GameState, InvalidDeal
from druids_p2p.net.audit_card_table import CardTableReplay
from druids_p2p.net.audit_public import check_public
from druids_p2p.net.audit_schedule import ScheduleWalk
from druids_p2p.net.audit_stop import DECK_TYPES, Owing, StopTail
from druids_p2p.net.codec import deck_envelope
from druids_p2p.net.continuation import (
    carried_in_play_order,
    carried_rounds,
    winners_of,
    with_carried,
)
from druids_p2p.net.game_result import result_problem
from druids_p2p.net.moves import MoveRefused, accept_move, play_accepted
from druids_p2p.net.seating import confirm_contradiction, seat_list_fault
from druids_p2p.net.table_round import deal_params
from druids_p2p.rulesets import CARD_TABLE_RULESETS, dealt_ruleset, table_options
from druids_p2p.wire import Message, MsgType, RecordError, read_record
from druids_p2p.wire.audit import AuditProblem, AuditReport, AuditStop, verify_chain
from druids_p2p.wire.keys import fingerprint


def audit_file(path: Path) -> AuditReport:
    """Audit a table's record file; never raises."""
    try:
        read = read_record(path)
    except RecordError as exc:
        return AuditReport(problem=AuditProblem(str(exc), unreadable=True))
    if not read.messages:
        why = f"record {read.tail}" if read.tail else "empty record: no seat message"
        return AuditReport(problem=AuditProblem(why, 0, unreadable=True))
    return audit_messages(read.messages, read.tail)


def audit_messages(raws: Sequence[bytes], tail: str | None = None) -> AuditReport:
    """Audit a record's entries in the order ``protocol.md`` §9 ("Offline audit") defines: the
    chain, the schedule and the stop tail, the seating, then each round (deal, then moves with
    every hand known). A problem the record's own stop names (its recorder's abort blames the same
    seat, in the round the record stops in) is the reason it stopped: a *stopped* verdict with
    the evidence checked, not an invalid record."""
    report = AuditReport(messages=len(raws))
    audit: _TableAudit | None = None
    try:
        transcript = verify_chain(raws)
        report.table_id = transcript.table_id
        if tail is not None:
            raise AuditProblem(f"record {tail}", len(raws))
        messages = list(transcript.messages)
        audit = _TableAudit(messages, report)
        card_table = audit.card_rules is not None  # its steps: net/audit_card_table.py
        walk = ScheduleWalk(transcript, audit.options.rounds, seating_only=card_table)
        audit.tail.start = walk.run()
        audit.run(walk)
    except AuditProblem as problem:
        stop = audit.stopped_on(problem) if audit is not None else None
        if stop is None:
            report.problem = problem
        else:
            report.stop = stop
    return report


def check_seating(messages: Sequence[Message], keys: tuple[bytes, ...], until: int) -> None:
    """The seating's content up to message ``until`` (protocol.md §6): the seat list is the
    seats' own word, each confirmation agrees with its signer's join, each nonce opens its
    commitment; for every game a table plays. Raises :class:`AuditProblem`."""
    seat_msg = messages[0]
    listed = seat_list_fault(seat_msg)
    if listed is not None:  # the seat list is not the seats' own word: the host's fault
        raise AuditProblem(listed, 0, keys.index(seat_msg.sender))
    confirms: dict[bytes, Message] = {}
    for index in range(1, until):
        msg = messages[index]
        if msg.type is MsgType.SEAT_CONFIRM:
            wrong = confirm_contradiction(seat_msg, msg)
            if wrong is not None:
                raise AuditProblem(
                    f"seat confirmation names {wrong}, which its signer's own word does not",
                    index,
                    keys.index(msg.sender),
                )
            confirms[msg.sender] = msg
        elif msg.type is MsgType.SEAT_NONCE:
            confirm = confirms.get(msg.sender)
            if (
                confirm is None
                or hashlib.sha256(msg.body["nonce"]).digest() != (confirm.body["commit"])
            ):
                raise AuditProblem(
                    "seat nonce does not match its commitment", index, keys.index(msg.sender)
                )
        elif msg.type is not MsgType.ABORT:
            raise AuditProblem(f"{msg.type.label} before the seats were fixed", index)


class RecordCodec:
    """Opens deck messages of a verified record for the deck's audit (seats in play order):
    the audit and the replay viewer both recompute deals from records through it."""

    def __init__(self, messages: dict[bytes, Message], order: tuple[bytes, ...]) -> None:
        self._messages = messages
        self._order = order

    @property
    def seat(self) -> int:
        return 0

    def seal(self, kind: str, body: dict[str, object]) -> bytes:
        raise NotImplementedError("an auditor never signs")

    def open(self, raw: bytes) -> Envelope:
        msg = self._messages.get(raw)
        env = None
        if msg is not None and msg.sender in self._order:
            env = deck_envelope(msg, self._order.index(msg.sender))
        if env is None:
            raise MalformedMessage("not a deck message of this record")
        return env


class _TableAudit:
    def __init__(self, messages: list[Message], report: AuditReport) -> None:
        self.messages = messages
        self.report = report
        seat = messages[0]
        self.keys: tuple[bytes, ...] = tuple(seat.body["seats"])
        self.names = dict(zip(self.keys, seat.body["names"], strict=True))
        try:
            self.ruleset, self.options = table_options(seat.body["options"])
        except ValueError as exc:
            sender = self.keys.index(seat.sender) if seat.sender in self.keys else None
            raise AuditProblem(f"table options are not playable: {exc}", 0, sender) from None
        self.card_rules = CARD_TABLE_RULESETS.get(self.ruleset)
        """A game at a mental card table (Druids 2004), replayed by ``audit_card_table``."""
        if self.card_rules is None:
            self.rules = dealt_ruleset(self.ruleset)
        self.table_id = seat.table_id
        self.order: tuple[bytes, ...] = ()
        self.by_raw = {m.raw: m for m in messages}
        self.owing: Owing | None = None
        """What the step the record stops in still waits for (None if it stops between steps)."""
        self.tail = StopTail(messages, len(messages), self.names, self.seat_or_list)
        """The stop tail (where ``audit_schedule`` found it begins): the recorder's own last
        messages and the aborts."""
        self.rounds_checked = False
        """The chain and the schedule held (steps 1-3): a problem found from now on (seating,
        deal, moves) may be the reason the record's stop gives."""

    def seat(self, key: bytes) -> int | None:
        return self.order.index(key) if key in self.order else None

    def run(self, walk: ScheduleWalk) -> None:
        """The content of what ``walk`` found in place: the seating, each round, the result."""
        end = len(self.messages)
        self.rounds_checked = True
        check_seating(self.messages, self.keys, end if walk.seated_at is None else walk.seated_at)
        if walk.seated_at is None:
            self._finish_unseated()
            return
        self.order = walk.order
        self.report.players = [
            {"seat": i, "name": self.names[k], "public_key": k.hex(), "fingerprint": fingerprint(k)}
            for i, k in enumerate(self.order)
        ]
        if self.card_rules is not None:
            self._card_table(walk, self.card_rules)
            return
        o = self.options
        game = self.rules.new_game(o.players, variant=o.variant, rounds=o.rounds)
        codec = RecordCodec(self.by_raw, self.order)
        index = walk.seated_at
        starts = walk.round_starts
        for r, start in enumerate(starts):
            after = starts[r + 1] if r + 1 < len(starts) else walk.results_at
            index = self._round(r, start, end if after is None else after, game, codec)
            if self.owing is not None or (
                index < end and self.messages[index].type is MsgType.ABORT
            ):
                break  # the table stopped in this round
        carried = carried_rounds(self.messages[0])  # a continued table's (continuation.py)
        totals = with_carried(game.totals, self.order, carried)
        winners = None if game.winners is None else winners_of(totals)
        self.report.round_scores = carried_in_play_order(self.order, carried) + game.round_scores
        self.report.totals = totals
        self.report.winners = winners
        if game.game_over and self.owing is None:
            assert winners is not None
            index = self._results(index, totals, winners)
            index = max(index, min(self.tail.start, len(self.messages)))
        self.report.complete = game.game_over and self.owing is None
        for i in range(index, min(self.tail.start, len(self.messages))):
            msg = self.messages[i]
            raise AuditProblem(f"{msg.type.label} after the game ended", i, self.seat(msg.sender))
        self._stopped()

    def _card_table(self, walk: ScheduleWalk, rules: CardTableRuleset) -> None:
        """A game at a mental card table: replayed with every card known, then the result."""
        replay = CardTableReplay(self.messages, walk, rules, self.options.players)
        try:
            replay.run()
        except AuditProblem:  # perhaps what the record's stop names: its aborts, for stopped_on
            aborts = len(self.messages)
            while aborts > 0 and self.messages[aborts - 1].type is MsgType.ABORT:
                aborts -= 1
            self.tail.start = aborts
            raise
        finally:
            self.owing = replay.owing
            self.report.totals = replay.copy.totals
        self.report.complete = replay.complete
        self.report.winners = replay.copy.winners if replay.complete else None
        end = min(self.tail.start, len(self.messages))
        if replay.blind_at is not None:  # the rest is not replayed: only its stop tail is read
            # (the first index from replay.i on where the tail begins; None: the record does
            # not end in an abort, so it has no tail)
            start = None if walk.tail_from is None else max(replay.i, walk.tail_from)
            replay.i = start if start is not None and start < end else len(self.messages)
        if replay.i < len(self.messages) and walk.is_tail(replay.i):
            walk.check_tail(replay.i)
            self.tail.start = end = replay.i
        for i in range(replay.i, end):
            msg = self.messages[i]
            raise AuditProblem(f"{msg.type.label} after the game ended", i, self.seat(msg.sender))
        self._stopped()

    def _results(self, index: int, totals: list[int], winners: list[int]) -> int:
        """The result step (protocol.md §7): each seat in play order signs what the game gives
        (a continued table's carried rounds included)."""
        signed: set[int] = set()
        for seat in range(self.options.players):
            if index >= min(len(self.messages), self.tail.start):
                break  # the record ends, or its stop tail begins, inside the step
            msg = self.messages[index]
            if msg.type is not MsgType.RESULT or self.seat(msg.sender) != seat:
                raise AuditProblem(
                    f"{msg.type.label} where seat {seat}'s result was due",
                    index,
                    self.seat(msg.sender),
                )
            problem = result_problem(msg.body, totals, winners)
            if problem is not None:
                raise AuditProblem(f"{self.names[msg.sender]} {problem}", index, seat)
            signed.add(seat)
            index += 1
        if len(signed) < self.options.players:
            missing = frozenset(range(self.options.players)) - signed
            self.owing = Owing(MsgType.RESULT.label, missing)
        return index

    def _finish_unseated(self) -> None:
        confirmed = {m.sender for m in self.messages if m.type is MsgType.SEAT_CONFIRM}
        nonced = {m.sender for m in self.messages if m.type is MsgType.SEAT_NONCE}
        if len(confirmed) < len(self.keys):
            self.owing = Owing("seat_confirm", self._list_seats(set(self.keys) - confirmed))
        else:
            self.owing = Owing("seat_nonce", self._list_seats(set(self.keys) - nonced))
        self._stopped()

    def _list_seats(self, keys: set[bytes]) -> frozenset[int]:
        return frozenset(self.keys.index(k) for k in keys)

    def seat_or_list(self, key: bytes) -> int | None:
        """A key's play seat, or its place in the seat list before the order is fixed."""
        if self.order:
            return self.seat(key)
        return self.keys.index(key) if key in self.keys else None

    def _stopped(self) -> None:
        """The record ends in aborts: read its stop (``audit_stop.py``)."""
        read = self.tail.read(self.owing)
        if read is not None:
            self.report.aborted, self.report.stop = read

    def stopped_on(self, problem: AuditProblem) -> AuditStop | None:
        """The stop a content problem explains (``audit_stop.py``), once steps 1-3 held."""
        if not self.rounds_checked:
            return None
        read = self.tail.explains(problem)
        if read is None:
            return None
        self.report.aborted, stop = read
        return stop

    def _round(self, r: int, index: int, end: int, game: GameState, codec: RecordCodec) -> int:
        """Audit round ``r``: messages ``index`` to ``end`` (where the walk found it; the stop
        tail's, up to its first abort, when the record stops in it); returns the index after it."""
        n = self.options.players
        deck_raws: list[bytes] = []
        moves: list[tuple[int, Message]] = []
        ready: dict[int, tuple[int, Message]] = {}
        sent: dict[tuple[MsgType, int], set[int]] = {}
        """(type, pass) -> the seats that sent it this round (pass 0 for all but shuffles)."""
        reveals = 0
        while index < end and reveals < n:
            msg = self.messages[index]
            if msg.type is MsgType.ABORT:
                break
            if msg.type in DECK_TYPES:
                if msg.body.get("round") != r:
                    raise AuditProblem(
                        f"{msg.type.label} for round {msg.body.get('round')} in round {r}",
                        index,
                        self.seat(msg.sender),
                    )
                seat_of = self.seat(msg.sender)
                if seat_of is not None:
                    slot = (msg.type, int(msg.body.get("pass", 0)))
                    sent.setdefault(slot, set()).add(seat_of)
                deck_raws.append(msg.raw)
                if msg.type is MsgType.DECK_REVEAL:
                    reveals += 1
            elif msg.type is MsgType.READY:
                seat_of = self.seat(msg.sender)
                if msg.body["round"] != r or seat_of is None:
                    raise AuditProblem("ready for another round", index, seat_of)
                sent.setdefault((MsgType.READY, 0), set()).add(seat_of)
                ready[seat_of] = (index, msg)
                if "open" in msg.body:
                    deck_raws.append(msg.raw)  # the holder's Gaia opening
            elif msg.type is MsgType.MOVE:
                if msg.body["round"] != r:
                    raise AuditProblem("move for another round", index, self.seat(msg.sender))
                if "open" in msg.body:
                    deck_raws.append(msg.raw)  # the deck audits the opening it carries
                moves.append((index, msg))
            else:
                raise AuditProblem(f"unexpected {msg.type.label}", index, self.seat(msg.sender))
            index += 1
        params = deal_params(self.table_id, r, n, self.ruleset)
        shown = [seat for seat, (_, msg) in ready.items() if "open" in msg.body]
        if reveals < n:
            self.owing = self._owing(sent, bool(moves), shown)
            try:  # what every peer checked on receipt needs no secret (audit_public.py)
                check_public(params, deck_raws, codec)
            except DeckFault as exc:
                where = self._index_of(exc.evidence[0]) if exc.evidence else None
                raise AuditProblem(f"round {r + 1} deal: {exc.reason}", where, exc.seat) from None
            return index
        try:
            result = deck_audit(params, deck_raws, codec)
        except DeckFault as exc:
            where = self._index_of(exc.evidence[0]) if exc.evidence else None
            raise AuditProblem(f"round {r + 1} deal: {exc.reason}", where, exc.seat) from None
        except DeckError as exc:
            raise AuditProblem(f"round {r + 1} deal: {exc}") from None
        try:
            game.start_round([list(h) for h in result.hands])
        except InvalidDeal as exc:
            raise AuditProblem(f"round {r + 1}: the deal is impossible: {exc}") from None
        self._moves(game, moves, ready, {(o.seat, o.position): o.card for o in result.opened})
        if not game.round_over:
            self._audited_early(r, result.hands, ready, deck_raws)
        return index

    def _moves(
        self,
        game: GameState,
        moves: list[tuple[int, Message]],
        ready: dict[int, tuple[int, Message]],
        opened: dict[tuple[int, int], int],
    ) -> None:
        """Every move of a round dealt with every hand known, accepted as the table accepts one
        (``net/moves.py``): in turn, each played card opened by its player, the lead with the
        lead card shown at ready, and legal."""
        lead = self.rules.lead_card
        for index, (msg_index, msg) in enumerate(moves):
            seat = self.seat(msg.sender)
            if seat is None:
                raise AuditProblem("a move from a key without a seat", msg_index)
            opens = "open" in msg.body
            card = opened.get((seat, int(msg.body["open"]["pos"]))) if opens else None
            shown = ready.get(seat, (0, msg))[1].body.get("open")
            try:
                accepted = accept_move(
                    self.rules,
                    game,
                    seat,
                    msg.body["move"],
                    index=index,
                    opens=opens,
                    card=card,
                    lead_shown=shown is not None and opened.get((seat, shown["pos"])) == lead,
                    msg_hash=msg.hash,
                    at=msg_index,
                )
            except MoveRefused as refused:
                raise AuditProblem(refused.reason, msg_index, seat) from None
            play_accepted(game, accepted)

    def _audited_early(
        self,
        r: int,
        hands: Sequence[Sequence[int]],
        ready: dict[int, tuple[int, Message]],
        deck_raws: list[bytes],
    ) -> None:
        """Round ``r`` was revealed before it ended (an audit, protocol.md §7) and the deck's
        audit found no cheat: whoever made the audit necessary is at fault."""
        n = self.options.players
        if len(ready) == n and not any("open" in m.body for _, m in ready.values()):
            holder = next(s for s, hand in enumerate(hands) if self.rules.lead_card in hand)
            raise AuditProblem(
                f"round {r + 1}: seat {holder} held Gaia but its ready did not show it",
                ready[holder][0],
                holder,
            )
        first = next(
            (self.by_raw[raw] for raw in deck_raws if self.by_raw[raw].type is MsgType.DECK_REVEAL),
            None,
        )
        if first is None:
            raise AuditProblem(f"round {r + 1} was revealed before it ended")
        raise AuditProblem(
            f"round {r + 1}: {self.names[first.sender]} called an audit (revealed before the "
            "round ended), but the deal is sound",
            self._index_of(first.raw),
            self.seat(first.sender),
        )

    def _owing(
        self,
        sent: dict[tuple[MsgType, int], set[int]],
        moved: bool,
        shown: list[int],
    ) -> Owing | None:
        """A round cut short (crash or abort): which message its schedule (``protocol.md`` §5)
        still waited for, and from whom. Its hands are unknown, so its moves are not replayed;
        a stop during play (``moved``) names no debt here, a stop in the reveal step does."""
        n = self.options.players
        everyone = frozenset(range(n))

        def missing(msg_type: MsgType, pass_no: int = 0) -> frozenset[int]:
            return everyone - sent.get((msg_type, pass_no), set())

        if sent.get((MsgType.DECK_REVEAL, 0)):
            return Owing(MsgType.DECK_REVEAL.label, missing(MsgType.DECK_REVEAL))
        if moved:
            return None
        for msg_type in (MsgType.DECK_COMMIT, MsgType.DECK_KEY):
            if missing(msg_type):
                return Owing(msg_type.label, missing(msg_type))
        for seat in range(n):  # one pass, each seat in turn
            if seat in missing(MsgType.DECK_SHUFFLE, 1):
                return Owing(MsgType.DECK_SHUFFLE.label, frozenset({seat}))
        for msg_type in (MsgType.DECK_SALT, MsgType.DECK_SHARES, MsgType.READY):
            if missing(msg_type):
                return Owing(msg_type.label, missing(msg_type))
        if len(shown) == 1:  # the lead step names the seat that showed Gaia
            return Owing(MsgType.MOVE.label, frozenset(shown), human=True)
        return None

    def _index_of(self, raw: bytes) -> int | None:
        for i, msg in enumerate(self.messages):
            if msg.raw == raw:
                return i
        return None
