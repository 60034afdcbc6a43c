#!/bin/sh
# snapshot-kill.sh TMPDIR WHO -- PISA-CHAR-COMMAND...: runs the command in
# the background with TMPDIR, waits until the program (Inputs/run/snapshot.c,
# which writes its pid to the file `pid`) has written a snapshot newer than
# its pid file, then kills with SIGKILL the program alone (WHO=program) or
# the program and pisa-char (WHO=both), and prints pisa-char's "exit N".
tmp=$1 who=$2
shift 3
TMPDIR=$tmp "$@" &
launcher=$!
i=0
until [ -s pid ] && [ -n "$(find "$tmp" -name 'snapshot.*.json' -newer pid)" ]; do
  i=$((i + 1))
  [ $i -lt 600 ] || { echo "no snapshot after 60 s"; kill -9 "$launcher"; exit 1; }
  sleep 0.1
done
[ "$who" = both ] && kill -9 "$launcher"
kill -9 "$(cat pid)"
wait "$launcher"
echo "exit $?"
