#!/usr/bin/env bash
# bench/threads.sh: deep-mode slowdown of an OpenMP kernel (threads/omp_triad.c)
# at 1 and 2 threads against the native build at the same thread count:
# median wall time of REPS runs each, the four configurations interleaved
# so that other load on the machine affects them alike (docs/performance.md,
# issue 5).
# Usage: bench/threads.sh BUILD_DIR [REPS] [N] [KERNEL_REPS]
set -euo pipefail
build=$(cd "${1:?usage: bench/threads.sh BUILD_DIR [REPS] [N] [KERNEL_REPS]}" && pwd)
reps=${2:-5}
n=${3:-2097152}
kreps=${4:-10}
src=$(cd "$(dirname "$0")" && pwd)/threads/omp_triad.c
out=$build/bench/threads
mkdir -p "$out"
clang=/usr/lib/llvm-19/bin/clang
"$clang" -O2 -fopenmp "$src" -o "$out/native"
"$build/bin/pisa-cc" -O2 -fopenmp "$src" -o "$out/pisa"

# Wall seconds of one run of the command.
wall() {
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

declare -A times
for ((r = 0; r < reps; r++)); do
  for t in 1 2; do
    times[native$t]+="$(OMP_NUM_THREADS=$t wall "$out/native" "$n" "$kreps") "
    times[deep$t]+="$(OMP_NUM_THREADS=$t wall "$build/bin/pisa-char" -q \
      --force -o "$out/t$t.pisa.json" "$out/pisa" "$n" "$kreps") "
  done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

echo "omp_triad n=$n reps=$kreps, median of $reps; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| threads | native s | deep s | slowdown |\n|---|---|---|---|\n'
for t in 1 2; do
  native=$(echo "${times[native$t]}" | median)
  deep=$(echo "${times[deep$t]}" | median)
  printf '| %d | %.3f | %.2f | %.0fx |\n' "$t" "$native" "$deep" \
    "$(echo "$deep / $native" | bc -l)"
done
