"""Who may send which message (PROTOCOL.md): the one place the protocol's access is
declared and checked.

- OPEN_TYPES: anyone, without an account (watching, records after the close, ratings,
  schedules, v1.4 clubs and their members);
- OPERATOR_TYPES: an operator (an admin player) only, each with its refusal;
- every other type: any authenticated player (a club's verbs check the sender's role in
  the club themselves, competition/clubs.py: it is a fact of the database, not of the
  connection).

v1.4 club events: CLUB_EVENT_TYPES are an operator's, or the event's leaders' (a club's
leaders for its events, a battle's: who leads every named club). Those facts are the
database's, so `check` lets them through and their handlers call `creation` or `manage`
here with the event's clubs and the sender's (net/club_events_session.py): every such
handler does, before it changes anything.

The competition's operator verbs (creating and closing tournaments, schedules, fair play)
do not check again: they trust their caller, this check or the operator's command line,
which runs with the database's credentials and so is the operator's by construction.
"""

from __future__ import annotations

from server.competition.errors import CompetitionError
from server.domain.club_events import EventFields, Viewer
from server.domain.model import PlayerInfo
from server.net.accounts_protocol import OPEN_ACCOUNT_TYPES
from server.net.clubs_protocol import OPEN_CLUB_TYPES

OPEN_TYPES = frozenset(
    {"register", "auth", "ping", "tournaments", "subscribe", "unsubscribe", "standings_page"}
    | {"record"}  # after the close, records are public (the bundle is, over HTTP)
    | {"leaderboard", "player"}  # ratings are public
    | {"schedules"}  # series are public
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


CLUB_EVENT_TYPES = frozenset(
    {"create_tournament", "create_schedule", "close_tournament", "cancel_schedule", "disqualify"}
)
TEXTS = {
    "club_leaders_only": "only an operator or the event's club leaders may do that",
    "club_event_unrated": "a club event made by a player is unrated: rated is false",
    "rated_club_disqualify": "in a rated club event only an operator disqualifies",
}


def check(kind: str, player: PlayerInfo | None) -> None:
    """Whether `player` (None: not authenticated) may send a message of type `kind`:
    `unauthorized` without an account where one is needed, `forbidden` for an operator's
    message from anyone else (CLUB_EVENT_TYPES: decided by `creation`, `manage`)."""
    if kind in OPEN_TYPES:
        return
    if player is None:
        raise CompetitionError(
            "unauthorized", "authenticate first (auth or register)", reason="sign_in_first"
        )
    refusal = OPERATOR_TYPES.get(kind)
    if refusal is not None and not player.admin and kind not in CLUB_EVENT_TYPES:
        raise CompetitionError("forbidden", refusal, reason="operator_only")


def operator_viewer(player: PlayerInfo | None) -> Viewer | None:
    """The operator (an admin player) as a club event's Viewer, whose clubs need no
    reading; None for anyone else."""
    return Viewer(player.id, True) if player is not None and player.admin else None


def limited_clubs(viewer: Viewer, event: EventFields) -> tuple[int, ...]:
    """The clubs whose limits `viewer`'s creation of `event` must fit: none for an
    operator's."""
    return () if viewer.admin else event.clubs()


def _not_theirs(kind: str, event: EventFields) -> CompetitionError:
    if not event.clubs():
        return CompetitionError("forbidden", OPERATOR_TYPES[kind], reason="operator_only")
    return CompetitionError("forbidden", TEXTS["club_leaders_only"], reason="club_leaders_only")


def creation(kind: str, viewer: Viewer, event: EventFields, rated: bool | None) -> bool:
    """Whether `viewer` may create `event` (create_tournament, create_schedule): an
    admin, or a leader of every club it names; and its `rated`: as asked (true by
    default) for an admin, false for anyone else (`rated: true` refused)."""
    if viewer.admin:
        return True if rated is None else rated
    if not viewer.manages(event):
        raise _not_theirs(kind, event)
    if rated:
        raise CompetitionError(
            "forbidden", TEXTS["club_event_unrated"], reason="club_event_unrated"
        )
    return False


def manage(kind: str, viewer: Viewer, event: EventFields, rated: bool) -> None:
    """Whether `viewer` may close, cancel or disqualify in `event`: an admin, or a
    leader of every club it names (disqualify in a rated event: admins only)."""
    if viewer.admin:
        return
    if not viewer.manages(event):
        raise _not_theirs(kind, event)
    if kind == "disqualify" and rated:
        raise CompetitionError(
            "forbidden", TEXTS["rated_club_disqualify"], reason="rated_club_disqualify"
        )
