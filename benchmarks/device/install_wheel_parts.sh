#!/usr/bin/env bash
# Reassemble wheel parts made by ../shared/tools/pack-device-wheels.sh and install them, offline,
# into a target folder. A GPU machine with no internet gets the parts one call at a time (each call
# may carry only so much), so the parts are gathered in one folder first.
#   usage: install_wheel_parts.sh PARTS_DIR SHA256_FILE TARGET_DIR
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 PARTS_DIR SHA256_FILE TARGET_DIR" >&2; exit 2; }
parts=$1 sum=$2 target=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat "$parts"/part-* > "$work/wheels.tar"
echo "$(cat "$sum")  $work/wheels.tar" | sha256sum -c --quiet - || { echo "checksum mismatch: a part is missing or stale" >&2; exit 1; }
mkdir -p "$work/w" && tar xf "$work/wheels.tar" -C "$work/w"
python3 -m pip install -q --no-index --no-deps --target "$target" "$work"/w/*.whl
echo "installed $(ls "$work"/w | wc -l) wheel(s) into $target"
