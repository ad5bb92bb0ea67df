import cutlass
import cutlass.cute as cute


@cute.kernel
def scale_kernel(src: cute.Tensor, dst: cute.Tensor):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    frag = cute.make_rmem_tensor(cute.make_layout(1), cutlass.Float32)
    frag[0] = src[bidx, tidx] * 2.0
    dst[bidx, tidx] = frag[0]
