# Builds the known-answer programs of rank-known.test with pisa-cc ($1) and
# runs each in deep mode with pisa-char ($2); sources in $3, documents into
# $4/docs. Usage: build-run.sh PISA_CC PISA_CHAR SRCDIR OUTDIR
set -e
mkdir -p "$4/docs"
for p in triad vadd chase histo gather spmv matmul nbody transc; do
  "$1" -O2 -g -o "$4/$p" "$3/$p.c" -lm
  "$2" -q --force -o "$4/docs/$p.pisa.json" "$4/$p" > "$4/$p.out"
done
