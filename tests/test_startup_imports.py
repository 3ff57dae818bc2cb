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


def test_the_server_process_imports_py_webauthn_at_the_first_passkey_only() -> None:
    """py_webauthn brings cryptography, pyOpenSSL and cbor2 (about 135 modules, a sixth
    of a node's): server/competition/passkeys.py imports it at the first ceremony."""
    code = (
        "import sys, server.__main__, server.net.app, server.competition.passkeys;"
        " print(any(m.split('.')[0] in ('webauthn', 'OpenSSL', 'cbor2') for m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
