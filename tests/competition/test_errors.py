"""CompetitionError (errors.py): a protocol error code, its message, a reason a client
says in its language (the code when no finer one is given), params and extra fields."""

from __future__ import annotations

from server.competition.errors import CompetitionError


def test_the_reason_is_the_code_unless_a_finer_one_is_given() -> None:
    plain = CompetitionError("not_found", "no such tournament")
    assert (plain.code, plain.reason, plain.params, plain.extra) == (
        "not_found",
        "not_found",
        {},
        {},
    )
    assert str(plain) == plain.message == "no such tournament"
    fine = CompetitionError(
        "out_of_sync", "expected seq 4", reason="stale_seq", params={"seq": 4}, seq=4
    )
    assert (fine.reason, fine.params, fine.extra) == ("stale_seq", {"seq": 4}, {"seq": 4})
