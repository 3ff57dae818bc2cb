"""Each Gaps family variant over the wire, the way an organiser and players meet it: the
`samedeal` program creates the tournament with `--variant`, bot players (real
connections) play it, the organiser closes it, the bundle is fetched and checked by
`samedeal verify`, par lines included. And every refused option set of the contract's
vectors is `bad_request` in one line that creates nothing (tournament or schedule)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from server.games.gaps import GAPS
from tests.conftest import load_vector
from tests.support.harness import Clock, create_msg, running_server, until
from tests.support.processes import samedeal

VECTORS = load_vector("gaps-variants-v1.json")


@pytest.mark.parametrize("variant", ["montana", "addiction", "free_parking"])
async def test_a_variant_tournament_played_closed_and_verified(
    sqlite_url: str, tmp_path: Path, variant: str
) -> None:
    async with running_server(sqlite_url, Clock(datetime.now(UTC))) as srv:
        env = {
            **os.environ,
            "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
            "SAMEDEAL_SERVER": srv.ws_url,
        }
        code, _, err = await samedeal(env, "register", "organiser")
        assert code == 0, err
        await srv.app.store.set_admin("organiser")
        code, out, err = await samedeal(
            env,
            "create",
            "--json",
            "--name",
            f"{variant} cup",
            "--variant",
            variant,
            "--hours",
            "2",
        )
        assert code == 0, err
        summary = json.loads(out)
        tid = summary["id"]
        assert summary["options"] == GAPS.parse_options({"variant": variant}).model_dump()
        assert summary["options"]["variant"] == variant
        code, out, err = await samedeal(env, "tournaments")
        words = {"montana": "Montana", "addiction": "Addiction", "free_parking": "Free Parking"}
        assert code == 0 and f"Gaps · {words[variant]}" in out, out + err

        code, out, err = await samedeal(
            env, "bot", "--tournament", str(tid), "--players", "3", "--strategy", "greedy"
        )
        assert code == 0, out + err
        assert len(out.strip().splitlines()) == 3, out
        code, out, err = await samedeal(env, "close", "--json", str(tid))
        assert code == 0, err

        async with srv.client() as reader:

            async def every_par() -> bool:
                listed = await reader.ok(type="standings_page", tournament=tid)
                return all(row.get("par") is not None for row in listed["rows"])

            await until(every_par, 120.0, 0.2)

        bundle_file = tmp_path / "bundle.json"
        code, _, err = await samedeal(env, "bundle", str(tid), "-o", str(bundle_file))
        assert code == 0, err
        bundle = json.loads(bundle_file.read_text())
        assert bundle["tournament"]["options"]["variant"] == variant
        assert len(bundle["records"]) == 3 and all("par" in r for r in bundle["records"])
        code, out, err = await samedeal(env, "verify", str(bundle_file))
        assert code == 0 and "verified" in out, out + err
        assert out.count("par line (") == 3, out

        bundle["tournament"]["options"].pop("variant")  # the same bundle read as plain Gaps
        for record in bundle["records"]:
            record["tournament"]["options"].pop("variant")
        bundle_file.write_text(json.dumps(bundle))
        code, out, err = await samedeal(env, "verify", str(bundle_file))
        assert code == 1 and "verified" not in out, out + err


def _refused() -> list[dict[str, Any]]:
    return list(VECTORS["options"]["refused"])


async def test_every_refused_option_set_is_one_line_and_creates_nothing(sqlite_url: str) -> None:
    async with running_server(sqlite_url) as srv:
        op = await srv.admin()
        for refused in _refused():
            when = datetime.now(UTC)
            err = await op.err(
                "bad_request", **create_msg(game=refused["game"], options=refused["options"])
            )
            assert "\n" not in err["message"], err
            name = next(iter(refused["options"])) if len(refused["options"]) == 1 else ""
            assert name in err["message"], (refused, err["message"])
            err = await op.err(
                "bad_request",
                type="create_schedule",
                name="Nightly",
                game=refused["game"],
                options=refused["options"],
                first_starts_at=(when + timedelta(hours=1)).isoformat(),
                every_s=86400,
                duration_s=3600,
            )
            assert "\n" not in err["message"], err
        assert (await op.ok(type="tournaments"))["items"] == []
        assert (await op.ok(type="schedules"))["items"] == []
        for accepted in VECTORS["options"]["accepted"]:
            made = await op.ok(**create_msg(options=accepted["options"]))
            effective = accepted["effective"]
            served = made["tournament"]["options"]
            assert {**served, "variant": served.get("variant", "gaps")} == effective
