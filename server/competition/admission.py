"""Entry conditions at the join (COMPETITION.md "Series"): the facts about a player read
from the store (account age, ratings) and judged by domain/conditions.

Called from play.join for a player without an entry only: resuming is always allowed."""

from __future__ import annotations

from datetime import datetime

from server.competition.errors import CompetitionError
from server.domain import conditions
from server.domain.model import PlayerInfo, TournamentInfo
from server.domain.ratings import MU, SIGMA, shown
from server.store import ratings as stored_ratings
from server.store import schedules as stored
from server.store.repository import Store


async def admit(store: Store, player: PlayerInfo, t: TournamentInfo, now: datetime) -> None:
    """Nothing when the player meets the tournament's conditions; `forbidden` naming the
    condition otherwise."""
    if not t.conditions:
        return
    created = await stored.account_created_at(store, player.id)
    row = (await stored_ratings.current(store, t.game, [player.id])).get(player.id)
    mu, sigma, rated = row if row is not None else (MU, SIGMA, 0)
    facts = conditions.Facts(
        bot=player.bot,
        account_age_s=(now - created).total_seconds() if created is not None else 0.0,
        rated=rated,
        rating=shown(mu, sigma),
    )
    why = conditions.refusal(t.conditions, facts)
    if why is not None:
        raise CompetitionError(
            "forbidden", why.text, reason=f"condition_{why.condition}", params=why.params
        )
