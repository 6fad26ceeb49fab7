"""A Druids (2016) table without the network, for ``--offline``, the screen's tests and screenshots:
the engine, the person and a bot, whose placement is shown only once both are in (RULINGS-2016.md
"Setup" 3). A bot that raises or answers an illegal move plays the first legal one, fault noted.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

from druids_p2p.games.druids2016.board import Board, Setup, default_board, random_setup, square_name
from druids_p2p.games.druids2016.game import (
    MASTER_CAPTURED,
    MASTER_IN_TEMPLE,
    MOVE_LIMIT,
    NO_LEGAL_MOVE,
    REPETITION,
    Game,
    Options,
    Options2016,
    arranged,
)
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.policy import Budget, clone, rule_move
from druids_p2p.games.druids2016.replay import game_record
from druids_p2p.games.druids2016.state import place_choices
from druids_p2p.games.druids2016.view import DRAWING, PLACING, SeatView, seat_view
from druids_p2p.games.spec import Bot


class BoardSeat(Protocol):
    """What the board's table screen (``table.py``) plays at: this process's table
    (:class:`Offline2016`) or a peer's seat at a table of peers (``lan_table.py``)."""

    names: tuple[str, str]
    seat: int
    log: list[str]

    def name(self, player: int) -> str: ...
    @property
    def placing(self) -> bool: ...
    @property
    def placed(self) -> Sequence[int]: ...
    @property
    def my_move(self) -> bool: ...
    @property
    def bot_to_move(self) -> bool: ...
    def place_choices(self) -> list[int]: ...
    def place(self, square: int) -> str | None: ...
    def position(self) -> Game: ...
    def submit(self, move: Move) -> str | None: ...
    def bot_step(self) -> bool: ...
    def waiting_words(self) -> str: ...


def placing_position(
    board: Board, first: int, tiles: str, seat: int, placed: Sequence[int], options: Options | None
) -> Game:
    """The board while the Druids are placed: the ``tiles`` (on the board's starts, in order),
    both Masters on their Temples and ``seat``'s Druids placed so far (the other's are hidden
    until both are in)."""
    druids: dict[str, str] = {}
    for player in (0, 1):
        side = player ^ first
        facing = "s" if side == 0 else "n"
        druids[square_name(board.temples[side])] = f"{player}{facing}*"
        if player == seat:
            druids.update({square_name(s): f"{player}{facing}" for s in placed})
    laid = {square_name(s): k for s, k in zip(board.starts, tiles, strict=True)}
    return arranged(board, first, druids, laid, options=options)


STAND_IN: Final = random_setup(random.Random(0), default_board())
"""The tiles drawn while a table draws them (the board must show some): never the game's."""


def view_position(view: SeatView | None, seat: int) -> Game:
    """The board of a seat's view: while the table draws, a stand-in; while placing, the tiles,
    both Masters and the seat's own placements; then the whole position."""
    if view is None or view.phase == DRAWING or view.first is None:
        board = default_board() if view is None else view.board
        return placing_position(board, STAND_IN.first, STAND_IN.tiles, seat, (), None)
    if view.phase == PLACING:
        laid = dict(view.tiles)
        tiles = "".join(laid[s] for s in view.board.starts)
        return placing_position(view.board, view.first, tiles, seat, view.placed, view.rules)
    return view.game()


Chooser = Callable[[Game], "Move | int"]
"""A bot as the offline table asks it: the position (a copy it may change) -> a legal move (its
value or its code)."""


def rule_chooser(seed: int) -> Chooser:
    """The rule bot (``policy.rule_move``) with its own seeded random stream."""
    rng = random.Random(seed)
    budget = Budget(nodes=1)
    return lambda game: rule_move(game, rng, budget)


def _of(name: str) -> str:
    """The possessive of a player's name as the table says it (``you`` -> ``your``)."""
    return "your" if name == "you" else f"{name}'s"


def end_words(game: Game, name: Callable[[int], str]) -> str:
    """How the game ended, in a sentence (``name`` names a player)."""
    result = game.result
    if result is None:
        return "the game goes on"
    if result.winner is not None:
        winner, loser = name(result.winner), name(1 - result.winner)
        temple = square_name(game.board.temples[1 - game.setup.side_of(result.winner)])
        return {
            MASTER_IN_TEMPLE: f"{_of(winner)} Master Druid reached {_of(loser)} Temple on {temple}",
            MASTER_CAPTURED: f"{winner} captured {_of(loser)} Master Druid",
            NO_LEGAL_MOVE: f"{loser} had no legal move",
        }.get(result.reason, result.reason)
    limit = game.options.quiet_moves
    return {
        REPETITION: f"the same position came {game.options.repetitions} times: a draw",
        MOVE_LIMIT: f"{limit} moves without a capture: a draw",
    }.get(result.reason, result.reason)


