#!/bin/sh
# each.sh PISA_CHAR OUT [OPTION...] -- PROGRAM [ARGS...]: runs pisa-char on
# PROGRAM with --analysis-threads 0, 1, 2 and 3, writing OUT.N.json, with
# address space randomisation off, so that every run samples the same
# blocks.
# Snapshots off: the snapshot thread's stack is mapped at a point that
# depends on the workers' start, which moves the program's later mmap'ed
# arrays by whole pages, and a sampled run samples pages by address.
export PISA_SNAPSHOT_INTERVAL=off
pisa_char=$1 out=$2
shift 2
options=
while [ "$1" != "--" ]; do options="$options $1"; shift; done
shift
for n in 0 1 2 3; do
  setarch "$(uname -m)" -R "$pisa_char" -q --force --analysis-threads $n $options -o "$out.$n.json" \
    "$@" > /dev/null || exit 1
done
