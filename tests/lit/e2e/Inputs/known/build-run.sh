# Builds the known-answer programs of rank-known.test with pisa-cc ($1) and
# runs each in deep mode with pisa-char ($2); sources in $3, documents into
# $4/docs: all of them, or the names after OUTDIR.
# Usage: build-run.sh PISA_CC PISA_CHAR SRCDIR OUTDIR [NAME...]
set -e
cc=$1 char=$2 src=$3 out=$4
shift 4
mkdir -p "$out/docs"
for p in ${*:-triad vadd chase histo gather spmv matmul nbody transc}; do
  "$cc" -O2 -g -o "$out/$p" "$src/$p.c" -lm
  "$char" -q --force -o "$out/docs/$p.pisa.json" "$out/$p" > "$out/$p.out"
done
