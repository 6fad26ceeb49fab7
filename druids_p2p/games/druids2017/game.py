"""A whole game: five rounds, totals and winners, over :class:`.rules.Round`."""

from __future__ import annotations

from dataclasses import dataclass

from druids_p2p.games.druids2017.cards import (
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    N_DOMAINS,
    PILE,
    ROUNDS_PER_GAME,
)
from druids_p2p.games.druids2017.rules import Round, TrickRecord
from druids_p2p.games.druids2017.view import PlayerView
from druids_p2p.games.seam import IllegalMove, InvalidDeal


@dataclass(frozen=True, slots=True)
class GameOptions:
    """Options fixed for a whole game (and bound into a LAN table's id)."""

    players: int = 4
    variant: bool = False
    """Gaia's light side may be chosen (off by default)."""
    rounds: int = ROUNDS_PER_GAME

    def __post_init__(self) -> None:
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise ValueError(f"Druids is for 3 to 5 players, not {self.players}")
        if not 1 <= self.rounds <= ROUNDS_PER_GAME:
            raise ValueError(f"a game has 1 to {ROUNDS_PER_GAME} rounds, not {self.rounds}")

    @property
    def hand_size(self) -> int:
        return HAND_SIZE[self.players]


class Game:
    """Create with options, ``start_round(hands)`` for each deal, then ``play`` moves.

    Every peer, bot and replay drives the rules through this class (or the generic
    :class:`~druids_p2p.games.seam.GameState` protocol it satisfies).
    """

    def __init__(self, options: GameOptions | None = None) -> None:
        self.options = options or GameOptions()
        self.rounds: list[Round] = []

    # ------------------------------------------------------------- lifecycle
    @property
    def players(self) -> int:
        return self.options.players

    @property
    def round(self) -> Round | None:
        """The round being played (or the last one), None before the first deal."""
        return self.rounds[-1] if self.rounds else None

    @property
    def round_index(self) -> int:
        return len(self.rounds) - 1

    @property
    def round_ended_by(self) -> str | None:
        """How the last round ended (None while it is under way or before the first deal)."""
        rnd = self.round
        return None if rnd is None or not rnd.over else rnd.ended_by

    @property
    def round_over(self) -> bool:
        """True when no round is under way (none dealt yet, or the last one has ended)."""
        rounds = self.rounds  # (asked on every message at a table: no property in between)
        return not rounds or rounds[-1].ended_by is not None

    @property
    def game_over(self) -> bool:
        return len(self.rounds) == self.options.rounds and self.rounds[-1].over

    @property
    def needs_deal(self) -> bool:
        return self.round_over and not self.game_over

    def start_round(self, hands: list[list[int]]) -> Round:
        """Deal the next round; raises InvalidDeal for a bad deal, RuntimeError out of turn."""
        if not self.round_over:
            raise RuntimeError("the current round has not ended")
        if self.game_over:
            raise RuntimeError("the game is over")
        if len(hands) != self.players:
            raise InvalidDeal(f"expected {self.players} hands, got {len(hands)}")
        rnd = Round(hands, variant=self.options.variant)
        self.rounds.append(rnd)
        return rnd

    def start_hidden_round(self, seat: int | None, hand: list[int]) -> Round:
        """Deal the next round as ``seat`` sees it at a table: only its own hand is known
        (``seat`` None: an onlooker's, which knows no hand).

        Other seats' cards enter through ``round.reveal(seat, card)`` as the deal opens them.
        """
        if not self.round_over:
            raise RuntimeError("the current round has not ended")
        if self.game_over:
            raise RuntimeError("the game is over")
        rnd = Round.hidden(self.players, seat, hand, variant=self.options.variant)
        self.rounds.append(rnd)
        return rnd

    def reveal(self, seat: int, card: int) -> None:
        """A card of ``seat``'s hidden hand, shown by the deal (ValueError if it cannot be)."""
        if self.round is None:
            raise ValueError("no round has been dealt")
        self.round.reveal(seat, card)

    # --------------------------------------------------------------- moves
    @property
    def to_move(self) -> int | None:
        rounds = self.rounds  # (asked on every message at a table: no property in between)
        return rounds[-1].to_move if rounds else None

    def legal_moves(self) -> list[int]:
        return [] if self.round is None else self.round.legal_moves()

    def check(self, move: int) -> str | None:
        """None if legal, else why not (pokerkit style: verify before do)."""
        if self.round is None:
            return "no round has been dealt"
        return self.round.check(move)

    def play(self, move: int) -> None:
        """Apply a move; raises IllegalMove with the reason if it is not legal."""
        if self.round is None:
            raise IllegalMove("no round has been dealt")
        self.round.play(move)

    # -------------------------------------------------------------- scores
    @property
    def round_scores(self) -> list[list[int]]:
        """Scores of every ended round, in order."""
        return [list(r.scores) for r in self.rounds if r.scores is not None]

    @property
    def totals(self) -> list[int]:
        totals = [0] * self.players
        for scores in self.round_scores:
            for seat, score in enumerate(scores):
                totals[seat] += score
        return totals

    @property
    def winners(self) -> list[int] | None:
        """Seats with the highest total once the game is over (a tie shares the win)."""
        if not self.game_over:
            return None
        totals = self.totals
        best = max(totals)
        return [seat for seat, total in enumerate(totals) if total == best]

    # ---------------------------------------------------------------- views
    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may know now; never another seat's hidden cards."""
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} at a {self.players}-player table")
        rnd = self.round
        if rnd is None:
            raise RuntimeError("no round has been dealt")
        n = self.players
        to_move = rnd.to_move
        return PlayerView(
            seat=seat,
            players=n,
            variant=self.options.variant,
            round_index=self.round_index,
            hand=tuple(rnd.hand(seat)),
            hand_sizes=tuple(rnd.hand_size),
            to_move=to_move,
            legal=tuple(rnd.legal_moves()) if to_move == seat else (),
            leader=rnd.leader,
            trick=tuple(rnd.trick),
            lead_domain=rnd.lead_domain,
            light=rnd.light,
            tricks=tuple(_trick_tuple(t) for t in rnd.tricks),
            pile_tops=tuple(tuple(rnd.top(s, d) for d in range(N_DOMAINS)) for s in range(n)),
            pile_sizes=tuple(
                tuple(len(rnd.piles[s * N_DOMAINS + d]) for d in range(N_DOMAINS)) for s in range(n)
            ),
            pending_pile_choice=tuple(m - PILE for m in rnd.legal_moves())
            if rnd.pending_sickles and to_move == seat
            else (),
            round_scores=tuple(tuple(s) for s in self.round_scores),
            totals=tuple(self.totals),
            round_over=rnd.over,
            game_over=self.game_over,
        )


def _trick_tuple(t: TrickRecord) -> tuple[int, tuple[tuple[int, int], ...], int, tuple[int, ...]]:
    return (t.leader, t.plays, t.winner, t.removed)
