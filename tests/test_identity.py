"""Identity files: made on first use, private, replaceable without loss; the ``druids id`` CLI.

Every test runs with its own DRUIDS_HOME, so the user's real identity is never touched.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from druids_p2p.wire import (
    Identity,
    IdentityError,
    identity_path,
    load_identity,
    load_or_create,
    new_identity,
    rename_identity,
)
from druids_p2p.wire.identity import data_dir


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DRUIDS_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_druids_home_overrides_data_dir(home: Path) -> None:
    assert data_dir() == home and identity_path() == home / "identity.json"


def test_made_on_first_use_private_and_stable(home: Path) -> None:
    first = load_or_create()
    path = home / "identity.json"
    assert _mode(path) == 0o600
    assert load_or_create().public_key == first.public_key
    assert len(first.public_key) == 32 and first.name
    assert [p.name for p in home.iterdir()] == ["identity.json"]  # no temp files left


def test_new_keeps_the_old_one(home: Path) -> None:
    old = rename_identity("alice")
    old_text = (home / "identity.json").read_text()
    new, archived = new_identity()
    assert (
        archived is not None and archived.parent == home and archived.name.startswith("identity-")
    )
    assert archived.read_text() == old_text and _mode(archived) == 0o600
    assert load_identity(archived).public_key == old.public_key
    assert new.public_key != old.public_key and new.name == "alice"  # the name carries over
    again, archived2 = new_identity(name="bob")
    assert archived2 != archived and again.name == "bob"
    assert len(list(home.glob("identity-*.json"))) == 2


def test_rename(home: Path) -> None:
    key = load_or_create().public_key
    renamed = rename_identity("Zoë the druid")
    assert renamed.public_key == key and load_or_create().name == "Zoë the druid"
    assert _mode(home / "identity.json") == 0o600
    with pytest.raises(IdentityError, match="invalid display name"):
        rename_identity("")
    with pytest.raises(IdentityError, match="control characters"):
        rename_identity("a\nb")
    with pytest.raises(IdentityError, match=r"1\.\.32 bytes"):
        rename_identity("x" * 33)


_ID_PREFIX = '{"format": "druids-p2p identity", "version": 1, "name": "a", '


@pytest.mark.parametrize(
    "content",
    [
        "",
        "{",
        "[]",
        '{"format": "something else"}',
        '{"format": "druids-p2p identity", "version": 2}',
        '{"format": "druids-p2p identity", "version": 1, "name": "a"}',
        _ID_PREFIX + '"secret_key": "zz", "public_key": ""}',
        _ID_PREFIX + '"secret_key": "00", "public_key": ""}',
    ],
)
def test_malformed_files(home: Path, content: str) -> None:
    home.mkdir()
    path = home / "identity.json"
    path.write_text(content)
    path.chmod(0o600)
    with pytest.raises(IdentityError, match=r"malformed|unsupported"):
        load_or_create()


def test_mismatched_public_key(home: Path) -> None:
    load_or_create()
    path = home / "identity.json"
    data = json.loads(path.read_text())
    data["public_key"] = "00" * 32
    path.write_text(json.dumps(data))
    with pytest.raises(IdentityError, match="does not match"):
        load_or_create()


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_readable_by_others_is_refused(home: Path) -> None:
    load_or_create()
    (home / "identity.json").chmod(0o644)
    with pytest.raises(IdentityError, match="chmod 600"):
        load_or_create()


def test_seed_round_trip() -> None:
    ident = Identity.generate("x")
    again = Identity.from_seed(ident.seed(), "x")
    assert again.public_key == ident.public_key and again.fingerprint == ident.fingerprint
    assert ident.seed().hex() not in repr(ident)
    assert len(ident.fingerprint) == 24 and ident.fingerprint.count("-") == 4


# --- the CLI -------------------------------------------------------------------------------------


def _druids(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DRUIDS_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "druids_p2p", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_cli_id(home: Path) -> None:
    shown = _druids(home, "id", "--json")
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert {"name", "public_key", "fingerprint"} <= set(data)
    assert bytes.fromhex(data["public_key"]) == load_or_create().public_key
    assert _mode(home / "identity.json") == 0o600

    text = _druids(home, "id")
    assert (
        text.returncode == 0 and data["fingerprint"] in text.stdout and data["name"] in text.stdout
    )

    renamed = _druids(home, "id", "--name", "Morgana", "--json")
    assert json.loads(renamed.stdout)["name"] == "Morgana"
    assert json.loads(renamed.stdout)["public_key"] == data["public_key"]

    fresh = _druids(home, "id", "--new", "--json")
    new = json.loads(fresh.stdout)
    assert fresh.returncode == 0 and new["public_key"] != data["public_key"]
    assert new["name"] == "Morgana"
    kept = list(home.glob("identity-*.json"))
    assert len(kept) == 1 and load_identity(kept[0]).public_key.hex() == data["public_key"]


def test_cli_malformed_identity_is_one_line_exit_2(home: Path) -> None:
    home.mkdir()
    (home / "identity.json").write_text("not json")
    (home / "identity.json").chmod(0o600)
    result = _druids(home, "id")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "malformed identity file" in result.stderr
    assert "Traceback" not in result.stderr
    # --new recovers: the broken file is kept aside, a working identity is made.
    result = _druids(home, "id", "--new")
    assert result.returncode == 0 and (home / "identity.json").exists()
    assert len(list(home.glob("identity-*.json"))) == 1


def test_cli_bad_name_exit_2(home: Path) -> None:
    result = _druids(home, "id", "--name", "")
    assert result.returncode == 2 and "invalid display name" in result.stderr
    assert "Traceback" not in result.stderr
