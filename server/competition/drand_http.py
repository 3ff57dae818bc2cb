"""drand's HTTP API, the I/O behind competition/beacon_policy.py's `Fetch`: GET a URL, the JSON
body, NotYet for a 404. The standard library's client in a worker thread (one request
per round and relay, rarely), so the event loop never waits on a socket."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

from server.competition.beacon_policy import NotYet

MAX_BODY = 64 * 1024  # a round is a few hundred bytes


async def fetch_json(url: str, timeout_s: float) -> Any:
    """The JSON at `url`; NotYet on 404; OSError, TimeoutError or ValueError otherwise."""
    return await asyncio.to_thread(_get, url, timeout_s)


def _get(url: str, timeout_s: float) -> Any:
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) URL: {url!r}")
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            body = response.read(MAX_BODY + 1)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            raise NotYet(url) from None
        raise OSError(f"HTTP {exc.code} from {url}") from None
    if len(body) > MAX_BODY:
        raise ValueError(f"{url}: the answer is over {MAX_BODY} bytes")
    return json.loads(body)
