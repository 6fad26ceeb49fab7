"""The terminal user interface (Textual): ``druids play`` and ``druids play --lan``.

The UI process is a full peer: it runs the LAN protocol (``net.session.run_peer``) on a worker
thread with :class:`~druids_p2p.tui.player.UIPlayer` plugged into its seat, and shows what that
peer's table machine knows. Bots are separate peer processes on loopback (``tui.bots``).

Modules: ``cards`` (colours, tokens), ``snapshot`` (an immutable picture of the table taken on the
peer's thread), ``session`` (messages from a table to the UI), ``player`` (the bridge to the net
layer), ``offline`` (an engine-only table for tests and screenshots), ``app``, ``screens``,
``widgets``.
"""
