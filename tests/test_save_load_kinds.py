"""``mg.load(mg.save(obj))`` gives back the kinds of objects ``torch.load(torch.save(obj))`` does
(recorded offline with torch 2.13, ``tests/data/make_torch_save_load_kinds.py``): an ``OrderedDict``
(a ``state_dict()``) stays one, an ``nn.Parameter`` stays one (``requires_grad`` as saved), sets,
frozensets, bytes, complex numbers, integers beyond 64 bits (NumPy's PCG64 state), dtypes, and
dict keys that are bools, floats, None, tuples or frozensets.  Before, the first two came back as a
plain dict and Tensor, and the others were a TypeError (a 2**70 an OverflowError) at save."""

from __future__ import annotations

import io
import json
import sys
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import SnapshotError, object_tree

sys.path.insert(0, str(Path(__file__).parent / "data"))
from save_load_kinds_cases import cases, describe  # noqa: E402

pytestmark = pytest.mark.msgpack
TORCH = json.loads((Path(__file__).parent / "data" / "torch_save_load_kinds.json").read_text())


def _round_trip(obj):
    buf = io.BytesIO()
    mg.save(obj, buf)
    buf.seek(0)
    return mg.load(buf)


@pytest.mark.parametrize("name", sorted(TORCH["loaded"]))
def test_what_comes_back_is_what_torch_load_gives(name):
    mg.manual_seed(0)
    got = _round_trip(cases(mg)[name])
    assert json.loads(json.dumps(describe(got))) == TORCH["loaded"][name]


def test_numpy_generator_state_resumes_the_same_stream():
    rng = np.random.default_rng(7)
    rng.random(3)
    state = _round_trip({"numpy": rng.bit_generator.state})["numpy"]
    want = rng.random(4)
    again = np.random.default_rng()
    again.bit_generator.state = state
    assert again.random(4).tolist() == want.tolist()


def test_a_loaded_state_dict_and_parameter_keep_their_roles():
    net = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.BatchNorm1d(3))
    sd = _round_trip(net.state_dict())
    assert isinstance(sd, OrderedDict) and list(sd) == list(net.state_dict())
    net.load_state_dict(sd)
    p = _round_trip({"w": net[0].weight})["w"]
    assert isinstance(p, mg.nn.Parameter) and p.requires_grad and p.is_leaf
    assert p.numpy().tobytes() == net[0].weight.numpy().tobytes()


def test_a_tensor_cannot_be_a_key_and_a_malformed_node_is_refused():
    with pytest.raises(TypeError, match="dict key or set element"):
        mg.save({(1, mg.ones(1)): 0}, io.BytesIO())  # (PyTorch pickles a tensor key; never pickle here)
    for bad in ({"t": "int", "v": "12a"}, {"t": "int", "v": "9" * 5000}, {"t": "complex", "v": [1.0]},
                {"t": "bytes", "v": "text"}, {"t": "dtype", "v": "object"},
                {"t": "set", "items": [{"t": "list", "items": []}]},
                {"t": "dict", "items": [[{"t": "dict", "items": []}, {"t": "value", "v": 1}]]}):
        with pytest.raises(SnapshotError):
            object_tree.decode(bad, {}, None, 0)
