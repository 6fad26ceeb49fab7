"""A player's long-term Ed25519 signing identity: the facts about keys the protocol relies on, the
identity in memory, and its private file on disk (a 0600 file, like an SSH key without a
passphrase; a replaced identity is archived, never destroyed, because past records are signed
with it).
"""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import json
import os
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import platformdirs
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)
from nacl.bindings import crypto_sign, crypto_sign_seed_keypair

from druids_p2p.wire.msgtypes import FINGERPRINT_DOMAIN, BadShape, IdentityError
from druids_p2p.wire.schema import NAME, check

# Facts about Ed25519 public keys that the protocol relies on, independent of where keys live.
# Encodings of the points of order 1, 2, 4 and 8 (and non-canonical spellings of them), as in
# libsodium's blocklist; compared with the sign bit masked off. A signature "by" such a key can be
# forged by anyone, which would let its owner deny its own messages, so such keys are never seated.
_SMALL_ORDER = tuple(
    bytes.fromhex(h)
    for h in (
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    )
)


def is_weak_key(public_key: bytes) -> bool:
    """True for the small-order public keys whose signatures prove nothing."""
    masked = public_key[:31] + bytes([public_key[31] & 0x7F]) if len(public_key) == 32 else b""
    return masked in _SMALL_ORDER


def fingerprint(public_key: bytes) -> str:
    """A short form of a key for people to compare aloud: 80 bits, five groups of four hex digits.

    Domain-separated so that it can never be mistaken for (or collide with) a table or message hash.
    """
    digest = hashlib.sha256(FINGERPRINT_DOMAIN + public_key).hexdigest()[:20]
    return "-".join(digest[i : i + 4] for i in range(0, 20, 4))


# The identity in memory.
def check_name(name: str) -> str:
    """Display names travel in hello/join/seat bodies, so they obey the same bounds as there."""
    try:
        check(NAME, name, "name")
    except BadShape as exc:
        raise IdentityError(f"invalid display name: {exc}") from None
    return name


class Identity:
    """An Ed25519 key pair with the display name its owner chose."""

    __slots__ = ("_key", "_signing", "name", "public_key")

    def __init__(self, key: Ed25519PrivateKey, name: str) -> None:
        self._key = key
        self.name = check_name(name)
        self.public_key: bytes = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        # libsodium's expanded secret key, for signing: Ed25519 signatures are deterministic, so
        # these are the same bytes OpenSSL would produce, in ~60% of the time.
        public, self._signing = crypto_sign_seed_keypair(self.seed())
        if public != self.public_key:
            raise IdentityError("the key pair does not match its own public key")

    @classmethod
    def generate(cls, name: str) -> Identity:
        return cls(Ed25519PrivateKey.generate(), name)

    @classmethod
    def from_seed(cls, seed: bytes, name: str) -> Identity:
        """Rebuild from the 32-byte RFC 8032 secret seed, as stored on disk and in test vectors."""
        if len(seed) != 32:
            raise IdentityError(f"secret key must be 32 bytes, got {len(seed)}")
        return cls(Ed25519PrivateKey.from_private_bytes(seed), name)

    def seed(self) -> bytes:
        return self._key.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())

    def with_name(self, name: str) -> Identity:
        return Identity(self._key, name)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def sign(self, data: bytes) -> bytes:
        """Sign exactly ``data``; domain separation is the caller's job (see ``envelope``)."""
        return crypto_sign(data, self._signing)[:64]

    def __repr__(self) -> str:  # never print the secret
        return f"Identity(name={self.name!r}, fingerprint={self.fingerprint!r})"


# Where identities live on disk: one JSON file per player, private to its owner.
APP_NAME = "druids-p2p"
HOME_ENV = "DRUIDS_HOME"
FILE_NAME = "identity.json"
FORMAT = "druids-p2p identity"
FORMAT_VERSION = 1


def data_dir() -> Path:
    """``$DRUIDS_HOME`` if set (tests and multi-player setups on one machine), else the user's
    platform data folder."""
    override = os.environ.get(HOME_ENV)
    if override:
        return Path(override)
    return platformdirs.user_data_path(APP_NAME, appauthor=False)


def identity_path(home: Path | None = None) -> Path:
    return (home if home is not None else data_dir()) / FILE_NAME


