from server.domain.ranking import Result, order_key, rank_key, standings
from tests.support.factories import figures


def r(name: str, progress: int, resets: int, time_ms: int) -> Result:
    return Result(name, figures("lost", progress, resets, score=progress, time_ms=time_ms))


def test_progress_then_resets_then_time() -> None:
    rows = standings(
        [
            r("slow", 48, 0, 9000),
            r("fast", 48, 0, 1000),
            r("redealt", 48, 1, 10),
            r("less", 40, 0, 5),
        ]
    )
    assert [x.player for x in rows] == ["fast", "slow", "redealt", "less"]
    assert [x.rank for x in rows] == [1, 2, 3, 4]


def test_equal_keys_share_a_rank_and_the_next_rank_skips() -> None:
    rows = standings([r("b", 10, 0, 5), r("A", 10, 0, 5), r("c", 20, 0, 9), r("d", 1, 0, 1)])
    assert [(x.rank, x.player) for x in rows] == [(1, "c"), (2, "A"), (2, "b"), (4, "d")]


def test_score_is_never_ranked_on() -> None:
    a = Result("a", figures("won", 48, 0, score=-100, time_ms=10))
    b = Result("b", figures("won", 48, 0, score=1000, time_ms=20))
    assert [x.player for x in standings([b, a])] == ["a", "b"]


def test_empty() -> None:
    assert standings([]) == []


def test_within_a_shared_rank_names_casefolded_then_the_name() -> None:
    rows = standings([r(n, 5, 0, 7) for n in ["b", "a", "B", "A", "ß", "ss"]])
    assert [x.player for x in rows] == ["A", "a", "B", "b", "ss", "ß"]
    assert {x.rank for x in rows} == {1}


def test_the_rank_key_is_the_one_rule() -> None:
    assert rank_key(48, 1, 5) == (-48, 1, 5)
    assert r("x", 48, 1, 5).key == rank_key(48, 1, 5)
    assert order_key(48, 1, 5, "Bo") == (-48, 1, 5, "bo", "Bo")
    assert rank_key(10, 0, 99) < rank_key(9, 0, 1)  # progress first
    assert rank_key(10, 0, 99) < rank_key(10, 1, 1)  # then resets
    assert rank_key(10, 0, 1) < rank_key(10, 0, 2)  # then time


def test_a_shared_rank_orders_names_by_the_code_points_of_their_nfc_lower_case() -> None:
    names = ["zed", "Émile", "eva", "Ａna", "𝒜lex", "Zoë", "İsmail", "Joa\u0303o"]
    ranked = [row.player for row in standings([r(n, 4, 0, 500) for n in names])]
    # é (U+00E9) after z; fullwidth ａ (U+FF41) before 𝒜 (U+1D49C), which UTF-16
    # units would put first (0xD835 < 0xFF41)
    assert ranked == ["eva", "İsmail", "Joa\u0303o", "zed", "Zoë", "Émile", "Ａna", "𝒜lex"]
