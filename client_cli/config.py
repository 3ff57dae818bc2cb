"""Where the client keeps its tokens: one JSON file, mode 0600, in the user's config dir."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

DEFAULT_SERVER = "ws://127.0.0.1:8765/ws"


def server_url(explicit: str | None = None) -> str:
    return explicit or os.environ.get("SAMEDEAL_SERVER") or DEFAULT_SERVER


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "samedeal"


def tokens_path() -> Path:
    return config_dir() / "tokens.json"


def load_all() -> dict[str, Any]:
    try:
        saved = json.loads(tokens_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return saved if isinstance(saved, dict) else {}


def save_token(server: str, name: str, token: str) -> Path:
    """Remember the token for `server` (the file is created readable by the user only)."""
    data = load_all()
    data[server] = {"name": name, "token": token}
    path = tokens_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    os.chmod(path, 0o600)
    return path


def token_for(server: str) -> tuple[str, str] | None:
    entry = load_all().get(server)
    return None if not entry else (entry["name"], entry["token"])
