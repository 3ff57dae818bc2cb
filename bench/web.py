"""The browser client's figures: page weight, time to first render on loopback, and the
in-browser verifier against the Python one on the same 1,000-record Gaps bundle.

    python -m bench.web [--loads 9] [--runs 3] [--records 1000] [--no-write]

Needs Debian's Chromium (/usr/bin/chromium) and the playwright package (no browser
download: the system Chromium is launched). The bundle is bench.engine's (random legal
games from server.games.random_play, written by server.audit.records). Writes its section
of docs/BENCHMARKS.md between `<!-- web:start -->` and `<!-- web:end -->`.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.engine import gaps_bundle
from server.audit.untrusted import parse_json
from server.audit.verify import verify_document

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "server" / "web"
DOC = ROOT / "docs" / "BENCHMARKS.md"
START, END = "<!-- web:start -->", "<!-- web:end -->"
CHROMIUM = os.environ.get("SAMEDEAL_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def page_weight() -> dict[str, int]:
    """Bytes the browser loads: every module and the stylesheet (raw and gzip -9)."""
    files = sorted(p for p in WEB.iterdir() if p.suffix in (".js", ".css", ".html"))
    raw = {p.suffix: 0 for p in files}
    zipped = 0
    for p in files:
        data = p.read_bytes()
        raw[p.suffix] += len(data)
        zipped += len(gzip.compress(data, 9))
    return {
        "js": raw.get(".js", 0),
        "css": raw.get(".css", 0),
        "html": raw.get(".html", 0),
        "gzip": zipped,
        "files": len(files),
    }


def start_server(db: Path) -> tuple[subprocess.Popen[bytes], int]:
    log = db.with_suffix(".log")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "server",
            "--database-url",
            f"sqlite+aiosqlite:///{db}",
            "serve",
            "--port",
            "0",
        ],
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = re.search(r"listening on ws://127\.0\.0\.1:(\d+)/ws", log.read_text())
        if found:
            port = int(found.group(1))
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5).read()
            return proc, port
        time.sleep(0.05)
    proc.kill()
    raise TimeoutError(log.read_text())


async def browser_figures(port: int, loads: int, runs: int, bundle_text: str) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    base = f"http://127.0.0.1:{port}"
    out: dict[str, Any] = {"fcp": [], "lobby": [], "verify": [], "parse": []}
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        out["chromium"] = browser.version
        for _ in range(loads):
            context = await browser.new_context()  # a cold cache each time
            page = await context.new_page()
            await page.goto(base + "/")
            await page.wait_for_selector(".tcard")
            marks = await page.evaluate(
                """() => ({
                  fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
                  lobby: (performance.getEntriesByName('samedeal:lobby')[0] || {}).startTime,
                })"""
            )
            out["fcp"].append(marks["fcp"])
            out["lobby"].append(marks["lobby"])
            await context.close()
        page = await browser.new_page()
        await page.goto(base + "/verify")
        for _ in range(runs):
            timing = await page.evaluate(
                """async (text) => {
                  const m = await import('/static/verify.js');
                  const t0 = performance.now();
                  const doc = JSON.parse(text);
                  const t1 = performance.now();
                  const report = await m.verifyDocument(doc);
                  const t2 = performance.now();
                  return {parse: t1 - t0, verify: t2 - t1, ok: report.ok, error: report.error};
                }""",
                bundle_text,
            )
            assert timing["ok"], timing["error"]
            out["parse"].append(timing["parse"])
            out["verify"].append(timing["verify"])
        await browser.close()
    return out


def python_figures(raw: bytes, runs: int) -> dict[str, list[float]]:
    parse, verify = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        doc = parse_json(raw)
        t1 = time.perf_counter()
        report = verify_document(doc)
        t2 = time.perf_counter()
        assert report.ok, report.error
        parse.append((t1 - t0) * 1000)
        verify.append((t2 - t1) * 1000)
    return {"parse": parse, "verify": verify}


def section(
    weight: dict[str, int],
    b: dict[str, Any],
    py: dict[str, list[float]],
    n_records: int,
    n_actions: int,
    size: int,
    loads: int,
    runs: int,
) -> str:
    med = statistics.median
    js_total = med(b["parse"]) + med(b["verify"])
    py_total = med(py["parse"]) + med(py["verify"])
    lines = [
        START,
        "## Browser client (bench/web.py)",
        "",
        f"Command: `python -m bench.web --loads {loads} --runs {runs} --records {n_records}` — "
        f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
        f"Chromium {b['chromium']} headless (Debian), {datetime.now(UTC):%Y-%m-%d}",
        "",
        "| page weight | bytes |",
        "|---|---|",
        f"| JavaScript ({weight['files'] - 2} ES modules, no framework, no build) "
        f"| {weight['js']:,} |",
        f"| CSS | {weight['css']:,} |",
        f"| HTML | {weight['html']:,} |",
        f"| all of it, gzip -9 per file (the server sends it uncompressed) | {weight['gzip']:,} |",
        "",
        f"Time to first render on loopback, median of {loads} loads of `/` in a fresh context "
        "(cold cache), from the navigation's start:",
        "",
        "| mark | ms |",
        "|---|---|",
        f"| first contentful paint | {med(b['fcp']):.0f} |",
        f"| lobby rendered with the tournament list (over the WebSocket) | {med(b['lobby']):.0f} |",
        "",
        f"Verifying one Gaps bundle of {n_records:,} records ({n_actions:,} actions, "
        f"{size / 2**20:.1f} MiB), median of {runs} runs each, side by side in one run:",
        "",
        "| verifier | parse ms | verify ms | total ms |",
        "|---|---|---|---|",
        f"| in the browser (server/web/verify.js, Web Crypto) | {med(b['parse']):.0f} | "
        f"{med(b['verify']):.0f} | {js_total:.0f} |",
        f"| Python (`samedeal verify`: parse_json + verify_document) | {med(py['parse']):.0f} | "
        f"{med(py['verify']):.0f} | {py_total:.0f} |",
        "",
        f"The browser takes {js_total / py_total:.2f}× the Python verifier's time. Both give the "
        "same verdict, lines and first difference (tests/web/test_js.py).",
        END,
    ]
    return "\n".join(lines)


def write(text: str) -> None:
    doc = DOC.read_text(encoding="utf-8")
    if START in doc and END in doc:
        before, rest = doc.split(START, 1)
        _, after = rest.split(END, 1)
        doc = before + text + after
    else:
        doc = doc.rstrip("\n") + "\n\n" + text + "\n"
    DOC.write_text(doc, encoding="utf-8")
    print(f"updated {DOC.relative_to(ROOT)} [web]", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--loads", type=int, default=9)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--records", type=int, default=1000)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    weight = page_weight()
    bundle = gaps_bundle(args.records)
    text = json.dumps(bundle)
    raw = text.encode()
    n_actions = sum(len(r["actions"]) for r in bundle["records"])
    py = python_figures(raw, args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = start_server(Path(tmp) / "bench.db")
        try:
            b = asyncio.run(browser_figures(port, args.loads, args.runs, text))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    out = section(weight, b, py, args.records, n_actions, len(raw), args.loads, args.runs)
    print(out)
    if not args.no_write:
        write(out)


if __name__ == "__main__":
    main()
