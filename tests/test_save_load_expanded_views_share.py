"""``mg.save`` of an expanded or unfolded tensor beside the tensor it views stores their memory once
and ``mg.load`` gives them back sharing it, as ``torch.save``/``torch.load`` do (and as the engine
already did for slices, transposes and reshapes).  Such a tensor's NumPy array reaches its memory
through the wrapper object NumPy's stride tricks (``broadcast_to``, ``as_strided``) put between them,
where the owner search stopped: the expanded view was stored as a separate copy, and after loading
a write into the base did not show in it.  Found running PyTorch's serialization tests (views saved
once, loaded shared) against the engine.  Saved alone, such a tensor was stored as its values (each
repeat written out: a million rows for one) and loaded contiguous; found by the same suite's probes
run again with expanded inputs."""
from __future__ import annotations

import io

import numpy as np
import pytest

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


def _saved_bytes(obj):
    buffer = io.BytesIO()
    mg.save(obj, buffer)
    return len(buffer.getvalue())


def test_an_expanded_view_saved_alone_stores_its_memory_once():
    # torch.save stores an expanded tensor's storage, not each repeat of it, and torch.load gives back
    # the expanded view.  Alone (nothing else saved shares its memory) it was stored as its values:
    # 1000 rows of 3 floats written for one row, and loaded as a contiguous writable tensor
    row = mg.arange(3.0)
    e = round_trip(row.expand(1000, 3))
    assert e.shape == (1000, 3) and e.stride() == (0, 1)
    np.testing.assert_array_equal(e.numpy(), np.tile(np.arange(3.0), (1000, 1)))
    assert _saved_bytes(row.expand(1000, 3)) < _saved_bytes(row) + 200
    with pytest.raises(RuntimeError, match="more than one element"):  # as after torch.load
        e.add_(1.0)


def test_an_unfolded_view_saved_alone_stores_its_memory_once():
    u = round_trip(mg.arange(1000.0).unfold(0, 500, 1))  # 501 windows of 500 overlapping values
    assert u.shape == (501, 500) and u.stride() == (1, 1)
    np.testing.assert_array_equal(u.numpy()[7], np.arange(7.0, 507.0))
    assert _saved_bytes(mg.arange(1000.0).unfold(0, 500, 1)) < _saved_bytes(mg.arange(1000.0)) + 200


def test_a_view_that_reaches_no_byte_twice_saved_alone_is_still_its_values():
    base = mg.arange(1000.0)
    v = round_trip(base[::100])
    assert v.stride() == (1,)  # stored compact: 10 values, not the 991 the slice spans
    assert _saved_bytes(base[::100]) < _saved_bytes(mg.arange(10.0)) + 200


def test_an_expanded_view_that_requires_grad_saved_alone():
    e = round_trip(mg.ones(1, 4, requires_grad=True).expand(5, 4).detach().requires_grad_())
    assert e.requires_grad and e.is_leaf and e.stride() == (0, 1)
    e.sum().backward()
    np.testing.assert_array_equal(e.grad.numpy(), np.ones((5, 4)))


def test_an_expanded_parameter_view_in_a_dict():
    p = mg.nn.Parameter(mg.ones(4))
    out = round_trip({"p": p, "rows": p.detach().expand(3, 4)})
    with mg.no_grad():
        out["p"][1] = 5.0
    assert isinstance(out["p"], mg.nn.Parameter)
    assert out["rows"][2, 1].item() == 5.0


def test_an_expanded_numpy_array_saved_alone_loads_as_its_values():
    # as a pickled NumPy array does (np.broadcast_to's read-only view becomes a plain array)
    a = round_trip({"a": np.broadcast_to(np.arange(3.0), (4, 3))})["a"]
    assert a.strides == (24, 8) and a.flags.writeable
    np.testing.assert_array_equal(a, np.tile(np.arange(3.0), (4, 1)))
