#!/usr/bin/env bash
# Checks the dependency rules between the folders (docs/internals.md), so
# that the layering stays as it is drawn:
#   - metrics/ includes only its own headers and include/pisa/vocabulary.h;
#   - analysislib/ never includes anything of cli/;
#   - a command (cli/cmd_*.c) includes no other command's header, calls no
#     other command's cmd_ function and defines no function but its own
#     cmd_<name>, so that nothing can call into it but the dispatcher;
#   - cli/lib/ never includes a command's header or calls a command.
# Reads the #include lines (and, for the commands, the calls) with comments
# and string literals removed; an include is resolved as the compiler would
# find it: next to the including file, in include/, in the file's own
# top-level folder, then in metrics/, analysislib/, cli/lib/ and cli/.
# Prints each violation as "FILE: rule" and exits 1 if there is any.
# Usage: check_deps.sh [--skip-metrics] [SOURCE_ROOT]
set -euo pipefail

skip_metrics=0
root=
for arg in "$@"; do
  case $arg in
  --skip-metrics) skip_metrics=1 ;;
  -h | --help)
    sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  -*)
    echo "check_deps.sh: unknown option $arg" >&2
    exit 2
    ;;
  *) root=$arg ;;
  esac
done
root=${root:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"

violations=0
violation() { # FILE RULE
  echo "$1: $2"
  violations=$((violations + 1))
}

# The file without comments (lines kept), and with `--no-strings` without
# the text of string and character literals as well, so that neither
# counts as an include, a call or a definition.
code_of() { # FILE [--no-strings]
  local strings=${2:+1}
  STRINGS=${strings:-0} perl -0777 -pe '
    s{(/\*.*?\*/)|(//[^\n]*)|("(?:\\.|[^"\\\n])*")|(\x27(?:\\.|[^\x27\\\n])*\x27)}{
      defined $1 ? "\n" x ($1 =~ tr/\n//)
      : defined $2 ? ""
      : $ENV{STRINGS} ? (defined $3 ? "\"\"" : "\x27\x27")
      : $&
    }gse' "$1"
}

# The project includes of a file: quoted ones, and <pisa/...> ones.
includes_of() {
  code_of "$1" |
    grep -oE '^[[:space:]]*#[[:space:]]*include[[:space:]]*("[^"]+"|<pisa/[^>]+>)' |
    sed -E 's/.*["<]([^">]+)[">]$/\1/'
}

# Where the compiler would find `name` included from `file`, relative to
# the root; empty when it is none of the project's files.
resolve() { # FILE NAME
  local file=$1 name=$2 top=${1%%/*} dir
  for dir in "$(dirname "$file")" include "$top" metrics analysislib cli/lib cli; do
    if [[ -f $dir/$name ]]; then
      realpath --relative-to=. "$dir/$name"
      return
    fi
  done
}

sources_in() { # FOLDER...
  find "$@" -name '*.c' -o -name '*.h' -o -name '*.cpp' | sort
}

# ---- metrics/ ----------------------------------------------------------------

check_metrics() {
  local file name target
  for file in $(sources_in metrics); do
    for name in $(includes_of "$file"); do
      target=$(resolve "$file" "$name")
      [[ -z $target || $target == metrics/* || $target == include/pisa/vocabulary.h ]] && continue
      violation "$file" "metrics/ includes only its own headers and include/pisa/vocabulary.h, not $target"
    done
  done
}

# ---- analysislib/ ------------------------------------------------------------

check_runtime() {
  local file name target
  for file in $(sources_in analysislib); do
    for name in $(includes_of "$file"); do
      target=$(resolve "$file" "$name")
      [[ $target == cli/* ]] &&
        violation "$file" "analysislib/ never includes cli/ ($target)"
    done
  done
  return 0
}

# ---- cli/ --------------------------------------------------------------------

# The cmd_<name> functions that the command files define.
command_functions() {
  local file
  for file in cli/cmd_*.c; do
    code_of "$file" --no-strings | grep -oE '^int[[:space:]]+cmd_[a-z0-9_]+\(' | sed -E 's/^int[[:space:]]+//; s/\($//'
  done | sort -u
}

# Names of the functions a file defines with external linkage.
external_definitions() {
  code_of "$1" --no-strings | perl -0777 -ne '
    while (/^(?!static\b)[A-Za-z_][\w \t*]*?\b(\w+)\s*\([^;{}]*\)\s*\{/mg) {
      print "$1\n";
    }'
}

# Whether the file's code calls function `fn`.
calls() { # FILE FN
  code_of "$1" --no-strings | grep -qE "(^|[^A-Za-z0-9_])$2[[:space:]]*\("
}

check_commands() {
  local file name target own fn
  local -a commands
  mapfile -t commands < <(command_functions)
  for file in cli/cmd_*.c; do
    own=$(basename "$file" .c)
    own=${own//-/_}
    for name in $(includes_of "$file"); do
      target=$(resolve "$file" "$name")
      [[ $target == cli/* && $target != cli/lib/* && $target != cli/commands.h ]] &&
        violation "$file" "a command includes no other command's header ($target)"
    done
    for fn in "${commands[@]}"; do
      [[ $fn != "$own" ]] && calls "$file" "$fn" &&
        violation "$file" "a command calls no other command ($fn)"
    done
    for fn in $(external_definitions "$file"); do
      [[ $fn != "$own" ]] &&
        violation "$file" "a command defines only its own $own(), everything else static or in cli/lib ($fn)"
    done
  done
  return 0
}

check_library() {
  local file name target fn
  local -a commands
  mapfile -t commands < <(command_functions)
  for file in $(sources_in cli/lib); do
    for name in $(includes_of "$file"); do
      target=$(resolve "$file" "$name")
      [[ $target == cli/* && $target != cli/lib/* ]] &&
        violation "$file" "cli/lib never includes a command's header ($target)"
    done
    for fn in "${commands[@]}"; do
      calls "$file" "$fn" && violation "$file" "cli/lib never calls a command ($fn)"
    done
  done
  return 0
}

((skip_metrics)) || check_metrics
check_runtime
check_commands
check_library

if ((violations)); then
  echo "deps: $violations violation(s) of the dependency rules" >&2
  exit 1
fi
if ((skip_metrics)); then
  echo "deps: the dependency rules hold (metrics/ not checked)"
else
  echo "deps: the dependency rules hold"
fi
