"""Who may send which message (PROTOCOL.md): the one place the protocol's access is
declared and checked.

- OPEN_TYPES: anyone, without an account (watching, records after the close, ratings,
  schedules, v1.4 clubs and their members);
- OPERATOR_TYPES: an operator (an admin player) only, each with its refusal;
- every other type: any authenticated player (a club's verbs check the sender's role in
  the club themselves, competition/clubs.py: it is a fact of the database, not of the
  connection).

Not yet here (issue 40, item 2): "(admin)" also admits a club's leaders for their club's
events; that needs the event's club, so create/close/cancel/disqualify will check it.

The competition's operator verbs (creating and closing tournaments, schedules, fair play)
do not check again: they trust their caller, this check or the operator's command line,
which runs with the database's credentials and so is the operator's by construction.
"""

from __future__ import annotations

from server.competition.errors import CompetitionError
from server.domain.model import PlayerInfo
from server.net.accounts_protocol import OPEN_ACCOUNT_TYPES
from server.net.clubs_protocol import OPEN_CLUB_TYPES

OPEN_TYPES = frozenset(
    {"register", "auth", "ping", "tournaments", "subscribe", "unsubscribe", "standings_page"}
    | {"record"}  # after the close, records are public (the bundle is, over HTTP)
    | {"leaderboard", "player"}  # v1.3: ratings are public
    | {"schedules"}  # v1.3: series are public
    | OPEN_ACCOUNT_TYPES  # v1.4: linking a device starts signed out
    | OPEN_CLUB_TYPES  # v1.4: clubs and their members are public
)
OPERATOR_TYPES: dict[str, str] = {
    "create_tournament": "only an operator creates tournaments",
    "close_tournament": "only an operator closes tournaments",
    "create_schedule": "only an operator creates schedules",
    "cancel_schedule": "only an operator cancels schedules",
    "disqualify": "only an operator disqualifies",
    "fairplay_report": "only an operator reads fair-play reports",
}


def check(kind: str, player: PlayerInfo | None) -> None:
    """Whether `player` (None: not authenticated) may send a message of type `kind`:
    `unauthorized` without an account where one is needed, `forbidden` for an operator's
    message from anyone else."""
    if kind in OPEN_TYPES:
        return
    if player is None:
        raise CompetitionError(
            "unauthorized", "authenticate first (auth or register)", reason="sign_in_first"
        )
    refusal = OPERATOR_TYPES.get(kind)
    if refusal is not None and not player.admin:
        raise CompetitionError("forbidden", refusal, reason="operator_only")
