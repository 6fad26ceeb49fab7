"""The terminal user interface (Textual): ``druids play`` and ``druids play --lan``.

The UI process is a full peer: it runs the LAN protocol (``peer.session.run_peer``) on a worker
thread with :class:`~druids_p2p.tui.player.UIPlayer` plugged into its seat, and shows what that
peer's table machine knows. Bots are separate peer processes on loopback (``tui.bots``).

A neutral part and one package per game. Neutral (no game package imported; the seam, the
rule-set registry and a game's TUI entry only): ``session`` (messages from a table to the UI),
``player`` (the bridge to the net layer), ``app`` (the shell), ``screens`` (lobby, the help
screen, generic dialogs), ``widgets`` (log, chat), ``names``, ``pacing``, ``game_ui`` (what a
game's UI offers) and ``game_uis`` (the registry, by rule set name). Per game: ``druids2017``
(its table screen, widgets, card drawing, snapshots, warnings, dialogs, help text, the offline
table, the replay viewer) and ``druids2004`` (its offline table and screens). import-linter
checks the split.
"""
