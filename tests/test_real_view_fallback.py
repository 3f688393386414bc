"""``optim._common.real_view``'s fallback: a backend whose ``view`` to another item size wants the
last axis contiguous in its strides (CuPy's check: a new trailing axis of one element has stride 0
there) refuses ``a[..., None].view(float)``; the view of the array itself, reshaped, is the same
floats sharing the same memory.  Without a GPU this stands in for CuPy with an ndarray subclass that
checks as it does."""

from __future__ import annotations

import numpy as np

from minigrad_ckpt.optim._common import real_view


class StrictView(np.ndarray):
    def view(self, *args, **kwargs):
        dtype = args[0] if args else kwargs.get("dtype")
        if dtype is not None and np.dtype(dtype).itemsize != self.itemsize and self.strides[-1] != self.itemsize:
            raise ValueError("To change to a dtype of a different size, the last axis must be contiguous")
        return super().view(*args, **kwargs)


def test_the_fallback_gives_the_same_floats_sharing_memory():
    z = (np.arange(6.0) + 1j * np.arange(6.0, 12.0)).reshape(2, 3)
    a = z.copy().view(StrictView)
    v = real_view(a)
    assert v.shape == (2, 3, 2)
    assert np.array_equal(np.asarray(v)[..., 0], z.real) and np.array_equal(np.asarray(v)[..., 1], z.imag)
    v[0, 0, 1] = -5.0  # an update of the view is an update of the parameter
    assert a[0, 0] == 0 - 5j
    assert real_view(z.astype(np.complex64)).dtype == np.float32
