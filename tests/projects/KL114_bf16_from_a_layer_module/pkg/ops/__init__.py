from .norm import rms_norm_kernel
