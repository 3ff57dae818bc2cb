#!/bin/sh
# Run the suite (or the pytest arguments given) while busy loops hold the machine's
# cores: no test may depend on an idle machine (README, "The suite under load").
# SAMEDEAL_BUSY_LOOPS: how many loops (default 2, one per core of a 2-core machine).
set -u
loops=${SAMEDEAL_BUSY_LOOPS:-2}
pids=""
i=0
while [ "$i" -lt "$loops" ]; do
    sh -c 'while :; do :; done' &
    pids="$pids $!"
    i=$((i + 1))
done
trap 'kill $pids 2>/dev/null' EXIT INT TERM
"$(dirname "$0")/../.venv/bin/pytest" "$@"
