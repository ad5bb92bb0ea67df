"""erf on half values, with triton.language imported under another name: the fix spells
float32 the way the file does, and leaves the comments alone."""
from triton import jit
from triton import language as lang
from triton.language.extra import libdevice


@jit
def act_kernel(x_ptr, y_ptr, n, BLOCK: lang.constexpr):
    offs = lang.program_id(0) * BLOCK + lang.arange(0, BLOCK)
    h = lang.load(x_ptr + offs, mask=offs < n).to(lang.float16)  # kept in half on purpose
    a = libdevice.erf(h)  # fast path
    b = h.erf()
    lang.store(y_ptr + offs, a + b, mask=offs < n)
