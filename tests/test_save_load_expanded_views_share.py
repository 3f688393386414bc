"""``mg.save`` of an expanded or unfolded tensor beside the tensor it views stores their memory once
and ``mg.load`` gives them back sharing it, as ``torch.save``/``torch.load`` do (and as the engine
already did for slices, transposes and reshapes).  Such a tensor's NumPy array reaches its memory
through the wrapper object NumPy's stride tricks (``broadcast_to``, ``as_strided``) put between them,
where the owner search stopped: the expanded view was stored as a separate copy, and after loading
a write into the base did not show in it.  Found running PyTorch's serialization tests (views saved
once, loaded shared) against the engine."""
from __future__ import annotations

import numpy as np

import minigrad_ckpt as mg
from tests.save_load_round_trip import round_trip


def test_an_expanded_view_loads_sharing_its_base():
    base = mg.arange(3.0)
    x, e = round_trip([base, base.expand(2, 3)])
    assert e.stride() == (0, 1) and e.shape == (2, 3)
    x[0] = 9.0
    np.testing.assert_array_equal(e.numpy(), [[9.0, 1.0, 2.0], [9.0, 1.0, 2.0]])


def test_an_unfolded_view_loads_sharing_its_base_and_another_unfold():
    base = mg.arange(5.0)
    x, u, w = round_trip([base, base.unfold(0, 2, 1), base.unfold(0, 3, 2)])
    assert u.stride() == (1, 1) and w.stride() == (2, 1)
    x[2] = -1.0
    np.testing.assert_array_equal(u.numpy(), [[0, 1], [1, -1], [-1, 3], [3, 4]])
    np.testing.assert_array_equal(w.numpy(), [[0, 1, -1], [-1, 3, 4]])


def test_an_expanded_view_saved_alone_is_its_values():
    e = round_trip(mg.arange(5.0).expand(3, 5))
    assert e.shape == (3, 5)
    np.testing.assert_array_equal(e.numpy(), np.tile(np.arange(5.0), (3, 1)))


def test_an_expanded_parameter_view_in_a_dict():
    p = mg.nn.Parameter(mg.ones(4))
    out = round_trip({"p": p, "rows": p.detach().expand(3, 4)})
    with mg.no_grad():
        out["p"][1] = 5.0
    assert isinstance(out["p"], mg.nn.Parameter)
    assert out["rows"][2, 1].item() == 5.0
