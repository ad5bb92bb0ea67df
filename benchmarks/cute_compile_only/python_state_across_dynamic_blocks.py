"""Compile KL320's fixture functions with CuTe DSL and no GPU: every function of the reported
fixture must fail to compile and every function of the silent one must compile.

usage: PYTHONPATH=/opt/cutedsl:/opt/cutedsl/nvidia_cutlass_dsl/dsl_packages python python_state_across_dynamic_blocks.py
"""
import importlib.util
import pathlib

import cutlass.cute as cute
from cutlass import Float32, Int32
from cutlass.cute.runtime import make_fake_tensor

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "cute"


def load(name):
    spec = importlib.util.spec_from_file_location(name, FIXTURES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def outcome(fn, *args):
    try:
        cute.compile(fn, *args)
        return "compiles"
    except Exception as error:  # the outcome is what is being recorded
        lines = [line for line in str(error).splitlines() if line.strip()]
        return f"{type(error).__name__}: {lines[0][:200] if lines else ''}"


def main():
    reported = load("KL320_python_state_changed_in_run_time_blocks_is_reported")
    silent = load("KL320_compile_time_blocks_and_stable_state_are_not_reported")

    @cute.jit
    def launch_warp_roles(gA: cute.Tensor, gB: cute.Tensor):
        reported.warp_roles(gA, gB).launch(grid=(1, 1, 1), block=(64, 1, 1))

    tensor = make_fake_tensor(Float32, (64,), stride=(1,), assumed_align=4)
    cases = [
        ("reported warp_roles (via a jit launcher)", launch_warp_roles, (tensor, tensor)),
        ("reported collect_stages", reported.collect_stages, (Int32(1), True)),
        ("reported offsets_per_iteration", reported.offsets_per_iteration, (Int32(1),)),
        ("reported drain", reported.drain, (Int32(1),)),
        ("reported tagged", reported.tagged, (Int32(1),)),
        ("reported seen_ids", reported.seen_ids, (Int32(1),)),
        ("reported grow_in_place", reported.grow_in_place, (Int32(1),)),
        ("reported pick_layout", reported.pick_layout, (Int32(1),)),
        ("silent rebind_same_length", silent.rebind_same_length, (Int32(1),)),
        ("silent decided_while_tracing", silent.decided_while_tracing, (Int32(1), True)),
        ("silent bound_before_and_inside", silent.bound_before_and_inside, (Int32(1),)),
        ("silent local_to_the_branch", silent.local_to_the_branch, (Int32(1),)),
        ("silent same_shape_updates", silent.same_shape_updates, (Int32(1),)),
        ("silent fresh_list_per_iteration", silent.fresh_list_per_iteration, (Int32(1),)),
        ("silent grow_then_shrink", silent.grow_then_shrink, (Int32(1),)),
        ("silent loop_carried_value", silent.loop_carried_value, (Int32(1),)),
    ]
    print(f"nvidia-cutlass-dsl {__import__('importlib.metadata').metadata.version('nvidia-cutlass-dsl')}")
    for label, fn, args in cases:
        print(f"{label}: {outcome(fn, *args)}", flush=True)


if __name__ == "__main__":
    main()
