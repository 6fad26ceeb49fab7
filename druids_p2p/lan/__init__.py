"""The LAN: finding tables (signed beacons), the lobby that seats them, and the CURVE mesh between
the seats.

Only loopback is used unless the user names a network (``--interface`` / ``--address``), so that
nothing leaves this machine by accident.
"""

__all__: list[str] = []
