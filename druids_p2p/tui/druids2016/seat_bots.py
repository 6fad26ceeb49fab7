"""The bots of ``druids play --game druids2016 --offline``, handed in as :class:`Bot` objects
(the registry's, a plugin's), asked as the offline table asks its bot (``session.py``).

A bot sees what it sees in a tournament: its seat's :class:`SeatView` (``view.seat_view``, the
registered state's own builder), its placement asked square by square while the other's is
hidden, then the whole position with the legal move ids. So any bot that plays Druids (2016) in
a tournament plays it here unchanged.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from druids_p2p.games.druids2016.board import Board
from druids_p2p.games.druids2016.game import Game, Options, Options2016
from druids_p2p.games.druids2016.moves import Move
from druids_p2p.games.druids2016.setup import Setup
from druids_p2p.games.druids2016.state import place_choices
from druids_p2p.games.druids2016.view import seat_view
from druids_p2p.games.spec import Bot
from druids_p2p.tui.druids2016.session import Chooser


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
