"""kernelint prove: run reference pairs on a GPU."""
