"""The terminal user interface (Textual): ``druids play`` and ``druids play --lan``. The UI process
is a full peer (``run_peer`` on a worker thread, its seat played by
:class:`~druids_p2p.tui.player.UIPlayer`); bots are peer processes. A neutral part meets the games
only through their specs; each game's screens are in ``tui/<game>/`` (import-linter checks it).
"""
