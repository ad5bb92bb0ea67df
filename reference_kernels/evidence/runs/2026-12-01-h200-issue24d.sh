#!/usr/bin/env bash
# Issue 24, second session, on the H200: the two tritonbench found-bug confirmations with their
# fixed-line control and the prove runs whose logs were missing (KL206, KL131-KL133), then KL311
# with the CuTe DSL 4.8.1 wheels, which travel in two parts (.ev24wheels/part-aa, part-ab, made by
# ../shared/tools/pack-device-wheels.sh), one per call, while the machine stays warm:
#
#   call 1, carrying the tritonbench pack and .ev24wheels/part-aa:
#       reference_kernels/evidence/runs/2026-12-01-h200-issue24d.sh main OUT
#   call 2, at once, carrying .ev24wheels/part-ab and .ev24wheels/SHA256:
#       reference_kernels/evidence/runs/2026-12-01-h200-issue24d.sh cute OUT
#
# Run from the repository root, with the tritonbench pack (pack_checkouts.py) at
# .found-bugs-corpus/tritonbench. Each step runs in its own process with a timeout; every result
# and log lands in OUT (at most 8 files directly in it: the device tool brings back no more); the
# evidence records are the runs' pairs with the run's machine, date and command, rebuilt here.
set -u
mode=$1
out=$2
mkdir -p "$out" /tmp/i24parts
export PYTHONUNBUFFERED=1
started=$(date +%s)
step() { echo "== $1 at $(( $(date +%s) - started )) s"; }

# Whatever wheel part this call carries waits in /tmp for the call that carries the last one.
cp .ev24wheels/part-* /tmp/i24parts/ 2>/dev/null
ls -la /tmp/i24parts

step "install kernelint"
# No internet there: no build isolation (setuptools cannot be fetched); the source tree on the
# path if even that fails.
python3 -m pip install -q --no-deps --no-build-isolation . > /tmp/pip.log 2>&1 \
    || { tail -3 /tmp/pip.log; export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}; echo "kernelint from $PWD"; }
nvidia-smi --query-gpu=name,driver_version,memory.used --format=csv

prove() {  # name timeout codes...
    local name=$1 limit=$2
    shift 2
    step "prove $*"
    timeout "$limit" python3 -m kernelint prove "$@" --json "$out/$name.json" --evidence-dir "/tmp/$name-evidence" \
        > "$out/$name.log" 2>&1
    echo "rc $? ($*)"
    tail -4 "$out/$name.log"
}

if [ "$mode" = main ]; then
    # Correctness runs side by side: the found bugs (4 processes) and the version pairs.
    step "found bugs: tritonbench, as is and fixed; KL131-KL133"
    (timeout 420 python3 benchmarks/found_bugs/run_all.py --corpus .found-bugs-corpus --only tritonbench \
        --jobs 4 --timeout 180 --out "$out/h200-2026-12-01-tritonbench-fixed-control.json" \
        > "$out/h200-2026-12-01-tritonbench-fixed-control.log" 2>&1
     echo "rc $?" >> "$out/h200-2026-12-01-tritonbench-fixed-control.log") &
    found=$!
    prove 2026-12-01-h200-issue24d-KL131-KL133 120 KL131 KL132 KL133 &
    versions=$!
    wait $found $versions
    cat "$out/h200-2026-12-01-tritonbench-fixed-control.log"
    # A perf pair alone on the GPU.
    prove 2026-12-01-h200-issue24d-KL206 240 KL206
elif [ "$mode" = cute ]; then
    step "install the CuTe DSL wheels"
    benchmarks/device/install_wheel_parts.sh /tmp/i24parts .ev24wheels/SHA256 /tmp/cutedsl || exit 1
    export PYTHONPATH=/tmp/cutedsl:/tmp/cutedsl/nvidia_cutlass_dsl/dsl_packages${PYTHONPATH:+:$PYTHONPATH}
    prove 2026-12-01-h200-issue24d-KL311 200 KL311
fi
step "done"
