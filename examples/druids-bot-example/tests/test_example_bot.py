"""The example bot passes druids-p2p's bot test kit: run ``pytest`` in this folder."""

from druids_bot_example import LowballBot

from druids_p2p.api import check_bot


def test_lowball_is_well_behaved() -> None:
    report = check_bot(LowballBot, games=20)
    assert report.ok
