#!/usr/bin/env bash
# Runs one fuzz target over its seed corpus (tests/fuzz/corpus/NAME), then
# mutates for a fixed number of runs from a fixed seed, so that the test is
# repeatable; new inputs go to a scratch directory, never to the corpus, and
# an input that fails is kept as crash-* (or leak-*, timeout-*) in the
# directory this was started in.
# Usage: run_fuzz.sh BINARY CORPUS RUNS [libFuzzer options...]
set -euo pipefail
binary=$1 corpus=$2 runs=$3
shift 3
artifacts=$PWD/
scratch=$(mktemp -d "${TMPDIR:-/tmp}/pisa-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$scratch"
"$binary" -runs="$runs" -seed=1 -max_len=131072 -timeout=20 -rss_limit_mb=2048 \
  -close_fd_mask=1 -print_final_stats=1 -artifact_prefix="$artifacts" "$@" "$scratch" "$corpus" \
  2> >(grep -v '^pisa-char: ' >&2)
