"""The front door (service.py): `Competition.build` wires every part over one store, one
catalogue and one clock, and docs/ARCHITECTURE.md's parts table names parts that exist
(so it stays true when a part is renamed)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from server.competition.service import Competition

ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "ARCHITECTURE.md"


def test_the_parts_share_one_store_catalogue_and_schedules(competition: Competition) -> None:
    assert competition.play.store is competition.store is competition.standings.store
    assert competition.play.catalogue is competition.catalogue is competition.standings.catalogue
    assert competition.lifecycle.schedules is competition.schedules
    for part in dataclasses.fields(competition):
        assert getattr(competition, part.name) is not None, part.name


def test_the_parts_table_names_the_parts_that_exist() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    table = text[text.index("## The front door") : text.index("**The operator check.**")]
    named = {
        n
        for row in re.findall(r"^\| (`[^|]+`) \|", table, re.M)
        for n in re.findall(r"`(\w+)`", row)
    }
    fields = {f.name for f in dataclasses.fields(Competition)}
    assert named and named <= fields, named - fields
