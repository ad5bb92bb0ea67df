#!/usr/bin/env bash
# Issue 23 item 16 on an SM90 GPU (one H200): KL322's pair (a wgmma stage released before its
# wait) through `kernelint prove`, then the two probes of benchmarks/device/issue23_item16_probe.py
# (fully masked -inf rows in an online softmax; cluster mbarriers used before their init is
# visible). Nothing here has run yet: written and compile-checked without a GPU (see the probe's
# `compile` mode and docs/seed-coverage.md, issue 23).
#
# The CuTe DSL wheels (nvidia-cutlass-dsl 4.8.1 with libs-base, libs-core and libs-cu13: 96.6 MB,
# the cu13 libraries alone 91,954,433 bytes) are larger than what one call may carry (64 MiB with
# the working tree), so they travel in parts, made here once:
#
#   ../shared/tools/pack-device-wheels.sh nvidia-cutlass-dsl==4.8.1 nvidia-cutlass-dsl-libs-base==4.8.1 \
#       nvidia-cutlass-dsl-libs-core==4.8.1 nvidia-cutlass-dsl-libs-cu13==4.8.1
#   # -> .devwheels/part-aa and part-ab (47,185,920 bytes each), part-ac (2,283,520), SHA256
#
# and two calls while the machine stays warm (issue the second at once: an idle machine is given
# back after a short while, and a fresh one has lost /tmp):
#
#   run(kind="nvidia-h200", carry=[".devwheels/part-aa"], timeout_s=120,
#       command="bash benchmarks/device/issue23_item16.sh stash")
#   run(carry=[".devwheels/part-ab", ".devwheels/part-ac", ".devwheels/SHA256"], timeout_s=600,
#       command="bash benchmarks/device/issue23_item16.sh run \"$OUT\"")
#
# What comes back in $OUT (at most 8 files): kl322.json and kl322.log (the prove run),
# KL322.json (its evidence record), item16.json and item16.log (the probes), console.log.
# Expected, if the claims hold (to be confirmed, not assumed): KL322 bad out of tolerance, good
# within; softmax "unguarded" NaN in the "nothing kept" and "first two blocks masked" rows,
# "guarded" none; cluster "cluster" ok, "cta_delayed" a hang (the peer's arrive lands before the
# init and is lost), "cta" and "none" whatever the race gives.
set -u
mode=$1
out=${2:-/tmp/out}
parts=/tmp/i23parts
mkdir -p "$parts" "$out"
cp .devwheels/part-* .devwheels/SHA256 "$parts"/ 2>/dev/null
ls -la "$parts"
[ "$mode" = stash ] && { echo "parts stashed in $parts; now the second call"; exit 0; }

exec > >(tee "$out/console.log") 2>&1
export PYTHONUNBUFFERED=1
started=$(date +%s)
step() { echo "== $1 at $(( $(date +%s) - started )) s"; }

step "install the CuTe DSL wheels"
benchmarks/device/install_wheel_parts.sh "$parts" "$parts/SHA256" /tmp/cutedsl || exit 1
export PYTHONPATH=/tmp/cutedsl:/tmp/cutedsl/nvidia_cutlass_dsl/dsl_packages${PYTHONPATH:+:$PYTHONPATH}
step "install kernelint"
python3 -m pip install -q --no-deps --no-build-isolation . > /tmp/pip.log 2>&1 \
    || { tail -3 /tmp/pip.log; export PYTHONPATH=$PWD:$PYTHONPATH; echo "kernelint from $PWD"; }
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
python3 -c "import torch, cutlass; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_capability())"

step "prove KL322"
timeout 240 python3 -m kernelint prove KL322 --json "$out/kl322.json" --evidence-dir /tmp/kl322-evidence \
    > "$out/kl322.log" 2>&1
echo "rc $?"
tail -5 "$out/kl322.log"
cp /tmp/kl322-evidence/KL322.json "$out/" 2>/dev/null

step "probes: -inf rows, cluster mbarrier init"
timeout 330 python3 benchmarks/device/issue23_item16_probe.py run "$out" --timeout 45 > "$out/item16.log" 2>&1
echo "rc $?"
cat "$out/item16.log"
step "done"
