# Builds the CPU versions of the PrIM workloads ($3/*.c; VA, HST and SpMV
# are the known-answer programs of ../known) with pisa-cc ($1) and runs
# each in deep mode with pisa-char ($2); documents into $4/docs.
# Usage: run.sh PISA_CC PISA_CHAR SRCDIR OUTDIR
set -e
mkdir -p "$4/docs"
for src in "$3"/*.c "$3/../known/vadd.c" "$3/../known/histo.c" \
    "$3/../known/spmv.c"; do
  p=$(basename "$src" .c)
  "$1" -O2 -g -o "$4/$p" "$src" -lm
  "$2" -q --force -o "$4/docs/$p.pisa.json" "$4/$p" > "$4/$p.out"
done
