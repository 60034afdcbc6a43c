#!/usr/bin/env bash
# Fuzzes pisa-char's readers for a long time (docs/reliability.md): each
# target in turn for SECONDS (default 3600), on its seed corpus
# (tests/fuzz/corpus/TARGET) and a corpus that grows across sessions in
# build/fuzz/corpus-TARGET. A failing input is kept as
# build/fuzz/TARGET-crash-* (or -leak-, -timeout-, -oom-); the statistics of
# each session go to build/fuzz/TARGET.log. Needs the test build
# (scripts/setup.sh --tests: the fuzz targets are part of the tests).
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   e.g. scripts/fuzz.sh 14400
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3600}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(document raw rankmerge manifest summary cmdline)
cmake --build build --target pisa_fuzzers >/dev/null
mkdir -p build/fuzz
here=$PWD # absolute paths: fuzz_cmdline works in a directory of its own
for t in "${targets[@]}"; do
  mkdir -p "build/fuzz/corpus-$t"
  leaks=1
  [[ $t == cmdline || $t == summary ]] && leaks=0 # exit() leaves memory
  echo "fuzz.sh: $t for $seconds s"
  ASAN_OPTIONS=detect_leaks=$leaks:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "build/tests/fuzz/bin/fuzz_$t" -max_total_time="$seconds" -max_len=131072 \
    -timeout=20 -rss_limit_mb=2048 -close_fd_mask=1 -print_final_stats=1 \
    -artifact_prefix="$here/build/fuzz/$t-" "$here/build/fuzz/corpus-$t" \
    "$here/tests/fuzz/corpus/$t" > "build/fuzz/$t.log" 2>&1 || {
    echo "fuzz.sh: $t failed; see build/fuzz/$t.log and build/fuzz/$t-*" >&2
    exit 1
  }
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' "build/fuzz/$t.log"
done
