"""``mg.save`` stores a tensor's shape (``x.shape``, an ``mg.Size``) and ``mg.load`` gives it back as
one, as ``torch.save``/``torch.load`` (``weights_only`` too) keep a ``torch.Size``: a checkpoint that
records ``{"input_shape": x.shape}`` was refused with a TypeError ("cannot store a Size ... a tuple
subclass, whose class is code").  The Size is the engine's own class, so loading it runs no code
from the file.  Found running PyTorch's serialization tests against the engine."""
from __future__ import annotations

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import SnapshotError, object_tree
from tests.save_load_round_trip import round_trip


def test_a_shape_loads_back_as_a_size():
    x = mg.ones(2, 3)
    out = round_trip({"shape": x.shape, "empty": mg.zeros(0, 4).shape, "scalar": mg.tensor(1.0).size(),
                       "keyed": {x.shape: "by shape"}, "in_list": [x.size(), 3]})
    assert type(out["shape"]) is mg.Size and out["shape"] == (2, 3)
    assert out["empty"] == (0, 4) and out["scalar"] == () and type(out["scalar"]) is mg.Size
    assert out["keyed"] == {(2, 3): "by shape"} and type(next(iter(out["keyed"]))) is mg.Size
    assert out["in_list"] == [(2, 3), 3] and type(out["in_list"][0]) is mg.Size
    assert mg.zeros(out["shape"]).shape == (2, 3)
    assert out["shape"] + (5,) == (2, 3, 5) and type(out["shape"] + (5,)) is mg.Size


def test_a_plain_tuple_stays_a_tuple():
    out = round_trip({"t": (2, 3)})
    assert type(out["t"]) is tuple


@pytest.mark.parametrize("bad", [[-1], [1.5], [True], "23", [[2]]])
def test_a_malformed_stored_size_is_refused(bad):
    with pytest.raises(SnapshotError, match="a stored size is malformed"):
        object_tree.decode({"t": "size", "v": bad}, {}, None, 0, {})
