#!/bin/sh
# status.sh: runs a command with the test's stdin, stdout and stderr, then
# prints its exit status as "exit N", so lit tests can check exact statuses.
"$@"
echo "exit $?"
