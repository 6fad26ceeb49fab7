"""The host's safe move per rule set, for a seat whose bot failed (:data:`FALLBACKS`).

A fallback is a bot strategy, so it may know its game; it lives here, beside the bots, so that
the host itself (``druids_p2p.bots.host``) reaches a game only through the seam and the registry.
Every peer computes the same fallback, so each is deterministic and cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from druids_p2p.bots.druids2004 import fallback_2004
from druids_p2p.games.druids2004.ruleset import Druids2004Ruleset
from druids_p2p.games.druids2017.ruleset import DruidsRuleset
from druids_p2p.games.druids2017.view import PlayerView


def fallback_move(view: PlayerView) -> int:
    """A safe legal Druids (2017) move: the rule bot's choice (deterministic, well under a
    millisecond), else the first legal move if even that fails."""
    from druids_p2p.bots.rule_bot import rule_move

    try:
        move = rule_move(view)
    except Exception:
        return view.legal[0]
    return move if move in view.legal else view.legal[0]


FALLBACKS: dict[str, Callable[[Any], int]] = {
    DruidsRuleset.name: fallback_move,
    Druids2004Ruleset.name: fallback_2004,
}
"""The safe move per rule set; a game not listed falls back to its first legal move."""
