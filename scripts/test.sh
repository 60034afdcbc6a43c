#!/usr/bin/env bash
# Runs the whole test suite: installs what is missing and builds the tools
# and the tests (scripts/setup.sh --tests: PISA_BUILD_TESTS=ON), then CTest
# runs the unit, pass (lit) and end-to-end tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --tests --no-example
ctest --test-dir build --output-on-failure -j"$(nproc)"
