"""``druids bench wire``: signed message encodes and verified decodes per second, on one core."""

from __future__ import annotations

import json

import typer

from druids_p2p.cli.app import bench_app, fail


@bench_app.command("wire")
def bench_wire_command(
    n: int = typer.Option(2000, "--n", help="Messages to encode and then decode."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Encode+sign and decode+verify of a move message, per second."""
    if n < 1:
        fail(f"--n must be at least 1, not {n}")
    from druids_p2p.bench.wire_bench import bench_wire

    result = bench_wire(n)
    if as_json:
        print(json.dumps(result.as_dict()))
        return
    print(
        f"{result.n} move messages of {result.message_bytes} bytes: "
        f"{result.encode_per_s:,.0f} encode+sign/s, {result.decode_per_s:,.0f} decode+verify/s "
        "(one core)"
    )
