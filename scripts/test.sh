#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing and builds (as
# scripts/setup.sh does), then CTest runs the unit, pass (lit) and
# end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --no-example
ctest --test-dir build --output-on-failure -j"$(nproc)"
