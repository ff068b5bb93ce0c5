#!/usr/bin/env bash
# Runs every libFuzzer target of build-fuzz/ for FUZZ_SECONDS each (default 60), one after the
# other, starting from its committed seeds (tests/fuzz/<target>/) plus what earlier runs found
# (build-fuzz/corpus/<target>/, never committed). Crash inputs go to build-fuzz/artifacts/.
# Prints one line per target (executions, new corpus size) and exits non-zero if any target
# found a crash, a timeout (hang), a leak, an OOM or a sanitizer report.
# Usage: tools/fuzz.sh [build dir] [target...]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=$(realpath "${1:-build-fuzz}") # absolute: fuzz_cli changes its working directory
shift || true
SECS=${FUZZ_SECONDS:-60}
# FUZZ_RUNS=N: N executions per target with a fixed seed instead of a time budget, so the CI
# smoke is the same run every time (a time budget would explore differently on a loaded
# machine and could find something new in CI that a local run did not). FUZZ_SEED=0 with it
# picks a random seed (a long run to a count: FUZZ_RUNS=10000000 FUZZ_SEED=0).
# FUZZ_NICE=19: run the targets at that niceness (background runs beside other work).
RUNS=${FUZZ_RUNS:-}
SEED=${FUZZ_SEED:-1}
NICE=(); [ -n "${FUZZ_NICE:-}" ] && NICE=(nice -n "$FUZZ_NICE")
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(api cli config cache emu_load)
mkdir -p "$BUILD/artifacts" "$BUILD/logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export MXJIT_CACHE_DIR=$(mktemp -d)
fail=0
for t in "${targets[@]}"; do
  corpus="$BUILD/corpus/$t"
  mkdir -p "$corpus"
  extra=()
  # the CLI prints a usage message for most inputs: keep the target's stdout/stderr closed
  [ "$t" = cli ] && extra+=(-close_fd_mask=3)
  log="$BUILD/logs/$t.log"
  budget=(-max_total_time="$SECS")
  [ -n "$RUNS" ] && budget=(-runs="$RUNS" -seed="$SEED")
  t0=$(date +%s)
  "${NICE[@]}" "$BUILD/fuzz_$t" "${budget[@]}" -timeout=25 -rss_limit_mb=2560 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/${t}-" "${extra[@]}" \
      "$corpus" "$PWD/tests/fuzz/$t" >"$log" 2>&1
  rc=$?
  wall=$(($(date +%s) - t0))
  runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -1)
  secs=$(sed -nE 's/^stat::.*total_time.*: *([0-9]+)/\1/p' "$log" | tail -1)
  n=$(ls "$corpus" | wc -l)
  if [ $rc -ne 0 ]; then
    fail=1
    echo "fuzz $t: FAILED (exit $rc) after ${runs:-?} executions; see $log"
    grep -E "^==[0-9]+==ERROR|runtime error|ALARM|out-of-memory|SUMMARY|Test unit written" "$log" | head -5
  else
    how="in ${SECS}s"
    [ -n "$RUNS" ] && how="(seed $SEED) in ${wall}s"
    echo "fuzz $t: ${runs:-?} executions $how, 0 crashes, corpus $n + seeds"
  fi
done
rm -rf "$MXJIT_CACHE_DIR"
exit $fail
