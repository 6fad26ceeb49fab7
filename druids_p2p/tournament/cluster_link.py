"""How a tournament reaches its Dask scheduler: plain TCP on one machine, TLS across machines.

A Dask client sends pickled functions that the workers run, and the tasks carry the tournament's
plugin files. Over plain ``tcp://`` anyone on the network path reads and changes tasks and
results, and anyone who reaches the scheduler's port runs code on every worker: fine on
loopback, a hole anywhere else. So a plain-TCP address that is not loopback gets a one-line
warning when the run starts, pointing at ``tls://``; over ``tls://`` the client authenticates the
scheduler with the user's CA and itself with the user's certificate and key (Dask's TLS is
mutual: ``distributed.security.Security`` with ``tls_ca_file``, ``tls_client_cert``,
``tls_client_key``, encryption required). Without those options Dask's own configuration is
used (``distributed.comm.tls.ca-file``, ``…tls.client.cert``, ``…tls.client.key``).
"""

from __future__ import annotations

import importlib
import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TLS_OPTIONS = "--tls-ca, --tls-cert and --tls-key"


@dataclass(frozen=True)
class ClusterTLS:
    """The user's TLS files for the scheduler link (each None: Dask's configuration's)."""

    ca_file: Path | None = None
    """The CA that signed the scheduler's certificate (and the workers')."""
    cert: Path | None = None
    """This client's certificate: Dask's TLS authenticates both ends."""
    key: Path | None = None
    """Its private key (None: the certificate's file holds it too)."""

    def given(self) -> list[tuple[str, Path]]:
        named = (("--tls-ca", self.ca_file), ("--tls-cert", self.cert), ("--tls-key", self.key))
        return [(option, path) for option, path in named if path is not None]

    def security(self) -> Any:
        """The ``distributed.security.Security`` for a ``Client``: encryption required."""
        security_type: Any = importlib.import_module("distributed.security").Security
        files = {"tls_ca_file": self.ca_file, "tls_client_cert": self.cert}
        files["tls_client_key"] = self.key
        given = {name: str(path) for name, path in files.items() if path is not None}
        return security_type(require_encryption=True, **given)


def _split(address: str) -> tuple[str, str]:
    """``(scheme, host)`` of ``scheme://HOST:PORT`` (an IPv6 host without its brackets)."""
    scheme, _, rest = address.partition("://")
    host = rest.rpartition(":")[0]
    return scheme, host[1:-1] if host.startswith("[") and host.endswith("]") else host


def is_loopback(host: str) -> bool:
    """``localhost`` or a loopback IP literal (127.0.0.0/8, ::1); a host name is not resolved."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def plain_tcp_warning(address: str) -> str | None:
    """The one-line warning for ``--cluster tcp://`` to anything but loopback, else None."""
    scheme, host = _split(address)
    if scheme != "tcp" or is_loopback(host):
        return None
    return (
        f"--cluster {address} is plain TCP to another machine: anyone on the network path can "
        f"read and change the tasks and their results, and anyone who reaches the scheduler runs "
        f"code on its workers; use tls://HOST:PORT with {TLS_OPTIONS} (README: tournaments on a "
        f"cluster)"
    )


def dask_tls_configured() -> bool:
    """Dask's own configuration names a CA and a client certificate (a YAML file under
    ``~/.config/dask``, or ``DASK_DISTRIBUTED__COMM__TLS__…`` variables)."""
    config: Any = importlib.import_module("dask").config
    ca = config.get("distributed.comm.tls.ca-file", None)
    return bool(ca and config.get("distributed.comm.tls.client.cert", None))


def tls_problem(address: str, tls: ClusterTLS | None) -> str | None:
    """None if the TLS options fit ``address``, else the one-line reason."""
    if tls is None or not tls.given():
        if _split(address)[0] == "tls" and not dask_tls_configured():
            return (
                f"--cluster {address} needs {TLS_OPTIONS} (or Dask's distributed.comm.tls "
                f"configuration): Dask's TLS authenticates both ends"
            )
        return None
    if _split(address)[0] != "tls":
        return f"{TLS_OPTIONS} go with --cluster tls://HOST:PORT, not {address}"
    if tls.ca_file is None or tls.cert is None:
        return (
            "--cluster tls:// takes --tls-ca and --tls-cert together (and --tls-key unless the "
            "certificate's file holds the key): Dask's TLS authenticates both ends"
        )
    for option, path in tls.given():
        if not path.is_file():
            return f"{option} {path}: no such file"
    return None


def connect(address: str, tls: ClusterTLS | None, timeout: float) -> Any:
    """A ``distributed.Client`` of the scheduler at ``address`` (with ``tls``'s security)."""
    dask: Any = importlib.import_module("distributed")
    if tls is not None and tls.given():
        return dask.Client(address, timeout=timeout, security=tls.security())
    return dask.Client(address, timeout=timeout)
