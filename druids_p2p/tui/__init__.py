"""The terminal user interface (Textual): ``druids play`` and ``druids play --lan``.

The UI process is a full peer: it runs the LAN protocol (``peer.session.run_peer``) on a worker
thread with :class:`~druids_p2p.tui.player.UIPlayer` plugged into its seat, and shows what that
peer's table machine knows. Bots are separate peer processes on loopback (``tui.bots``).

A neutral part and one package per game. Neutral (no game package imported; the seam, the game
registry and a game's UI found through its spec): ``game_ui`` (what a game's UI offers, the
messages from a table to the UI, pacing), ``player`` (the bridge to the net layer), ``app`` (the
shell), ``lobby``, ``dialogs``, ``widgets`` (log, chat, names). Per game, ``tui/<game>/``: its
table screen, widgets, dialogs, help, the replay viewer, and the ``GameUI`` its spec names.
import-linter checks the split.
"""
