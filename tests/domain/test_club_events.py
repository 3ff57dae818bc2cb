"""server/domain/club_events.py: who a list shows an event to, who is shown its entry
code, who leads it as a club (PROTOCOL.md "Visibility and entry codes", "Team battles")."""

from __future__ import annotations

from server.domain.club_events import ANONYMOUS, OPERATOR, EventFields, Viewer

BATTLE = EventFields(
    visibility="unlisted", entry_code="Code-1", created_by=9, battle={"clubs": [1, 2], "counted": 3}
)
MEMBER_OF_2 = Viewer(5, False, frozenset({2}), frozenset())
LEADS_1 = Viewer(6, False, frozenset({1}), frozenset({1}))
LEADS_BOTH = Viewer(7, False, frozenset({1, 2}), frozenset({1, 2}))
OUTSIDER = Viewer(8, False, frozenset({3}), frozenset({3}))
CREATOR = Viewer(9, False)


def test_a_battle_is_an_event_of_each_named_club() -> None:
    assert BATTLE.clubs() == (1, 2) and EventFields(club_id=4).clubs() == (4,)
    assert [v.lists(BATTLE) for v in (MEMBER_OF_2, LEADS_1, OUTSIDER, ANONYMOUS, OPERATOR)] == [
        True, True, False, False, True,
    ]  # fmt: skip
    assert [v.sees_code(BATTLE) for v in (MEMBER_OF_2, LEADS_1, CREATOR, OUTSIDER, OPERATOR)] == [
        False, True, True, False, True,
    ]  # fmt: skip
    assert [v.manages(BATTLE) for v in (LEADS_1, LEADS_BOTH, CREATOR, OPERATOR)] == [
        False, True, False, False,
    ]  # fmt: skip
    public = BATTLE._replace(visibility="public")
    assert OUTSIDER.lists(public) and ANONYMOUS.lists(public)
    assert not OUTSIDER.manages(EventFields())  # an event of no club: an operator's
