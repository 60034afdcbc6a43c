#!/bin/sh
# exit-status.sh: runs a command and prints "exit N" with its exact status,
# for tests that check a specific non-zero status (lit's `not` accepts any).
"$@"
echo "exit $?"