@dataclass
class Offline2016:
    """Player ``seat`` is the person; the other player is ``bots[other]``."""

    names: tuple[str, str]
    bots: Mapping[int, Chooser]
    seat: int = 0
    seed: int = 0
    board: Board = field(default_factory=default_board)
    setup: Setup | None = None
    """The whole setup (no placement to choose), or None: drawn from ``seed``, the person's
    two Druids then placed on the board (:meth:`place`)."""
    options: Options | None = None
    bot_places: Callable[[Setup], Sequence[int]] | None = None
    """Chooses the bot's placement (its three back-row squares, the Master's first) from the
    drawn setup; None: the drawn one stands."""
    faults: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    """One line a move: ``12. alice b3n Ca5>d3``."""
    game: Game | None = field(init=False, default=None)
    """None while the person places their Druids."""
    placed: list[int] = field(init=False, default_factory=list)
    drawn: Setup = field(init=False)
    lock: threading.RLock = field(init=False, default_factory=threading.RLock)
    """Held by every call that reads or changes the game: the bot moves on a worker thread."""

    def __post_init__(self) -> None:
        if len(self.names) != 2 or self.seat not in (0, 1) or set(self.bots) != {1 - self.seat}:
            raise ValueError("Druids (2016) is played by you and one bot")
        self.drawn = self.setup or random_setup(random.Random(self.seed), self.board)
        if self.setup is None and self.bot_places is not None:
            both = list(self.drawn.placements)
            a, b, c = self.bot_places(self.drawn)
            both[1 - self.seat] = (a, b, c)
            self.drawn = Setup(self.drawn.first, self.drawn.tiles, (both[0], both[1]))
        if self.setup is not None:
            self.game = Game(self.setup, self.board, self.options)

    def name(self, player: int) -> str:
        return "you" if player == self.seat else self.names[player]

    # ----------------------------------------------------------------- placing
    @property
    def placing(self) -> bool:
        return self.game is None

    def place_choices(self) -> list[int]:
        """The back-row squares the person may still place a Druid on."""
        side = self.drawn.side_of(self.seat)
        temple = self.board.temples[side]
        taken = {temple, *self.placed}
        return (
            []
            if self.game is not None
            else [s for s in self.board.back_row(side) if s not in taken]
        )

    def place(self, square: int) -> str | None:
        """Place one of the person's Druids on ``square``: None when placed, else why not. The
        second placement starts the game."""
        with self.lock:
            if square not in self.place_choices():
                side = self.drawn.side_of(self.seat)
                return (
                    f"a Druid is placed on a free square of row {1 if side == 0 else 7}, "
                    f"not on {square_name(square)}"
                )
            self.placed.append(square)
            if len(self.placed) == 2:
                temple = self.board.temples[self.drawn.side_of(self.seat)]
                mine = (temple, self.placed[0], self.placed[1])
                both = list(self.drawn.placements)
                both[self.seat] = mine
                setup = Setup(self.drawn.first, self.drawn.tiles, (both[0], both[1]))
                self.game = Game(setup, self.board, self.options)
                self.log.append(
                    f"  you place your Druids on {square_name(mine[1])} and {square_name(mine[2])}"
                )
                bot = self.drawn.placements[1 - self.seat]
                where = " and ".join(
                    square_name(s) for s in sorted(bot) if s not in self.board.temples
                )
                self.log.append(f"  {self.names[1 - self.seat]} placed its Druids on {where}")
            return None

    def position(self) -> Game:
        """A copy of the game to draw (the bot's thread may be moving meanwhile); while placing,
        the tiles, both Masters and the person's Druids placed so far."""
        with self.lock:
            if self.game is not None:
                return clone(self.game)
            return self._placing_position()

    def _placing_position(self) -> Game:
        drawn = self.drawn
        return placing_position(
            self.board, drawn.first, drawn.tiles, self.seat, self.placed, self.options
        )

    @property
    def my_move(self) -> bool:
        """The person may choose a move now (their turn: the bot never holds it back)."""
        return True

    def waiting_words(self) -> str:
        return f"{self.names[1 - self.seat]} is thinking…"

    def my_view(self) -> SeatView | None:
        """The person's view on their move once the Druids are placed (what the coach reads:
        the game is one of perfect information then), else None."""
        with self.lock:
            game = self.game
            if game is None or game.to_move != self.seat:
                return None
            legal = tuple(game.legal_codes())
            first = game.setup.first
            board, rules = game.board, game.options
            return seat_view(self.seat, board, rules, first, None, (), game, self.seat, legal)

    @property
    def bot_to_move(self) -> bool:
        with self.lock:
            return self.game is not None and self.game.to_move not in (None, self.seat)

    def record_text(self) -> str | None:
        """The game file (``druids replay --game druids2016``); None before the Druids are
        placed."""
        with self.lock:
            if self.game is None:
                return None
            return json.dumps(game_record(self.game), indent=1) + "\n"

    def submit(self, move: Move) -> str | None:
        """Play the person's ``move``: None when played, else why not (the engine's words)."""
        with self.lock:
            if self.game is None:
                return "place your Druids first"
            if self.game.to_move != self.seat:
                return "the game is over" if self.game.result else "it is not your turn"
            reason = self.game.check(move)
            if reason is None:
                self._play(move)
            return reason

    def bot_step(self) -> bool:
        """One move of the bot if it is to move (it thinks on a copy, without the lock)."""
        with self.lock:
            if self.game is None:
                return False
            player = self.game.to_move
            if player is None or player == self.seat:
                return False
            work = clone(self.game)
            legal = self.game.legal_moves()
        try:
            answer = self.bots[player](work)
            move = Move.from_code(answer) if isinstance(answer, int) else answer
        except Exception as exc:  # a bot's fault is noted, never the table's end
            self.faults.append(f"{self.names[player]}: raised {exc!r}")
            move = legal[0]
        if move not in legal:
            self.faults.append(f"{self.names[player]}: illegal answer {move!r}")
            move = legal[0]
        with self.lock:
            self._play(move)
        return True

    def _play(self, move: Move) -> None:
        assert self.game is not None
        player = self.game.to_move
        assert player is not None
        self.game.play(move)
        self.log.append(f"{self.game.ply:3d}. {self.name(player)} {move.token()}")


