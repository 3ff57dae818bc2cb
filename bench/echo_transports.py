"""What the transport costs: the echo ceiling on the server's own transport
(`server.net.transport`, websockets' Sans-I/O core) against the same echo on websockets'
asyncio `Connection` (the server's transport before), side by side under the same
200-player load.

    .venv/bin/python -m bench.echo_transports [--runs 3] [--seconds 8] [--no-write]

Reports replies/s and the echo server's CPU per reply (medians, runs interleaved).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from bench.load import Echo, costed
from bench.report import write_section

KINDS = {
    "websockets Connection (before)": ("--connection",),
    "server.net.transport (the server's)": (),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="samedeal-echo-"))
    results: dict[str, list[dict[str, float]]] = {kind: [] for kind in KINDS}
    for _ in range(args.runs):
        for kind, extra in KINDS.items():
            echo = Echo(700, work, *extra)
            try:
                results[kind].append(
                    costed(echo.proc.pid, echo.ws, 1, args.players, args.seconds, "echo", "t")
                )
            finally:
                echo.stop()
            r = results[kind][-1]
            print(f"{kind}: {r['per_s']:.0f}/s, {r['cpu_us']:.1f} µs per reply", flush=True)
    rows = ["| echo server | replies/s | echo CPU µs per reply |", "|---|---|---|"]
    for kind, rs in results.items():
        per_s = statistics.median(r["per_s"] for r in rs)
        cpu = statistics.median(r["cpu_us"] for r in rs)
        rows.append(f"| {kind} | {per_s:,.0f} | {cpu:.1f} |")
    body = (
        f"{args.players} players, 700-byte replies, medians of {args.runs} interleaved runs of "
        f"{args.seconds:g} s; both bound by the load generator, so compare the CPU column:\n\n"
        + "\n".join(rows)
    )
    print(body)
    if not args.no_write:
        write_section("echo_transports", "python -m bench.echo_transports", body)


if __name__ == "__main__":
    main()
