#!/usr/bin/env bash
# Checks that the C and C++ sources follow .clang-format (LLVM style).
# Usage: check_format.sh SOURCE_ROOT [clang-format binary]
set -euo pipefail
root=$1
fmt=${2:-clang-format-19}
cd "$root"
mapfile -t files < <(find include passes analysislib metrics cli bench tests/unit examples polybench rodinia \
  -name '*.c' -o -name '*.h' -o -name '*.cpp' | sort)
"$fmt" --dry-run --Werror "${files[@]}"
echo "format: ${#files[@]} files checked"
