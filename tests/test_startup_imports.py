"""A node's start-up imports only what serving needs: numpy (ratings' arithmetic, in the
rating worker) stays out of the event loop's process. It was about a fifth of a node's
imports, and a node killed in the chaos bench waits on them to serve again
(docs/RELIABILITY.md, "The chaos bench")."""

from __future__ import annotations

import subprocess
import sys


def test_the_server_process_does_not_import_numpy() -> None:
    code = (
        "import sys, server.__main__, server.net.app, server.competition.ratings;"
        " print('numpy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