# ---- formerly seat_bots.py:
# The bots of ``druids play --game druids2016 --offline``, handed in as :class:`Bot` objects
# (the registry's, a plugin's), asked as the offline table asks its bot (``session.py``).
#
# A bot sees what it sees in a tournament: its seat's :class:`SeatView` (``view.seat_view``, the
# registered state's own builder), its placement asked square by square while the other's is
# hidden, then the whole position with the legal move ids. So any bot that plays Druids (2016) in
# a tournament plays it here unchanged.


def _code(answer: object) -> int:
    """A bot's answer as a move id: an int, or the game's ``Move`` (TypeError otherwise)."""
    if isinstance(answer, Move):
        return answer.code
    if isinstance(answer, int) and not isinstance(answer, bool):
        return answer
    raise TypeError(f"a move id or a Move, not {answer!r}")


def start_bot(bot: Bot, seat: int, rules: Options, seed: int, budget_ms: float) -> None:
    """The bot's ``start_game``, as the tournament host calls it (its own seeded stream)."""
    bot.start_game(seat, Options2016(rules=rules), random.Random(f"{seed} {seat}"), budget_ms)


def bot_placement(
    bot: Bot, seat: int, board: Board, rules: Options, faults: list[str]
) -> Callable[[Setup], Sequence[int]]:
    """A placer for :class:`Offline2016`: the bot's three back-row squares (the Master's on
    the Temple first), its two Druids chosen by the bot one at a time on its view; an answer
    that is not one of its choices takes the first free square (the fault noted)."""

    def place(drawn: Setup) -> Sequence[int]:
        side = drawn.side_of(seat)
        placed: list[int] = []
        for _ in range(2):
            legal = tuple(Move.place(s).code for s in place_choices(board, side, placed))
            view = seat_view(
                seat, board, rules, drawn.first, drawn.tiles, tuple(placed), None, seat, legal
            )
            try:
                code = _code(bot.choose(view))
            except Exception as exc:  # a bot's fault is noted, never the table's end
                faults.append(f"seat {seat}: choose raised {exc!r}")
                code = legal[0]
            if code not in legal:
                faults.append(f"seat {seat}: illegal placement {code!r}")
                code = legal[0]
            placed.append(Move.of(code).square)
        return (board.temples[side], *placed)

    return place


def bot_chooser(bot: Bot, seat: int, board: Board, rules: Options) -> Chooser:
    """A chooser for :class:`Offline2016` over ``bot``: the position as the bot's view, its
    answer as a move id (the table checks it)."""

    def choose(game: Game) -> int:
        legal = tuple(game.legal_codes())
        view = seat_view(seat, board, rules, game.setup.first, None, (), game, seat, legal)
        return _code(bot.choose(view))

    return choose
