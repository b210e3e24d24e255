#!/bin/bash
# Print the kernel release we build and boot against: the newest installed
# /usr/src/linux-headers-6.12.*-amd64 (version order). Prints nothing if none.
set -euo pipefail
shopt -s nullglob
dirs=(/usr/src/linux-headers-6.12.*-amd64)
((${#dirs[@]})) || exit 0
printf '%s\n' "${dirs[@]#/usr/src/linux-headers-}" | sort -V | tail -n 1
