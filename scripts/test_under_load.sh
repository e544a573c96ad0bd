#!/usr/bin/env bash
# `make test` N times in a row (default 3) while LOAD processes (default: one per core) spin on the CPU, as on a
# busy CI machine (#37). Prints each run's result and wall time; exits non-zero if any run failed.
#   bash scripts/test_under_load.sh [RUNS] [LOAD]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
load=${2:-$(nproc)}
log_dir=${TEST_UNDER_LOAD_LOGS:-out/test-under-load}
mkdir -p "$log_dir"
spinners=()
for _ in $(seq "$load"); do
  python3 -c 'while True: pass' &
  spinners+=($!)
done
trap 'kill "${spinners[@]}" 2>/dev/null' EXIT
echo "test_under_load: $load spinning process(es) on $(nproc) core(s); $runs run(s) of make test; logs in $log_dir"
failed=0
for i in $(seq "$runs"); do
  start=$(date +%s)
  make test > "$log_dir/run$i.log" 2>&1
  code=$?
  took=$(( $(date +%s) - start ))
  summary=$(grep -E "^[0-9]+ (passed|failed)|[0-9]+ passed" "$log_dir/run$i.log" | head -n 1)
  printf 'run %d: exit %d in %d min %02d s (load %s): %s\n' "$i" "$code" $((took / 60)) $((took % 60)) \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$summary"
  [ "$code" -eq 0 ] || failed=1
done
exit "$failed"
