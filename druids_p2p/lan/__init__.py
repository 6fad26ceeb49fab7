"""The LAN: finding tables (signed beacons), the lobby that seats them, and the CURVE mesh between
the seats. Loopback only unless the user names a network, so nothing leaves the machine by accident.
"""

__all__: list[str] = []
