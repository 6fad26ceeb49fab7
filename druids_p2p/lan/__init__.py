"""The LAN: finding tables (signed beacons), the lobby that seats them, and the CURVE mesh between
the seats. Loopback only unless the user names a network, so nothing leaves the machine by accident.
"""

__all__ = ["DEFAULT_PORT"]

DEFAULT_PORT = 47650
"""The UDP port a host's beacons go to and a listener hears (``--beacon-port``'s default): here,
not in the beacon code, so a command's option defaults name it without loading the network stack."""
