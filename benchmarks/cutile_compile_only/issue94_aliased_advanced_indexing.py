"""cutile-python #94 (tileiras SIGSEGV on an aliased load_advanced_indexing / store_advanced_indexing
around a reduction or a matmul; reported with cuTile 1.4.0/1.5.0 and tileiras 13.3.36), rebuilt from
the issue's description and compiled for sm_90 with the versions this project pins: does it still
crash the compiler? usage: python issue94_aliased_advanced_indexing.py"""
from harness import array, compile_for, ct


@ct.kernel
def alias_sum(source):
    row = ct.arange(1, dtype=ct.int32)
    matrix = ct.load_advanced_indexing(source, (ct.Slice(0, 1), row, ct.Slice(0, 32))).reshape((1, 32))
    result = ct.sum(matrix, axis=1, keepdims=True)
    out = ct.broadcast_to(result, (1, 32)).reshape((1, 1, 32))
    ct.store_advanced_indexing(source, (ct.Slice(0, 1), row, ct.Slice(0, 32)), out)


@ct.kernel
def alias_matmul(source):
    row = ct.arange(1, dtype=ct.int32)
    a = ct.load_advanced_indexing(source, (ct.Slice(0, 1), row, ct.Slice(0, 32))).reshape((1, 32))
    s = ct.load_advanced_indexing(source, (ct.Slice(0, 1), row, ct.Slice(0, 1))).reshape((1, 1))
    r = ct.matmul(s, a).reshape((1, 1, 32))
    ct.store_advanced_indexing(source, (ct.Slice(0, 1), row, ct.Slice(0, 32)), r)


@ct.kernel
def separate_output_sum(source, dest):
    row = ct.arange(1, dtype=ct.int32)
    matrix = ct.load_advanced_indexing(source, (ct.Slice(0, 1), row, ct.Slice(0, 32))).reshape((1, 32))
    result = ct.sum(matrix, axis=1, keepdims=True)
    out = ct.broadcast_to(result, (1, 32)).reshape((1, 1, 32))
    ct.store_advanced_indexing(dest, (ct.Slice(0, 1), row, ct.Slice(0, 32)), out)


if __name__ == "__main__":
    f32 = ct.float32
    print("alias_sum (reduction form):", compile_for(alias_sum, [array(f32, 3)]))
    print("alias_matmul (1x1 by 1x32 matmul form):", compile_for(alias_matmul, [array(f32, 3)]))
    print("separate_output_sum (control):", compile_for(separate_output_sum, [array(f32, 3), array(f32, 3)]))
