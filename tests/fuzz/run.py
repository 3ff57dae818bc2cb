"""Run the atheris fuzz targets (tests/fuzz/fuzz_*.py), each in a process of its own.

    .venv/bin/python -m tests.fuzz.run [TARGET ...] [--runs N | --seconds S] [--keep DIR]

Each target starts from seeds made from the repository's vectors and from its regression
inputs (written to a fresh corpus folder; libFuzzer adds what it finds there) and a
dictionary of its tokens. The
defaults come from SAMEDEAL_FUZZ_RUNS (executions per target, default 3,000) or
SAMEDEAL_FUZZ_SECONDS (seconds per target, which wins when set). A crash leaves the
input libFuzzer saved (crash-*) in the target's folder under --keep, and the target's
output there too: copy it to tests/fuzz/regressions/TARGET/ to make it a regression
test. Prints one line of figures per target: executions, time, coverage (libFuzzer's
`cov`: edges of the project's code seen, and `ft`: features) and the corpus it grew.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from tests.fuzz.common import REGRESSIONS, REPO

TARGETS = ["protocol", "actions", "verify", "operator_cli"]
MAX_LEN = {"protocol": 4096, "actions": 512, "verify": 65536, "operator_cli": 512}


@dataclass
class Outcome:
    target: str
    returncode: int
    executions: int
    seconds: float
    cov: int
    ft: int
    corpus: int
    folder: Path
    output: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def line(self) -> str:
        verdict = "no crash" if self.ok else f"FAILED (exit {self.returncode}, see {self.folder})"
        return (
            f"{self.target}: {self.executions:,} executions in {self.seconds:.0f} s "
            f"({self.executions / max(self.seconds, 1e-9):,.0f}/s), cov {self.cov}, "
            f"ft {self.ft}, corpus {self.corpus}: {verdict}"
        )


def _dictionary(tokens: list[str]) -> str:
    def quoted(token: str) -> str:
        raw = token.encode("utf-8", "surrogatepass") if not token.isascii() else token.encode()
        if all(0x20 <= b < 0x7F and b not in b'"\\' for b in raw):
            return raw.decode()
        return "".join(
            chr(b) if 0x20 <= b < 0x7F and b not in b'"\\' else f"\\x{b:02x}" for b in raw
        )

    return "".join(f'"{quoted(t)}"\n' for t in tokens)


def run_target(
    target: str,
    folder: Path,
    runs: int | None = None,
    seconds: int | None = None,
    seed: int | None = None,
) -> Outcome:
    """Fuzz one target for `runs` executions or `seconds` seconds, in `folder`; with a
    `seed` libFuzzer's choices repeat run after run (the suite's short runs use 1)."""
    module = import_module(f"tests.fuzz.fuzz_{target}")
    corpus = folder / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for i, start in enumerate(module.seeds()):
        (corpus / f"seed-{i:04d}").write_bytes(start)
    for found in sorted((REGRESSIONS / target).glob("*")):  # what crashed once starts too
        (corpus / f"regression-{found.name}").write_bytes(found.read_bytes())
    tokens = folder / "tokens.dict"
    tokens.write_text(_dictionary(module.TOKENS))
    budget = f"-max_total_time={seconds}" if seconds else f"-runs={runs or 3000}"
    command = [
        sys.executable,
        "-m",
        f"tests.fuzz.fuzz_{target}",
        str(corpus),
        budget,
        f"-dict={tokens}",
        f"-max_len={MAX_LEN[target]}",
        f"-artifact_prefix={folder}/",
        "-timeout=20",
        "-rss_limit_mb=3072",
        "-print_final_stats=1",
        *([f"-seed={seed}"] if seed is not None else []),
    ]
    started = time.perf_counter()
    done = subprocess.run(
        command,
        cwd=REPO,
        capture_output=True,
        text=True,
        errors="replace",
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    elapsed = time.perf_counter() - started
    output = done.stdout + done.stderr
    (folder / "output.txt").write_text(output)
    stats = re.findall(r"cov: (\d+) ft: (\d+) corp: (\d+)", output)
    cov, ft, corp = (int(x) for x in stats[-1]) if stats else (0, 0, 0)
    executed = re.search(r"stat::number_of_executed_units: (\d+)", output)
    return Outcome(
        target,
        done.returncode,
        int(executed.group(1)) if executed else 0,
        elapsed,
        cov,
        ft,
        corp,
        folder,
        output,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.run", description=__doc__)
    parser.add_argument("targets", nargs="*", choices=[[], *TARGETS], default=[])
    parser.add_argument("--runs", type=int, default=int(os.environ.get("SAMEDEAL_FUZZ_RUNS", 3000)))
    parser.add_argument(
        "--seconds", type=int, default=int(os.environ.get("SAMEDEAL_FUZZ_SECONDS", 0))
    )
    parser.add_argument("--keep", type=Path, help="the folder for corpora and crashes")
    parser.add_argument("--seed", type=int, help="libFuzzer's seed (default: a new one)")
    args = parser.parse_args(argv)
    base = args.keep or Path(tempfile.mkdtemp(prefix="samedeal-fuzz-"))
    failed = 0
    for target in args.targets or TARGETS:
        outcome = run_target(target, base / target, args.runs, args.seconds or None, args.seed)
        print(outcome.line(), flush=True)
        failed += not outcome.ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
