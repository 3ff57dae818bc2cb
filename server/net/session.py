"""One connection: parse, authorise, rate-limit and dispatch each message to the competition."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from pydantic import ValidationError

from server.audit.fairplay import Thresholds
from server.competition.catalogue import TournamentSpec
from server.competition.errors import CompetitionError
from server.competition.service import Competition
from server.domain import timing
from server.domain.accounts import DeviceInfo, RelyingParty
from server.domain.club_events import fields_of
from server.domain.model import PlayerInfo
from server.games.base import first_error
from server.net import (
    access,
    accounts_session,
    club_events_session,
    clubs_session,
    protocol,
    replies,
    schedule_session,
)
from server.net.accounts_protocol import SIGNED_OUT, device_brief
from server.net.fanout import Fanout, Watch, seen_of
from server.net.limits import TokenBucket
from server.net.metrics import Metrics
from server.net.schedule_session import series_fields
from server.ops import faults

log = logging.getLogger("samedeal.session")

RATE_PER_S = 100.0  # sustained messages per second per connection
RATE_BURST = 200.0  # messages allowed at once
ABUSE_STRIKES = 500  # rate-limited messages in a row before the connection is closed
_NOT_JSON = object()
TEXTS = {"revoked": "this device was signed out"}
ACT_NOT_ACKNOWLEDGED = (
    "internal error: the action was not acknowledged; send it again with the same seq "
    "(if it was stored after all, the reply is its state with duplicate: true)"
)


class Abuse(Exception):
    """Sustained abuse past the rate limit: close the connection."""


class Session:
    """The state of one connection. `handle` turns one frame into one reply."""

    def __init__(
        self,
        competition: Competition,
        fanout: Fanout,
        metrics: Metrics,
        conn: Any,
        may_register: Callable[[], bool] | None = None,
    ) -> None:
        self.competition = competition
        self.fanout = fanout
        self.metrics = metrics
        self.conn = conn
        self.player: PlayerInfo | None = None
        self.device: DeviceInfo | None = None  # v1.4: the device it is signed in with
        self._busy = False  # a message is being answered
        self._owed_signed_out = False  # told once that answer has gone
        self.bucket = TokenBucket(RATE_PER_S, RATE_BURST)  # control frames: the transport's
        self.strikes = 0
        self.may_register = may_register  # the per-address registration limit
        self.may_sign_in: Callable[[], bool] | None = None  # v1.4: passkey sign-ins' limit
        self.relying_party: Callable[[], RelyingParty | None] = lambda: None  # v1.4 passkeys

    async def handle(self, frame: str | bytes) -> dict[str, Any]:
        """The reply to one frame; raises Abuse when the connection must close. A
        `signed_out` owed meanwhile (v1.4) follows the reply. (One coroutine: every
        message passes here.)"""
        self._busy = True
        try:
            re = None
            data: Any = None
            if isinstance(frame, str):
                try:
                    data = orjson.loads(frame)
                except (orjson.JSONDecodeError, RecursionError):
                    data = _NOT_JSON
            if isinstance(data, dict) and _valid_id(data.get("id")):
                re = data["id"]
            if not self.bucket.take():
                self.strikes += 1
                if self.strikes >= ABUSE_STRIKES:
                    raise Abuse()
                return protocol.error(
                    re, "rate_limited", "too many messages: slow down", reason="too_many_messages"
                )
            self.strikes = 0
            if isinstance(frame, bytes):
                return protocol.error(
                    None, "bad_request", "binary frames are not supported", reason="binary_frame"
                )
            if data is _NOT_JSON:
                return protocol.error(None, "bad_request", "not JSON", reason="not_json")
            if not isinstance(data, dict) or not isinstance(data.get("type"), str):
                why = _shape_error(data, None)
                return protocol.error(re, "bad_request", why, reason="bad_shape")
            try:
                message = protocol.CLIENT_MESSAGE.validator.validate_python(data)
            except ValidationError as exc:
                why = _shape_error(data, exc)
                return protocol.error(re, "bad_request", why, reason="bad_shape")
            started = time.perf_counter()
            try:
                access.check(message.type, self.player)  # the one check of who may send what
                reply = await _HANDLERS[message.type](self, message)
            except CompetitionError as exc:
                if message.type == "act":
                    self.metrics.actions_rejected[exc.code] += 1
                return protocol.error(
                    re, exc.code, exc.message, reason=exc.reason, params=exc.params, **exc.extra
                )
            except Exception as exc:
                if not faults.report(exc, message.type):  # a traceback means a bug
                    log.exception("internal error on %s", message.type)
                if message.type == "act":
                    self.metrics.actions_rejected["internal"] += 1
                    return protocol.error(
                        re, "internal", ACT_NOT_ACKNOWLEDGED, reason="act_not_acknowledged"
                    )
                return protocol.error(re, "internal", "internal error; nothing was changed")
            if message.type == "act":
                self.metrics.actions_accepted += 1
                self.metrics.action_seconds.observe(time.perf_counter() - started)
            reply["re"] = re
            return reply
        finally:
            self._busy = False
            if self._owed_signed_out:
                self._owed_signed_out = False
                self._send_soon(SIGNED_OUT)

    # -- handlers ----------------------------------------------------------
    async def _on_ping(self, m: protocol.Ping) -> dict[str, Any]:
        # the clock every deadline and countdown is on (the wall clock, but for a test's)
        return {"type": "pong", "server_time": timing.iso(self.competition.players.now())}

    async def _on_register(self, m: protocol.Register) -> dict[str, Any]:
        if self.may_register is not None and not self.may_register():
            raise CompetitionError(
                "rate_limited",
                "too many registrations from your address: try again later",
                reason="too_many_registrations",
            )
        player, device, token = await self.competition.devices.register(m.name, m.device, m.bot)
        await self.sign_in(player, device, fresh=True)
        return {
            "type": "registered",
            "player": {"id": player.id, "name": player.name, **_bot(player)},
            "token": token,
            "device": device_brief(device),
        }

    async def _on_auth(self, m: protocol.Auth) -> dict[str, Any]:
        player, device = await self.competition.devices.authenticate(m.token)
        await self.sign_in(player, device)
        return {
            "type": "authed",
            "player": {"id": player.id, "name": player.name, "admin": player.admin, **_bot(player)},
            "device": device_brief(device),
        }

    async def sign_in(self, player: PlayerInfo, device: DeviceInfo, fresh: bool = False) -> None:
        """This connection is now `player`'s, with `device` (v1.4: until it is revoked);
        `unauthorized` when the device was revoked meanwhile (then signed in as nobody).
        `fresh`: the device was made by this registration (`Devices.hold`)."""
        devices = self.competition.devices
        if not await devices.hold(device, self.conn, self._signed_out, fresh):
            self.player = self.device = None
            raise CompetitionError("unauthorized", TEXTS["revoked"])
        self.player, self.device = player, device

    def _signed_out(self) -> None:
        """Its device was revoked: unauthenticated at once, told after any reply."""
        self.player = self.device = None
        if self._busy:
            self._owed_signed_out = True
        else:
            self._send_soon(SIGNED_OUT)

    def _send_soon(self, message: dict[str, Any]) -> None:
        """Sent after the reply in hand (it goes out as soon as `handle` returns)."""
        asyncio.get_running_loop().call_soon(self.conn.send_text, orjson.dumps(message))

    async def _on_tournaments(self, m: protocol.TournamentsRequest) -> dict[str, Any]:
        """v1.4: unlisted ones only for their clubs' members and admins (per viewer:
        never a list shared between viewers)."""
        items = []
        catalogue = self.competition.catalogue
        who = await club_events_session.viewer(self)
        for t in await catalogue.summaries():
            if who.lists(fields_of(t)):
                seed = await catalogue.revealed_seed(t)
                items.append(protocol.summary(t, seed, who))
        return {"type": "tournaments", "items": items}

    async def _on_create_tournament(self, m: protocol.CreateTournament) -> dict[str, Any]:
        made = await club_events_session.creation(self, "create_tournament", m)
        spec = TournamentSpec(
            name=m.name,
            game=m.game,
            options=m.options,
            ends_at=m.ends_at,
            starts_at=m.starts_at,
            time_limit_s=m.time_limit_s,
            join_until=m.join_until,
            beacon=m.beacon,
            series=series_fields(m.conditions, made.rated),
            event=made.event,  # v1.4 club events
            limits=made.limits,
        )
        t = await self.competition.catalogue.create(spec)
        return {"type": "tournament", "tournament": protocol.summary(t, None, made.viewer)}

    async def _on_close_tournament(self, m: protocol.CloseTournament) -> dict[str, Any]:
        found = await self.competition.catalogue.find(m.tournament)
        who = await club_events_session.manage(self, "close_tournament", found)
        t = await self.competition.lifecycle.close(m.tournament)
        seed = await self.competition.catalogue.revealed_seed(t)
        return {"type": "tournament", "tournament": protocol.summary(t, seed, who)}

    async def _on_join(self, m: protocol.Join) -> dict[str, Any]:
        assert self.player is not None
        play = self.competition.play
        return protocol.state_message(await play.join(self.player, m.tournament, m.code, m.club))

    async def _on_state(self, m: protocol.State) -> dict[str, Any]:
        assert self.player is not None
        return protocol.state_message(await self.competition.play.state(self.player, m.tournament))

    async def _on_act(self, m: protocol.Act) -> dict[str, Any]:
        assert self.player is not None
        snap = await self.competition.play.act(self.player, m.tournament, m.seq, m.action)
        return protocol.state_message(snap)

    async def _on_hint(self, m: protocol.Hint) -> dict[str, Any]:
        assert self.player is not None
        action, no_moves = await self.competition.play.hint(self.player, m.tournament)
        return {"type": "hint", "action": action, "no_moves": no_moves}

    async def _on_subscribe(self, m: protocol.Subscribe) -> dict[str, Any]:
        """The window now, then pushes when it changes (rows around the player's own
        entry when an authenticated subscriber has one)."""
        me = None if self.player is None else self.player.name
        view = await self.competition.standings.window(m.tournament, m.top, m.around, me)
        again = self.fanout.watching(m.tournament, self.conn)  # (then it had the reveal)
        self.fanout.subscribe(m.tournament, self.conn, Watch(m.top, m.around, me, seen_of(view)))
        if view.final and not again:  # closed already: the reveal it missed follows
            t = await self.competition.catalogue.find(m.tournament)
            seed, log_root = await self.competition.exports.reveal(t)
            closed = protocol.closed_message(m.tournament, seed, log_root)
            # sent after the reply, which goes out as soon as this handler returns
            asyncio.get_running_loop().call_soon(self.conn.send_text, orjson.dumps(closed))
        return protocol.standings_message(m.tournament, view)

    async def _on_standings_page(self, m: protocol.StandingsPage) -> dict[str, Any]:
        view = await self.competition.standings.page(m.tournament, m.offset, m.limit)
        return protocol.standings_message(m.tournament, view)

    async def _on_unsubscribe(self, m: protocol.Unsubscribe) -> dict[str, Any]:
        self.competition.catalogue.get(m.tournament)
        self.fanout.unsubscribe(m.tournament, self.conn)
        return {"type": "unsubscribed", "tournament": m.tournament}

    async def _on_record(self, m: protocol.RecordRequest) -> dict[str, Any]:
        return {
            "type": "record",
            "record": await self.competition.exports.record(m.tournament, m.player),
        }

    async def _on_leaderboard(self, m: protocol.LeaderboardRequest) -> dict[str, Any]:
        page = await self.competition.ratings.leaderboard(m.game, m.offset, m.limit)
        return replies.leaderboard_message(page)

    async def _on_player(self, m: protocol.PlayerRequest) -> dict[str, Any]:
        return replies.player_message(await self.competition.ratings.player(m.name))

    async def _on_disqualify(self, m: protocol.Disqualify) -> dict[str, Any]:
        found = await self.competition.catalogue.find(m.tournament)
        await club_events_session.manage(self, "disqualify", found)
        done = await self.competition.fairplay.disqualify(m.tournament, m.player, m.reason)
        return replies.amended_message(done)

    async def _on_fairplay_report(self, m: protocol.FairplayReport) -> dict[str, Any]:
        limits = Thresholds(opening_moves=m.moves)
        found = await self.competition.fairplay.report(m.tournament, limits)
        return replies.fairplay_report_message(m.tournament, found)


def _bot(player: PlayerInfo) -> dict[str, bool]:
    """`bot: true` for a bot, nothing for anyone else."""
    return {"bot": True} if player.bot else {}


_HANDLERS: dict[str, Callable[[Session, Any], Awaitable[dict[str, Any]]]] = (
    {
        kind: getattr(Session, f"_on_{kind}")
        for kind in protocol.MESSAGE_TYPES
        if kind not in schedule_session.HANDLERS
        and kind not in accounts_session.HANDLERS
        and kind not in clubs_session.HANDLERS
    }
    | schedule_session.HANDLERS
    | accounts_session.HANDLERS
    | clubs_session.HANDLERS
)  # schedules', accounts' and clubs' messages are handled in their own modules


def _valid_id(value: Any) -> bool:
    return (isinstance(value, str) and len(value) <= 128) or (
        isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**53
    )


def _shape_error(data: Any, exc: ValidationError | None) -> str:
    """One line saying what is wrong with a message's shape (never a value repr'd whole:
    a value may be nested a thousand deep)."""
    if not isinstance(data, dict):
        return "a message is a JSON object"
    kind = data.get("type")
    if isinstance(kind, str) and kind not in protocol.MESSAGE_TYPES:
        return f"unknown message type {kind[:40]!r}"
    if not isinstance(kind, str):  # named by its JSON type: never repr a value whole
        return f"a message's type is a string, not {_json_type(kind)}"
    return f"bad {kind}: {first_error(exc)}" if exc is not None else f"bad {kind}"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "an array" if isinstance(value, list) else "an object"
