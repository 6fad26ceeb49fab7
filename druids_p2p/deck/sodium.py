"""libsodium's ristretto255 functions through ctypes: rbcl's wrappers check more than the
arithmetic costs (``group``, the one caller, passes only checked values), and rbcl's import leaves
a 2.7 MB copy of the library in the temp folder, so it is loaded from a per-user cache instead.
"""

from __future__ import annotations

import binascii
import contextlib
import ctypes
import hashlib
import importlib
import importlib.util
import os
import tempfile
from pathlib import Path

import platformdirs

APP_NAME = "druids-p2p"
"""The cache folder's name (the data folder's, wire/identity.py)."""
_SUFFIX = ".pyd" if os.name == "nt" else ".so"
"""What rbcl names its file on each system."""


def _rbcl_source() -> Path:
    """rbcl's ``_sodium.py``, found without importing rbcl (whose ``__init__`` loads it)."""
    spec = importlib.util.find_spec("rbcl")
    if spec is None or not spec.submodule_search_locations:
        raise OSError("rbcl is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "_sodium.py"


def _cached() -> ctypes.CDLL:
    """libsodium from ``<user cache>/libsodium-<key>.so``, written first if missing: decoded
    from rbcl's source, fsynced under a temporary name in the same folder, then renamed, so a
    process never loads a half-written file. The key names rbcl's source file and its size and
    modification time: a reinstalled rbcl gets a new file; one ``stat`` a process."""
    source = _rbcl_source()
    seen = source.stat()
    key = hashlib.sha256(f"{source}|{seen.st_size}|{seen.st_mtime_ns}".encode()).hexdigest()
    folder = platformdirs.user_cache_path(APP_NAME, appauthor=False)
    path = folder / f"libsodium-{key[:24]}{_SUFFIX}"
    with contextlib.suppress(OSError):  # missing, or not a library: (re)written below
        return ctypes.CDLL(str(path))
    text = source.read_bytes()
    start = text.index(b"bytes.fromhex('") + len(b"bytes.fromhex('")
    binary = binascii.unhexlify(text[start : text.index(b"'", start)])
    folder.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".libsodium-", suffix=_SUFFIX, dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(binary)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)  # gone once renamed; a failed write's leftover otherwise
    return ctypes.CDLL(str(path))


def _from_rbcl() -> ctypes.CDLL:
    """rbcl's own load, its temporary file removed once loaded (a loaded library needs no file
    on Linux and macOS; Windows refuses, and the file stays as it always did)."""
    from rbcl.rbcl import _sodium

    with contextlib.suppress(OSError, AttributeError):
        os.unlink(importlib.import_module("rbcl._sodium").lib_path)
    lib: ctypes.CDLL = _sodium
    return lib


def _load() -> ctypes.CDLL:
    """libsodium, initialised: from the cache, or rbcl's own where the cache cannot be (no
    writable cache folder, an rbcl that no longer ships the hex string)."""
    try:
        lib = _cached()
    except (OSError, ValueError):
        lib = _from_rbcl()
    if lib.sodium_init() < 0:
        raise OSError("libsodium failed to initialise")
    return lib


LIB: ctypes.CDLL = _load()
"""The library every function here calls (``bench/tables.py`` and the tests count its calls)."""

BYTES = 32
_Buffer = ctypes.c_char * BYTES


def scalarmult(scalar: bytes, point: bytes) -> bytes | None:
    """scalar·point (libsodium's ``crypto_scalarmult_ristretto255``); None where libsodium
    fails (a zero scalar, or a result that is the identity)."""
    out = _Buffer()
    if LIB.crypto_scalarmult_ristretto255(out, scalar, point) != 0:
        return None
    return out.raw


def scalarmult_base(scalar: bytes) -> bytes | None:
    """scalar·B; None for a zero scalar (libsodium's ``-1``)."""
    out = _Buffer()
    if LIB.crypto_scalarmult_ristretto255_base(out, scalar) != 0:
        return None
    return out.raw


def add(p: bytes, q: bytes) -> bytes:
    """p + q (no check of either input: libsodium does none, see the module docstring)."""
    out = _Buffer()
    LIB.crypto_core_ristretto255_add(out, p, q)
    return out.raw


def sub(p: bytes, q: bytes) -> bytes:
    """p − q (no check of either input)."""
    out = _Buffer()
    LIB.crypto_core_ristretto255_sub(out, p, q)
    return out.raw


def scalar_reduce(wide: bytes) -> bytes:
    """64 bytes (a SHA-512 digest, an XOF's chunk) reduced mod l."""
    if len(wide) != 64:
        raise ValueError("scalar_reduce takes 64 bytes")
    out = _Buffer()
    LIB.crypto_core_ristretto255_scalar_reduce(out, wide)
    return out.raw


def is_valid_point(p: bytes) -> bool:
    """libsodium's decoding check of 32 bytes (it accepts the identity; see ``group``)."""
    return bool(LIB.crypto_core_ristretto255_is_valid_point(p) == 1)


def scalar_add(x: bytes, y: bytes) -> bytes:
    """x + y mod l."""
    out = _Buffer()
    LIB.crypto_core_ristretto255_scalar_add(out, x, y)
    return out.raw


def scalar_mul(x: bytes, y: bytes) -> bytes:
    """x·y mod l."""
    out = _Buffer()
    LIB.crypto_core_ristretto255_scalar_mul(out, x, y)
    return out.raw


def scalar_negate(x: bytes) -> bytes:
    """−x mod l."""
    out = _Buffer()
    LIB.crypto_core_ristretto255_scalar_negate(out, x)
    return out.raw


def from_hash(digest: bytes) -> bytes:
    """RFC 9496 §4.3.4's one-way map of 64 bytes (a SHA-512 digest) to an element."""
    if len(digest) != 64:
        raise ValueError("from_hash takes 64 bytes")
    out = _Buffer()
    LIB.crypto_core_ristretto255_from_hash(out, digest)
    return out.raw
