"""Why a peer cannot go on, as one line for the user (the CLI prints it and exits 2).

Every room of the network wing raises these (the lobby, the players, the session), so they live
apart from all of them: none of those rooms has to import another just to say it gives up.
"""

from __future__ import annotations


class PeerError(Exception):
    """A peer cannot go on (bad target, table full, host gone...): one line for the user."""


class TableChoice(PeerError):
    """A table is still playing in this home and the command neither resumes it nor asks for a
    new one (homes.py): the user must choose, with ``--resume`` or ``--new``."""


class CannotRejoin(PeerError):
    """A saved table could not be replayed: it is marked stopped, so it blocks nothing."""


__all__ = ["CannotRejoin", "PeerError", "TableChoice"]
