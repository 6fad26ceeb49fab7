"""A table without the network: the engine and in-process rule bots, with a fixed deal.

Not what ``druids play`` runs (that is a real table of peers). It exists so the UI can be tested
and screenshotted on exact positions — a hand holding Gaia, a Sickle choice on tied piles — that a
mental-card deal cannot be made to produce.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from textual.message import Message

from druids_p2p.games.druids2017 import Game, GameOptions, deal_from_seed
from druids_p2p.games.druids2017.cards import card_domain
from druids_p2p.games.druids2017.notation import Move
from druids_p2p.games.druids2017.rule_bot import rule_move
from druids_p2p.tui.druids2017.snapshot import TableSnapshot, snapshot_from_game
from druids_p2p.tui.game_ui import MoveRejected, PeerEvent, Session, SessionEnded, TurnRequest
from druids_p2p.tui.widgets import in_your_words

Post = Callable[[Message], object]


class OfflineSession(Session):
    """Seat ``seat`` is the person; every other seat plays the rule bot's move at once."""

    title = "offline table"

    def __init__(
        self,
        post: Post,
        names: Sequence[str],
        *,
        seat: int = 0,
        options: GameOptions | None = None,
        deals: Sequence[list[list[int]]] = (),
        seed: int = 0,
        prefix: Sequence[int] = (),
        record: str = "(offline: no record)",
        title: str = "offline table",
    ) -> None:
        self.post = post
        self.title = title
        self.names = tuple(names)
        self.seat = seat
        self.game = Game(options or GameOptions(players=len(self.names)))
        self.deals = list(deals)
        self.seed = seed
        self.prefix = list(prefix)
        self.turn = 0
        self.record = record
        self.result: dict[str, Any] | None = None
        self.closed = False

    def _snapshot(self) -> TableSnapshot:
        return snapshot_from_game(self.game, self.seat, self.names)

    def _event(self, event: dict[str, Any]) -> None:
        """As the real peer's events: a snapshot that never offers a move (only a
        :class:`TurnRequest` does, with its number)."""
        self.post(PeerEvent(event, replace(self._snapshot(), my_turn=False, reasons={})))

    def start(self) -> None:
        names = ", ".join(f"{i}: {n}" for i, n in enumerate(self.names))
        self.post(PeerEvent({"event": "seated", "record": self.record, "text": names}, None))
        self._deal()
        for move in self.prefix:
            self._play(move)
        self._advance()

    def _deal(self) -> None:
        r = len(self.game.rounds)
        hands = self.deals[r] if r < len(self.deals) else deal_from_seed(self.seed + r, 4)
        if len(hands) != self.game.players:
            hands = deal_from_seed(self.seed + r, self.game.players)
        self.post(PeerEvent({"event": "round_started", "round": r}, None))
        self.game.start_round(hands)

    def _play(self, move: int) -> None:
        seat = self.game.to_move
        assert seat is not None
        self.game.play(move)
        token = Move.of(move).token()
        self._event({"event": "move", "seat": seat, "move": token})
        rnd = self.game.round
        assert rnd is not None
        if rnd.over:
            r = self.game.round_index
            scores = list(rnd.scores or [])
            self._event(
                {"event": "round_ended", "round": r, "scores": scores, "ended_by": rnd.ended_by}
            )
            if self.game.game_over:
                totals, winners = self.game.totals, self.game.winners
                self._event({"event": "game_over", "totals": totals, "winners": winners})
                self.result = {
                    "finished": True,
                    "aborted": None,
                    "blame": None,
                    "totals": totals,
                    "winners": winners,
                    "round_scores": self.game.round_scores,
                    "record": self.record,
                }
                self.post(PeerEvent({"event": "result", **self.result}, None))
                self.post(SessionEnded(self.result))
            else:
                self._deal()

    def _advance(self) -> None:
        """Bots move until it is the person's turn or the game is over."""
        while not self.game.game_over:
            seat = self.game.to_move
            if seat is None:
                return
            if seat == self.seat:
                self.turn += 1
                snap = self._snapshot()

                self.post(TurnRequest(replace(snap, turn=self.turn)))
                return
            self._play(rule_move(self.game.view(seat)))

    def close(self) -> None:
        """Leave, as the real peer reports it (peer/runner.py): the table stops with this seat's
        leaving as the reason (aborted, then the result), then the session ends."""
        if self.closed or self.game.game_over:
            return
        self.closed = True
        reason = f"{self.names[self.seat]} left the table"
        self.post(PeerEvent({"event": "aborted", "reason": reason, "blame": None}, None))
        self.result = {"finished": False, "aborted": reason, "blame": None, "record": self.record}
        self.post(PeerEvent({"event": "result", **self.result}, None))
        self.post(SessionEnded(self.result))

    def send_chat(self, text: str) -> str | None:
        """Shown in the log as at a real table; the in-process bots ignore it (as bots do)."""
        from druids_p2p.lan.peer_config import ChatRefused, check_text

        try:
            line = check_text(text)
        except ChatRefused as exc:
            return str(exc)
        name = self.names[self.seat]
        self.post(PeerEvent({"event": "chat", "seat": self.seat, "name": name, "text": line}, None))
        return None

    def submit(self, move: int, turn: int) -> None:
        if self.closed:
            return
        if turn != self.turn or self.game.to_move != self.seat:
            return
        reason = self.game.check(move)
        if reason is not None:
            self.post(MoveRejected(move, in_your_words(reason, self.seat) or reason))
            return
        self._play(move)
        self._advance()


Policy = Callable[[Game, random.Random], int]


def rule_policy(game: Game, rng: random.Random) -> int:
    seat = game.to_move
    assert seat is not None
    return rule_move(game.view(seat))


def random_policy(game: Game, rng: random.Random) -> int:
    return rng.choice(game.legal_moves())


def find_position(
    wanted: Callable[[Game], bool],
    players: int = 4,
    seeds: range = range(2000),
    policy: Policy = rule_policy,
) -> tuple[int, list[int]]:
    """(seed, moves) of the first position, over deals ``deal_from_seed(seed)`` played by
    ``policy``, where ``wanted(game)`` holds: an exact table to open an offline session on."""
    for seed in seeds:
        rng = random.Random(seed)
        game = Game(GameOptions(players=players, rounds=1))
        rnd = game.start_round(deal_from_seed(seed, players))
        moves: list[int] = []
        while not rnd.over:
            if wanted(game):
                return seed, moves
            move = policy(game, rng)
            moves.append(move)
            game.play(move)
    raise LookupError("no such position in these deals")


def must_follow(seat: int = 0, min_tricks: int = 0) -> Callable[[Game], bool]:
    """``seat`` is to move, a domain is led, and it holds that domain and another one."""

    def wanted(game: Game) -> bool:
        rnd = game.round
        if rnd is None or rnd.to_move != seat or rnd.pending_sickles or rnd.lead_domain < 0:
            return False
        if len(rnd.tricks) < min_tricks:
            return False
        domains = {card_domain(c) for c in rnd.hand(seat)}
        return rnd.lead_domain in domains and len(domains - {-1, rnd.lead_domain}) > 0

    return wanted


def pile_choice(seat: int = 0) -> Callable[[Game], bool]:
    """``seat`` must choose which tied pile its Sickle removes."""

    def wanted(game: Game) -> bool:
        rnd = game.round
        return rnd is not None and rnd.to_move == seat and rnd.pending_sickles > 0

    return wanted
