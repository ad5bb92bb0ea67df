#!/usr/bin/env bash
# Issue 20 item 4: KL126's cuTile pair (benchmarks/kl126_cutile/cutile/KL126_grid_axis_over_65535/)
# on the H200. The cuTile wheels (cuda-tile 1.7.0, nvidia-cuda-tileiras/-nvcc/-nvvm/-crt/-runtime
# 13.4.92, typing_extensions 4.16.0; one tar in the pack-device-wheels.sh format, split by hand into
# 3 parts of 53 MiB) were carried in two earlier calls, one part each, into PARTS; this call carries
# the last part and runs, from the repository root:
#
#   reference_kernels/evidence/runs/KL126-cutile/run-on-h200.sh OUT PARTS SHA256_FILE
#
# The run's JSON and log land in OUT, the record prove wrote in OUT/evidence.
set -u
out=$1 parts=$2 sum=$3
mkdir -p "$out"
export PYTHONUNBUFFERED=1
started=$(date +%s)
step() { echo "== $1 at $(( $(date +%s) - started )) s"; }

step "install the cuTile wheels"
benchmarks/device/install_wheel_parts.sh "$parts" "$sum" /tmp/site || exit 1
export PYTHONPATH=/tmp/site

step "install kernelint"
# No internet there: no build isolation; the source tree on the path if even that fails.
python3 -m pip install -q --no-deps --no-build-isolation . > /tmp/pip.log 2>&1 \
    || { tail -3 /tmp/pip.log; export PYTHONPATH=$PWD:$PYTHONPATH; echo "kernelint from $PWD"; }
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv
python3 -c "import sys, torch, cuda.tile as ct; print('python', sys.version.split()[0], 'torch', torch.__version__, 'cuda-tile', ct.__version__)"

name=2026-12-01-h200-issue20-KL126-cutile
step "prove KL126 (cuTile pair)"
KERNELINT_PAIRS_ROOT=$PWD/benchmarks/kl126_cutile timeout 200 python3 -m kernelint prove KL126 \
    --json "$out/$name.json" --evidence-dir "$out/evidence" > "$out/$name.log" 2>&1
echo "rc $? (KL126 cuTile)"
cat "$out/$name.log"
step "done"
