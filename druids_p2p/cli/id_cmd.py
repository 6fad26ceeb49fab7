"""``druids id``: show, rename or replace this player's signing identity."""

from __future__ import annotations

import json

import typer

from druids_p2p.cli.app import app, fail
from druids_p2p.wire.identity import (
    Identity,
    identity_path,
    load_or_create,
    new_identity,
    rename_identity,
)
from druids_p2p.wire.msgtypes import IdentityError


@app.command("id")
def id_command(
    new: bool = typer.Option(False, "--new", help="Make a new key pair (the old file is kept)."),
    name: str | None = typer.Option(None, "--name", help="Set the display name."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show this player's name and public key fingerprint (made on first use).

    The identity lives in the user data folder, or in $DRUIDS_HOME if that is set.
    """
    archived = None
    try:
        if new:
            identity, archived = new_identity(name=name)
        elif name is not None:
            identity = rename_identity(name)
        else:
            identity = load_or_create()
    except IdentityError as exc:
        fail(str(exc), 2)
    path = identity_path()
    if as_json:
        out = {
            "name": identity.name,
            "public_key": identity.public_key.hex(),
            "fingerprint": identity.fingerprint,
            "path": str(path),
        }
        if archived is not None:
            out["previous"] = str(archived)
        print(json.dumps(out))
        return
    print(f"name:        {identity.name}")
    print(f"fingerprint: {identity.fingerprint}")
    print(f"public key:  {identity.public_key.hex()}")
    print(f"file:        {path}")
    if archived is not None:
        print(f"previous identity kept as {archived}")


def load_identity(name: str | None) -> Identity:
    """This machine's identity, renamed to ``name`` if one is given (``peer``, ``host``, ``join``,
    ``play``); a bad identity file is one line and exit 2. Here, not in ``peer_run``, so that
    ``play_ui`` and the peer commands need not import each other."""
    try:
        identity = load_or_create()
        if name and identity.name != name:
            identity = rename_identity(name)
    except IdentityError as exc:
        fail(str(exc))
    return identity
