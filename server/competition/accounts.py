"""Deleting an account (v1.4, PROTOCOL.md "Accounts", COMPETITION.md "Accounts"): the
name goes, everything the competition rests on stays.

At once: the player is renamed to the pseudonym `deleted-<id>` (the old name's key is
kept: never registered again), the admin role ends, every device is revoked (its
connections signed out, on every node), every entry still playing is resigned by a
logged `resign`, and every tournament closed before gains an erasure amendment. The
tournaments touched read their tables again and rebuild their bundles, on every node.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from server.competition.devices import Devices
from server.competition.errors import CompetitionError
from server.competition.play import Play
from server.domain.accounts import pseudonym
from server.domain.model import PlayerInfo
from server.games.base import Status
from server.store import accounts as stored
from server.store import passkeys as stored_passkeys
from server.store.repository import Store

TEXTS = {
    "confirm": "to delete your account, send your name exactly as confirm",
    "deleted": "this account is deleted: sign in again",
}
RESIGN = {"kind": "resign"}
RESIGN_TRIES = 50  # out_of_sync means another action was stored: each try sees a later seq
log = logging.getLogger("samedeal.accounts")


class Accounts:
    """Deleting an account."""

    def __init__(
        self,
        store: Store,
        devices: Devices,
        play: Play,
        renamed: Callable[[int], None],
        now: Callable[[], datetime],
    ) -> None:
        self.store = store
        self.devices = devices
        self.play = play
        self.renamed = renamed  # a tournament of a renamed player (peers.Peers.renamed)
        self.now = now

    async def delete(self, player: PlayerInfo, confirm: str) -> None:
        """Delete `player`'s account (`confirm` exactly their name, else `bad_request`)."""
        if confirm != player.name:
            raise CompetitionError("bad_request", TEXTS["confirm"], reason="confirm_name")
        renamed = PlayerInfo(player.id, pseudonym(player.id), False, player.bot)
        erased = await stored.erase(self.store, player.id, renamed.name, self.now())
        if erased is None:  # deleted meanwhile (another connection, another node)
            raise CompetitionError("unauthorized", TEXTS["deleted"], reason="unknown_token")
        await stored_passkeys.remove(self.store, player.id, None, self.now())  # first: a
        await self.devices.revoke_all(renamed)  # sign-in in flight then revokes its own
        for tid in erased.open_ids:
            await self._resign(renamed, tid)
        for tid in erased.open_ids + erased.closed_ids:
            self.renamed(tid)

    async def _resign(self, player: PlayerInfo, tournament_id: int) -> None:
        """The entry resigned if it is still playing (a finished or closed one stays).

        An action of the player's in flight (here, or on another node until its notice
        arrives) may take the seq first: `out_of_sync` reads the game again (play.state
        refreshes it from the log) and resigns at the new seq, until it is done."""
        for _ in range(RESIGN_TRIES):
            try:
                snap = await self.play.state(player, tournament_id)
                if snap.status is not Status.PLAYING:
                    return
                await self.play.act(player, tournament_id, snap.seq + 1, RESIGN)
                return
            except CompetitionError as e:
                if e.code != "out_of_sync":
                    return  # closed, finished or gone meanwhile: nothing to resign
        log.error("entry of player %s in tournament %s not resigned", player.id, tournament_id)
