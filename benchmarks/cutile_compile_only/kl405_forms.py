"""Compile KL405's fixture kernels for sm_90 without a GPU: the reported forms must fail to compile
and the silent forms must compile. usage: python kl405_forms.py (from this folder)"""
import importlib.util
import pathlib

from harness import array, compile_for, constant, ct

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "cutile"


def load(name):
    spec = importlib.util.spec_from_file_location(name, FIXTURES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    reported = load("KL405_tiles_used_as_indices_are_reported")
    silent = load("KL405_scalar_and_zero_d_indices_are_not_reported")
    i32, f16 = ct.int32, ct.float16
    lookup = [array(i32, 1), array(f16, 2), array(f16, 2), constant(16)]
    cases = [
        ("reported lookup_rows", reported.lookup_rows, lookup),
        ("reported scatter_rows", reported.scatter_rows, lookup),
        ("reported arange_as_index", reported.arange_as_index, [array(f16, 2), array(f16, 2), constant(16)]),
        ("silent moe_expert_tile", silent.moe_expert_tile,
         [array(f16, 2), array(f16, 3), array(f16, 2), array(i32, 1), constant(64), constant(64), constant(32)]),
        ("silent item_index", silent.item_index, lookup),
        ("silent gathered_rows", silent.gathered_rows, lookup),
        ("silent loop_and_block_indices", silent.loop_and_block_indices,
         [array(f16, 2), array(f16, 2), constant(16)]),
    ]
    for label, kernel, parameters in cases:
        print(f"{label}: {compile_for(kernel, parameters)}")
