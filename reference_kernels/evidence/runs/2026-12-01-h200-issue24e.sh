#!/usr/bin/env bash
# Issue 24, third session, on the H200: issue 20's KL136/KL137 pairs re-run so their run has its
# log (the run 2026-12-01-h200-issue20-bounds was committed without the log prove printed; it stays
# beside this one as history). One call, run from the repository root:
#
#   reference_kernels/evidence/runs/2026-12-01-h200-issue24e.sh OUT
#
# The run's JSON and log land in OUT, and the records prove wrote in OUT/evidence; the committed
# records are the run's pairs with the run's machine, date and command (the same as those files).
set -u
out=$1
mkdir -p "$out"
export PYTHONUNBUFFERED=1
started=$(date +%s)
step() { echo "== $1 at $(( $(date +%s) - started )) s"; }

step "install kernelint"
# No internet there: no build isolation (setuptools cannot be fetched); the source tree on the
# path if even that fails.
python3 -m pip install -q --no-deps --no-build-isolation . > /tmp/pip.log 2>&1 \
    || { tail -3 /tmp/pip.log; export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}; echo "kernelint from $PWD"; }
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv

name=2026-12-01-h200-issue24e-KL136-KL137
step "prove KL136 KL137"
timeout 110 python3 -m kernelint prove KL136 KL137 --json "$out/$name.json" --evidence-dir "$out/evidence" \
    > "$out/$name.log" 2>&1
echo "rc $? (KL136 KL137)"
tail -4 "$out/$name.log"
step "done"
