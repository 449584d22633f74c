#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The longest functions and the longest files of src/, cuda/ and include/ (issue 25's measure).
# Functions: Universal Ctags' C++ parser (.cu and .cuh read as C++), each function definition's
# lines from its first to its end line (the `end` field), both included; files: wc -l.
#   code_size.sh [REPO_ROOT] [FUNCTIONS=10] [FILE_LINES=400]
set -eu
root="${1:-.}"
top="${2:-10}"
min_lines="${3:-400}"
cd "$root"
files=$(find src cuda include -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \) | sort)
echo "The $top longest functions (lines, file:line, name):"
# shellcheck disable=SC2086
ctags -x --_xformat='%e %n %F %N %K' --kinds-C++=f --fields=+ne --language-force=C++ $files |
  awk '$1 != "" && $2 != "" { printf "%5d  %s:%s  %s\n", $1 - $2 + 1, $3, $2, $4 }' |
  sort -k1,1nr -k2,2 | head -n "$top"
echo
echo "Files over $min_lines lines:"
# shellcheck disable=SC2086
wc -l $files | awk -v m="$min_lines" '$2 != "total" && $1 > m { printf "%5d  %s\n", $1, $2 }' |
  sort -k1,1nr -k2,2
