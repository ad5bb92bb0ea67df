#!/usr/bin/env bash
# Run `kernelint prove` over groups of pairs on a GPU machine and keep each group's raw run: the
# JSON (--json) and the log (what prove printed), named STAMP-<codes>.json / .log, plus the records
# it wrote (STAMP-<codes>-evidence/), all under OUTDIR.
#
# A group is `p:CODE,CODE,...` or `s:CODE,...`. All p: groups run at the same time, each in its own
# prove process (for crash, compile, hang and numerics pairs, whose outcome does not depend on
# timing); the s: groups run after them, one at a time, with nothing else on the GPU (perf pairs).
#   usage: benchmarks/device/prove_groups.sh OUTDIR STAMP GROUP [GROUP ...]
#   e.g.   benchmarks/device/prove_groups.sh /tmp/o 2026-12-01-h200 p:KL115,KL117 p:KL119 s:KL116
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OUTDIR STAMP GROUP [GROUP ...]" >&2; exit 2; }
out=$1 stamp=$2
shift 2
mkdir -p "$out"
python=${PYTHON:-python3}   # PROVE_ARGS: more arguments for every prove (e.g. --interpret for a dry run)

prove() {  # prove CODES: one group, its JSON, log and records under $out
    local codes=$1 name rc
    name="$stamp-${codes//,/-}"
    # shellcheck disable=SC2086
    "$python" -m kernelint prove ${codes//,/ } ${PROVE_ARGS:-} --json "$out/$name.json" \
        --evidence-dir "$out/$name-evidence" > "$out/$name.log" 2>&1
    rc=$?
    echo "[$(date -u +%H:%M:%S)] $name: exit $rc ($(tail -n 1 "$out/$name.log"))"
}

pids=()
for group in "$@"; do
    case $group in
        p:*) prove "${group#p:}" & pids+=($!) ;;
        s:*) ;;
        *) echo "not a group: $group (p:CODES or s:CODES)" >&2; exit 2 ;;
    esac
done
for pid in "${pids[@]}"; do wait "$pid"; done
for group in "$@"; do
    case $group in s:*) prove "${group#s:}" ;; esac
done
