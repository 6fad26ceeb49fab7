"""The network layer: finding tables on the LAN (:mod:`.discovery`) and, later, talking to them.

Only loopback is used unless the user names a network (``--interface`` / ``--address``), so that
nothing leaves this machine by accident.
"""
