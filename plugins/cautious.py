"""An example plugin file: the ``cautious`` bot, which takes a trick only when it pays.

Drop a file like this into ``plugins/`` (or any folder passed as ``--plugins-dir``) and
``druids bots`` lists it. It shows the whole plugin surface: a :class:`Bot` subclass that reads
only its :class:`PlayerView`, and one ``@hookimpl`` that registers it.

The idea: a won trick tops your piles with its *lowest* cards, so most tricks are not worth
taking. Duck with the highest card that still loses (it sheds a card that could force a win
later and cannot lower anyone's pile), feed your lowest card to someone else's trick when you
cannot follow, and take a trick only as its last player, when it raises your pile score. One
exception: lead your *highest* card. A high card kept is a trick you must take later, whether it
pays or not; led, it takes the trick now, when the others must follow with what they hold
(leading low instead, this bot lost to random play: margin −2.8 [−4.9, −0.7] over 400
duplicate games; leading high, +7.3 [+5.0, +9.6]: README "Levels").
"""

from __future__ import annotations

from druids_p2p.api import (
    GAIA_DARK,
    N_DOMAIN_CARDS,
    N_VALUES,
    PILE,
    PLAY_MISTLETOE,
    Bot,
    BotSpec,
    PlayerView,
    hookimpl,
)


def _value(move: int) -> int:
    return move % N_VALUES + 1


class CautiousBot(Bot):
    """Ducks unless a trick is worth taking; deterministic, so it ignores its rng."""

    def choose(self, view: PlayerView) -> int:
        legal = view.legal
        if len(legal) == 1 or legal[0] >= PILE:
            return legal[0]  # a forced move, or tied piles (they score the same)
        if GAIA_DARK <= legal[0] < PLAY_MISTLETOE:
            return self._name_gaia(view)
        cards = [m for m in legal if m < N_DOMAIN_CARDS]
        if not cards:
            return legal[0]  # only Mistletoe / Sickle left
        led = view.lead_domain
        if not view.trick or led < 0:
            return max(cards, key=_value)  # lead high: take the trick while you choose when
        following = [m for m in cards if m // N_VALUES == led]
        if not following:
            return min(cards, key=_value)  # void: feed the winner a low card
        played = [m for _, m in view.trick if m < N_DOMAIN_CARDS]
        best = max((_value(m) for m in played if m // N_VALUES == led), default=0)
        losing = [m for m in following if _value(m) < best]
        winning = [m for m in following if _value(m) > best]
        if winning and len(view.trick) == view.players - 1:
            take = min(winning, key=_value)
            if self._gain(view, [*played, take]) > 0:
                return take
        if losing:
            return max(losing, key=_value)
        if PLAY_MISTLETOE in legal:
            return PLAY_MISTLETOE  # every card would win a bad trick: dodge
        return min(following, key=_value)

    @staticmethod
    def _gain(view: PlayerView, trick_cards: list[int]) -> int:
        """How much our pile score would change if we took a trick holding ``trick_cards``."""
        tops = [0 if t is None else _value(t) for t in view.pile_tops[view.seat]]
        before = sum(tops)
        for m in sorted(trick_cards, key=_value, reverse=not view.light):
            tops[m // N_VALUES] = _value(m)  # the last stacked, lowest (light: highest), is on top
        if all(tops):
            return -3 - before  # a fifth domain
        return sum(tops) - before

    @staticmethod
    def _name_gaia(view: PlayerView) -> int:
        counts = [0] * 5
        for card in view.hand:
            if card < N_DOMAIN_CARDS:
                counts[card // N_VALUES] += 1
        return GAIA_DARK + max(range(5), key=lambda d: (counts[d], -d))


@hookimpl
def druids_register_bots(register):  # type: ignore[no-untyped-def]
    register(
        BotSpec(
            name="cautious",
            factory=CautiousBot,
            version="1.0",
            description="Example plugin file: ducks unless a trick is worth taking.",
        )
    )
