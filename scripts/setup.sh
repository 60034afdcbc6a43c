#!/usr/bin/env bash
# Installs the Debian 12 packages pisa-char needs (only the missing ones),
# builds the tools into build/, and characterizes the bundled example.
# Usage: scripts/setup.sh [--tests] [--no-example]
#   --tests       also build the test suite (PISA_BUILD_TESTS, scripts/test.sh)
#   --no-example  do not characterize examples/matvec.c
set -euo pipefail
cd "$(dirname "$0")/.."

tests=() example=1
for arg in "$@"; do
  case $arg in
    --tests) tests=(-DPISA_BUILD_TESTS=ON) ;;
    --no-example) example=0 ;;
    *) echo "setup: unknown option '$arg' (expected --tests or --no-example)" >&2; exit 2 ;;
  esac
done

packages=(cmake make gcc g++ file llvm-19-dev clang-19 llvm-19-tools
          clang-format-19 libclang-rt-19-dev libomp-19-dev libjson-c-dev libgsl-dev uthash-dev
          libopenmpi-dev openmpi-bin python3 python3-jsonschema json-schema-test-suite
          valgrind
          chromium chromium-driver)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) != 0 ]]; then
    echo "setup: missing packages: ${missing[*]}; run this script as root" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Without --tests an existing build tree keeps its PISA_BUILD_TESTS.
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "${tests[@]}" >/dev/null
cmake --build build -j"$(nproc)"

((example)) || exit 0
mkdir -p build/examples
build/bin/pisa-cc -O2 -o build/examples/matvec examples/matvec.c
build/bin/pisa-char --force -o build/examples/matvec.pisa.json build/examples/matvec 300
