"""Where identities live on disk: one JSON file per player, private to its owner.

The secret is kept as plain hex in a 0600 file (like an SSH key without a passphrase): a LAN card
game is not worth a passphrase prompt, but the file must never be readable by other users, and a
replaced identity is archived rather than destroyed because past game records are signed with it.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import platformdirs

from druids_p2p.wire.errors import IdentityError
from druids_p2p.wire.identity import Identity, check_name

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
