"""High card: a small trick-taking game with hidden hands, played at druids-p2p's card table.

It is the proof that a game plugs into druids-p2p from outside the package (issue 30): this
folder and its entry point (``tests/support/highcard_dist/highcard-0.1.dist-info``, group
``druids_p2p.games``: what ``pip install`` of a package with that entry point would write) are
all there is. With ``tests/support`` (the package) and ``tests/support/highcard_dist`` (its
distribution's metadata) on the path, ``PYTHONPATH`` for peer processes, ``druids play --game
highcard``, a tournament, ``druids audit`` and ``druids replay`` play and check it like the
built-in games. The two are apart so that importing the package registers nothing: only the
metadata's folder on the path does, as only an installed distribution does.

Rules. Twelve cards, three suits (S, H, C) of ranks 1 to 4. Each of 2 to 4 players is dealt three
cards face down. The leader (P0 first) plays any card; each other seat in turn must follow the
led suit if it can; the highest card of the led suit takes the trick and its taker leads the
next. A trick is a point; after three tricks the most points win (ties share).

At the card table each seat knows only its own hand, so another seat's card is checked against
what is public when it is shown, and a failure to follow suit is found at the final reveal
(``table_seat.Revoke``) and blamed then, with the signed play that broke it.

Modules, as a game's parts: ``cards`` (card ids, tokens, the :class:`Move` value), ``engine``
(the pure rules, options and the seat's view), ``table_seat`` (one seat's copy at the card
table: the deal's operations, the checks of a show, the breaches), ``ruleset`` (the seam's
``CardTableRuleset``: the in-process loop, the JSON notation and its replay), ``bots`` (a bot
and the host's fallback), ``spec`` (the ``GameSpec`` the entry point names).
"""

from highcard.cards import MOVES, Move, format_card, parse_card
from highcard.engine import HighCard, Options, View
from highcard.ruleset import NAME, HighCardRuleset
from highcard.table_seat import HighCardSeat

__all__ = [
    "MOVES",
    "NAME",
    "HighCard",
    "HighCardRuleset",
    "HighCardSeat",
    "Move",
    "Options",
    "View",
    "format_card",
    "parse_card",
]