def default_name() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError, ImportError):
        user = ""
    user = re.sub(r"[^A-Za-z0-9_.-]", "", user)[:32]
    return user or "player"


def load_identity(path: Path) -> Identity:
    """Read and fully check one identity file; every problem is one :class:`IdentityError`."""
    try:
        if os.name == "posix" and path.stat().st_mode & 0o077:
            mode = path.stat().st_mode & 0o777
            raise IdentityError(
                f"identity file {path} is accessible by other users (mode {mode:o}); "
                f"run: chmod 600 {path}"
            )
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise IdentityError(f"no identity file at {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise IdentityError(f"cannot read identity file {path}: {exc}") from None
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise IdentityError(f"malformed identity file {path}: not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise IdentityError(f"malformed identity file {path}: not a druids-p2p identity")
    if data.get("version") != FORMAT_VERSION:
        raise IdentityError(f"identity file {path} has unsupported version {data.get('version')!r}")
    name, secret, public = data.get("name"), data.get("secret_key"), data.get("public_key")
    if not isinstance(name, str) or not isinstance(secret, str) or not isinstance(public, str):
        raise IdentityError(f"malformed identity file {path}: name/secret_key/public_key missing")
    try:
        seed = bytes.fromhex(secret)
        identity = Identity.from_seed(seed, name)
    except ValueError:
        raise IdentityError(f"malformed identity file {path}: secret_key is not hex") from None
    except IdentityError as exc:
        raise IdentityError(f"malformed identity file {path}: {exc}") from None
    if identity.public_key.hex() != public.lower():
        raise IdentityError(f"malformed identity file {path}: public_key does not match secret")
    return identity


def _serialize(identity: Identity) -> bytes:
    data = {
        "format": FORMAT,
        "version": FORMAT_VERSION,
        "name": identity.name,
        "public_key": identity.public_key.hex(),
        "secret_key": identity.seed().hex(),
        "saved": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")


def _write_private_temp(directory: Path, content: bytes) -> Path:
    """Write a file next to its final place, so a rename can publish it atomically; ``mkstemp``
    creates it with mode 0600 from the start, so the secret is never briefly readable."""
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=".identity-", suffix=".tmp", dir=directory)
    with os.fdopen(fd, "wb") as f:
        f.write(content)
        f.flush()
        os.fsync(f.fileno())
    return Path(tmp)


def save_identity(identity: Identity, path: Path, *, replace: bool) -> None:
    """Publish atomically; without ``replace``, an existing file wins (first-use races)."""
    try:
        tmp = _write_private_temp(path.parent, _serialize(identity))
        try:
            if replace:
                os.replace(tmp, path)
            else:
                os.link(tmp, path)  # fails if another process created it first
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
    except FileExistsError:
        raise
    except OSError as exc:
        raise IdentityError(f"cannot write identity file {path}: {exc}") from None


def load_or_create(home: Path | None = None) -> Identity:
    """The identity of this user, made on first use."""
    path = identity_path(home)
    if not path.exists():
        with contextlib.suppress(FileExistsError):  # another process made it first: use that
            save_identity(Identity.generate(default_name()), path, replace=False)
    return load_identity(path)


def _archive_path(path: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    candidate = path.with_name(f"{path.stem}-{stamp}{path.suffix}")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}-{stamp}-{n}{path.suffix}")
        n += 1
    return candidate


def new_identity(home: Path | None = None, name: str | None = None) -> tuple[Identity, Path | None]:
    """Make a fresh key pair; the previous file (even a malformed one) is kept under a timestamped
    name, since records signed by it stay verifiable only with its public key."""
    path = identity_path(home)
    if name is None:
        try:
            name = load_identity(path).name
        except IdentityError:
            name = default_name()
    identity = Identity.generate(check_name(name))
    archived: Path | None = None
    if path.exists():
        archived = _archive_path(path)
        try:
            os.rename(path, archived)
        except OSError as exc:
            raise IdentityError(f"cannot keep the old identity as {archived}: {exc}") from None
    try:
        save_identity(identity, path, replace=False)
    except FileExistsError:
        raise IdentityError(f"{path} appeared while making a new identity; try again") from None
    return identity, archived


def rename_identity(name: str, home: Path | None = None) -> Identity:
    path = identity_path(home)
    identity = load_or_create(home).with_name(check_name(name))
    save_identity(identity, path, replace=True)
    return identity
