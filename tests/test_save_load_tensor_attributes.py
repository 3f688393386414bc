"""``mg.save`` keeps the attributes a program set on a tensor (``t.foo = "foo"; t.pi = 3.14``) and
``mg.load`` sets them back, as ``torch.save``/``torch.load`` do (``weights_only`` too: PyTorch's
test_serialization_python_attr).  They were dropped without a word: the loaded tensor had no ``foo``.
An attribute mg.save cannot store is refused (the usual TypeError) rather than lost, and so is an
attribute that refers back to its tensor.  Found running PyTorch's serialization tests against the
engine."""
from __future__ import annotations

import io

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import SnapshotError, object_tree
from tests.save_load_round_trip import round_trip


def _round_trip(obj):
    return round_trip(obj, weights_only=True)


@pytest.mark.parametrize("make", [lambda: mg.zeros(3, 3), lambda: mg.nn.Parameter(mg.zeros(3, 3)),
                                  lambda: mg.ones(2, device="meta")], ids=["tensor", "parameter", "meta"])
def test_attributes_set_on_a_tensor_come_back(make):
    t = make()
    t.foo, t.pi, t.more = "foo", 3.14, {"k": [1, 2]}
    out = _round_trip(t)
    assert type(out) is type(t)
    assert (out.foo, out.pi, out.more) == ("foo", 3.14, {"k": [1, 2]})


def test_attributes_of_views_and_tensors_in_attributes():
    base = mg.arange(4.0)
    base.tag = "base"
    view = base[1:]
    view.tag = "view"
    partner = mg.ones(1)
    base.partner = partner
    out = _round_trip({"base": base, "view": view, "partner": partner})
    assert out["base"].tag == "base" and out["view"].tag == "view"
    assert out["base"].partner is out["partner"]
    out["base"][1] = 7.0
    assert out["view"][0].item() == 7.0  # still sharing memory


def test_a_tensor_without_attributes_gets_none():
    out = _round_trip(mg.zeros(2))
    assert not [k for k in vars(out) if not k.startswith("_")]


def test_an_attribute_mg_save_cannot_store_is_refused_not_lost():
    t = mg.zeros(1)
    t.fn = len
    with pytest.raises(TypeError, match="cannot store a builtin_function_or_method"):
        mg.save(t, io.BytesIO())
    t = mg.zeros(1)
    t.me = [t]
    with pytest.raises(TypeError, match="refer back to it"):
        mg.save(t, io.BytesIO())


@pytest.mark.parametrize("attrs", [{"t": "dict", "keys": ["_private"], "values": [1]},
                                   {"t": "dict", "keys": [1], "values": [1]}, [1, 2]])
def test_malformed_stored_attributes_are_refused(attrs):
    node = {"t": "tensor", "name": "x", "requires_grad": False, "attrs": attrs}
    with pytest.raises(SnapshotError, match="stored attributes are malformed"):
        object_tree.decode(node, {"x": np.zeros(2)}, None, 0, {})
