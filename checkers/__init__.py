"""kernelint's rules: one module per rule, in a folder per DSL (``tool/`` KL0xx, ``triton/`` KL1xx
and KL2xx, ``cute/`` KL3xx, ``cutile/`` KL4xx). Every ``Rule`` subclass defined here is registered."""
