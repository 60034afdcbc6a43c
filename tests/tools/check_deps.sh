#!/usr/bin/env bash
# Checks the dependency rules between the folders (docs/internals.md), so
# that the layering stays as it is drawn:
#   - metrics/ includes only its own headers and include/pisa/vocabulary.h;
#   - analysislib/ never includes anything of cli/;
#   - include/pisa/ (the contracts) includes only its own headers;
#   - passes/ includes only its own headers and include/pisa/;
#   - cli/ includes nothing of analysislib/ or metrics/ (it reads documents);
#   - a command (cli/cmd_*.c) includes no other command's header, calls no
#     other command's cmd_ function and defines no function but its own
#     cmd_<name>, so that nothing can call into it but the dispatcher;
#   - cli/lib/ never includes a command's header or calls a command.
# Reads the #include lines (and, for the commands, the calls) with comments
# and string literals removed; an include is resolved as the compiler would
# find it: next to the including file, in include/, then on the include
# path of the file's folder (cli/: cli/lib/ and cli/; analysislib/:
# analysislib/ and metrics/; any other: its own top-level folder).
# Prints each violation as "FILE: rule" and exits 1 if there is any.
# Usage: check_deps.sh [--skip-metrics] [SOURCE_ROOT]
set -euo pipefail

skip_metrics=0
root=
for arg in "$@"; do
  case $arg in
  --skip-metrics) skip_metrics=1 ;;
  -h | --help)
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
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

