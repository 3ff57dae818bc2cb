"""results.csv (results.py): refused before the close, then a header and one row per
entry in standings order, CRLF line ends."""

from __future__ import annotations

import pytest

from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain.model import PlayerInfo
from tests.competition.conftest import gaps_spec


async def test_results_after_the_close_only(competition: Competition, alice: PlayerInfo) -> None:
    t = await competition.catalogue.create(gaps_spec())
    await competition.play.join(alice, t.id)
    with pytest.raises(CompetitionError) as refused:
        await competition.standings.results_csv(t.id)
    assert refused.value.code == "not_revealed"
    await competition.lifecycle.close(t.id)
    lines = (await competition.standings.results_csv(t.id)).split("\r\n")
    assert lines[0] == "rank,player,bot,status,progress,resets,time_ms,score,disqualified"
    assert lines[1].startswith("1,alice,false,timed_out,") and lines[1].endswith(",")
    assert lines[2:] == [""]
