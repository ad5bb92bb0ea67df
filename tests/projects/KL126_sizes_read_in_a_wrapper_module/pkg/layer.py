from pkg.backward import launch_backward, launch_flat
from pkg.forward import launch_forward


def run(x):
    B, H, T, D = x.shape
    launch_forward(x, B, H, T, D)
    launch_backward(x, B, H, T, D)
    launch_flat(x, B, H, T, D)
    return x
