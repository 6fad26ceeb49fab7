"""The network layer: finding tables on the LAN (:mod:`.discovery`) and playing at them (the
table machine, :mod:`.table`; the peer process, :mod:`.peer`).

Only loopback is used unless the user names a network (``--interface`` / ``--address``), so that
nothing leaves this machine by accident.
"""

from druids_p2p.net import table_codec as _table_codec  # registers the card table's bodies

__all__: list[str] = []
del _table_codec
