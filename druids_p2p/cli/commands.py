"""Import every command module so that each registers its commands on the app."""

from druids_p2p.cli import (  # noqa: F401
    bench,  # druids bench engine, deal, table, wire
    bench_bots,  # tournament: druids bench bots, druids bench tournament
    bots_cmd,  # bots: druids bots
    id_cmd,  # wire: druids id
    peer_cmd,  # net: druids peer / host / join
    play_cmd,  # tui / net: druids play
    records,  # druids audit, replay, demo
    tables,  # druids tables, history
    tournament_cmd,  # tournament: druids tournament
)
