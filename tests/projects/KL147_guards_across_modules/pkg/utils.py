import contextlib

import torch


@contextlib.contextmanager
def device_context(device):
    # Liger-Kernel's helper (PR #1304)
    backend = getattr(torch, torch.device(device).type, None)
    if backend is not None and hasattr(backend, "device"):
        with backend.device(device):
            yield
    else:
        yield


if hasattr(torch, "accelerator"):
    def custom_device_ctx(index):
        # fla's helper, defined once per torch version
        return torch.accelerator.device_index(index)
else:
    def custom_device_ctx(index):
        return torch.cuda.device(index)


def input_guard(fn):
    def wrapper(*args, **kwargs):
        tensor = next(a for a in args if isinstance(a, torch.Tensor))
        with custom_device_ctx(tensor.device.index):
            return fn(*args, **kwargs)
    return wrapper
