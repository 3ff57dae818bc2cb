"""The public HTTP reads' paging (ratings_http.py `page_query`, for standings.json and the
ratings' pages): offset and limit from the query, defaults, and a clear refusal."""

from __future__ import annotations

import pytest

from server.competition.standings.reading import MAX_PAGE
from server.net.ratings_http import page_query


def test_offset_and_limit_from_the_query_else_the_defaults() -> None:
    assert page_query("/leaderboard/gaps.json") == (0, MAX_PAGE)
    assert page_query("/leaderboard/gaps.json?offset=20&limit=5") == (20, 5)
    assert page_query("/x.json?limit=9&limit=3") == (0, 3)  # the last one given


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("offset=ten", "whole numbers"),
        ("limit=1.5", "whole numbers"),
        ("offset=-1", "offset is 0 or more"),
        ("limit=0", f"limit is 1 to {MAX_PAGE}"),
        (f"limit={MAX_PAGE + 1}", f"limit is 1 to {MAX_PAGE}"),
    ],
)
def test_a_bad_page_is_refused_saying_why(query: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        page_query(f"/tournaments/1/standings.json?{query}")