# Perl that removes comments (keeping the lines) and, when $ENV{STRINGS},
# the text of string and character literals from the file in $_, so that
# neither counts as an include, a call or a definition.
strip='
  s{(/\*.*?\*/)|(//[^\n]*)|("(?:\\.|[^"\\\n])*")|(\x27(?:\\.|[^\x27\\\n])*\x27)}{
    defined $1 ? "\n" x ($1 =~ tr/\n//)
    : defined $2 ? ""
    : $ENV{STRINGS} ? (defined $3 ? "\"\"" : "\x27\x27")
    : $&
  }gse;'

# The file's code without comments and literals.
code_of() { # FILE
  STRINGS=1 perl -0777 -pe "$strip" "$1"
}

sources_in() { # FOLDER...
  find "$@" \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) | sort
}

# Where the compiler would find `name` included from `file`, relative to
# the root, in $resolved; empty when it is none of the project's files.
resolve() { # FILE NAME
  local file=$1 name=$2 dir
  resolved=
  local path
  case $file in # each folder's include path, as its CMakeLists.txt sets it
  cli/*) path="cli/lib cli" ;;
  analysislib/*) path="analysislib metrics" ;;
  *) path=${file%%/*} ;;
  esac
  for dir in "${file%/*}" include $path; do
    if [[ -f $dir/$name ]]; then
      resolved=$dir/$name
      if [[ $resolved == *..* ]]; then
        resolved=$(realpath --relative-to=. "$resolved")
      fi
      return 0
    fi
  done
}

# includes[FILE]: what the project includes of FILE (quoted ones and
# <pisa/...> ones) resolve to, for every source of the given folders.
declare -A includes
read_includes() { # FOLDER...
  local file name
  while IFS=$'\t' read -r file name; do
    resolve "$file" "$name"
    includes[$file]+="$resolved "
  done < <(perl -0777 -ne "$strip"'
    while (/^[ \t]*#[ \t]*include[ \t]*(?:"([^"]+)"|<(pisa\/[^>]+)>)/mg) {
      print "$ARGV\t", $1 // $2, "\n";
    }' $(sources_in "$@"))
}

# Reports each include of the files for which the test `forbidden TARGET`
# holds, as a violation of RULE.
check_includes() { # RULE FORBIDDEN FILE...
  local rule=$1 forbidden=$2 file target
  shift 2
  for file in "$@"; do
    for target in ${includes[$file]-}; do
      $forbidden "$target" && violation "$file" "$rule ($target)"
    done
  done
  return 0
}

# ---- metrics/ and analysislib/ -----------------------------------------------

# What metrics/ and analysislib/ must not include.
not_vocabulary() { [[ $1 != metrics/* && $1 != include/pisa/vocabulary.h ]]; }
in_cli() { [[ $1 == cli/* ]]; }
not_contract() { [[ $1 != include/pisa/* ]]; }
not_pass_or_contract() { [[ $1 != passes/* && $1 != include/pisa/* ]]; }
runtime_or_metrics() { [[ $1 == analysislib/* || $1 == metrics/* ]]; }

# ---- cli/ --------------------------------------------------------------------

# The cmd_<name> functions of the command files, as a pattern a|b|...
command_pattern() {
  local file
  for file in cli/cmd_*.c; do
    code_of "$file" | grep -oE '^int[[:space:]]+cmd_[a-z0-9_]+\(' |
      sed -E 's/^int[[:space:]]+//; s/\($//'
  done | sort -u | paste -sd '|'
}

# Names of the functions that code (on stdin) defines with external linkage.
external_definitions() {
  perl -0777 -ne '
    while (/^(?!static\b)[A-Za-z_][\w \t*]*?\b(\w+)\s*\([^;{}]*\)\s*\{/mg) {
      print "$1\n";
    }'
}

# Which of the functions of the pattern a|b|... code (on stdin) calls.
called() { # PATTERN
  grep -oE "(^|[^A-Za-z0-9_])($1)[[:space:]]*\(" | grep -oE "$1" | sort -u
}

# What a command and cli/lib must not include: a command's header is any
# header of cli/ but commands.h, the dispatcher's table.
command_header() { [[ $1 == cli/* && $1 != cli/lib/* && $1 != cli/commands.h ]]; }
outside_lib() { [[ $1 == cli/* && $1 != cli/lib/* ]]; }

check_commands() { # PATTERN
  local file own fn code
  check_includes "a command includes no other command's header" command_header \
    cli/cmd_*.c
  for file in cli/cmd_*.c; do
    own=$(basename "$file" .c)
    code=$(code_of "$file")
    for fn in $(called "$1" <<<"$code"); do
      [[ $fn != "$own" ]] && violation "$file" "a command calls no other command ($fn)"
    done
    for fn in $(external_definitions <<<"$code"); do
      [[ $fn != "$own" ]] &&
        violation "$file" "a command defines only its own $own(), everything else static or in cli/lib ($fn)"
    done
  done
  return 0
}

check_library() { # PATTERN
  local file fn
  check_includes "cli/lib never includes a command's header" outside_lib \
    $(sources_in cli/lib)
  for file in $(sources_in cli/lib); do
    for fn in $(code_of "$file" | called "$1"); do
      violation "$file" "cli/lib never calls a command ($fn)"
    done
  done
  return 0
}

read_includes include metrics analysislib cli passes
check_includes "include/pisa/ includes only include/pisa/" not_contract \
  $(sources_in include)
check_includes "passes/ includes only its own headers and include/pisa/" \
  not_pass_or_contract $(sources_in passes)
check_includes "cli/ never includes the runtime or metrics/" runtime_or_metrics \
  $(sources_in cli)
((skip_metrics)) || check_includes \
  "metrics/ includes only its own headers and include/pisa/vocabulary.h" \
  not_vocabulary $(sources_in metrics)
check_includes "analysislib/ never includes cli/" in_cli $(sources_in analysislib)
pattern=$(command_pattern)
check_commands "${pattern:-cmd_}"
check_library "${pattern:-cmd_}"

if ((violations)); then
  echo "deps: $violations violation(s) of the dependency rules" >&2
  exit 1
fi
if ((skip_metrics)); then
  echo "deps: the dependency rules hold (metrics/ not checked)"
else
  echo "deps: the dependency rules hold"
fi
