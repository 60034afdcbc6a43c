#!/usr/bin/env bash
# Prints the words bash completion offers for a command line: the script
# to source, then the words, the last one being completed.
# Usage: complete.sh SCRIPT WORD... ("" completes an empty word)
script=$1
shift
source "$script"
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
_pisa_char
printf '%s\n' "${COMPREPLY[@]}" | sort
