"""``mg.load(mg.save(obj))`` gives back the kinds of objects ``torch.load(torch.save(obj))`` does
(recorded offline with torch 2.13, ``tests/data/make_torch_save_load_kinds.py``): an ``OrderedDict``
(a ``state_dict()``) stays one, an ``nn.Parameter`` stays one (``requires_grad`` as saved), sets,
frozensets, bytes, complex numbers, integers beyond 64 bits (NumPy's PCG64 state), dtypes, and
dict keys that are bools, floats, None, tuples or frozensets.  Before, the first two came back as a
plain dict and Tensor, and the others were a TypeError (a 2**70 an OverflowError) at save.

It keeps which tensors share memory, as ``torch.save`` keeps storages: views of one tensor (a slice,
a transpose, tied weights detached twice) are stored once, as views of one storage, and after
``mg.load`` a write into one shows in the others.  Before, each was stored and loaded on its own."""

from __future__ import annotations

import io
import json
import sys
from collections import Counter, OrderedDict, defaultdict, namedtuple
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt.snapshot import Snapshot, SnapshotError, object_tree
from tests.save_load_round_trip import round_trip

sys.path.insert(0, str(Path(__file__).parent / "data"))
from save_load_kinds_cases import cases, describe, views, write_through  # noqa: E402

pytestmark = pytest.mark.msgpack
TORCH = json.loads((Path(__file__).parent / "data" / "torch_save_load_kinds.json").read_text())


@pytest.mark.parametrize("name", sorted(TORCH["loaded"]))
def test_what_comes_back_is_what_torch_load_gives(name):
    mg.manual_seed(0)
    got = round_trip(cases(mg)[name])
    assert json.loads(json.dumps(describe(got))) == TORCH["loaded"][name]


def test_numpy_generator_state_resumes_the_same_stream():
    rng = np.random.default_rng(7)
    rng.random(3)
    state = round_trip({"numpy": rng.bit_generator.state})["numpy"]
    want = rng.random(4)
    again = np.random.default_rng()
    again.bit_generator.state = state
    assert again.random(4).tolist() == want.tolist()


def test_a_loaded_state_dict_and_parameter_keep_their_roles():
    net = mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.BatchNorm1d(3))
    sd = round_trip(net.state_dict())
    assert isinstance(sd, OrderedDict) and list(sd) == list(net.state_dict())
    net.load_state_dict(sd)
    p = round_trip({"w": net[0].weight})["w"]
    assert isinstance(p, mg.nn.Parameter) and p.requires_grad and p.is_leaf
    assert p.numpy().tobytes() == net[0].weight.numpy().tobytes()


def test_a_tensor_cannot_be_a_key_and_a_malformed_node_is_refused():
    with pytest.raises(TypeError, match="dict key or set element"):
        mg.save({(1, mg.ones(1)): 0}, io.BytesIO())  # (PyTorch pickles a tensor key; never pickle here)
    for bad in ({"t": "int", "v": "12a"}, {"t": "int", "v": "--5"}, {"t": "int", "v": "9" * 5000},
                {"t": "complex", "v": [1.0]},
                {"t": "bytes", "v": "text"}, {"t": "dtype", "v": "object"},
                {"t": "set", "items": [{"t": "list", "items": []}]},
                {"t": "dict", "items": [[{"t": "dict", "items": []}, {"t": "value", "v": 1}]]}):
        with pytest.raises(SnapshotError):
            object_tree.decode(bad, {}, None, 0)


def test_a_write_into_one_view_shows_in_the_others_as_in_torch():
    assert json.loads(json.dumps(write_through(round_trip(views(mg)), mg))) == TORCH["views_after_write"]


def test_tied_weights_load_tied_and_a_parameter_keeps_its_role():
    w = mg.nn.Parameter(mg.randn(3, 3))
    got = round_trip({"enc": w.detach(), "dec": w.detach(), "p": w, "grad_view": w[0]})
    assert isinstance(got["p"], mg.nn.Parameter) and got["p"].requires_grad and not got["enc"].requires_grad
    with mg.no_grad():
        got["p"][0, 0] = 7.0
    assert got["enc"][0, 0].item() == got["dec"][0, 0].item() == got["grad_view"][0].item() == 7.0


@settings(max_examples=40, deadline=None)
@given(start=st.integers(0, 5), stop=st.integers(6, 12), step=st.integers(1, 3), dtype=st.sampled_from(
    ["float32", "float64", "int64", "complex64", "bool"]), order=st.sampled_from(["C", "F"]))
def test_any_views_of_one_array_round_trip_with_their_values_and_strides(start, stop, step, dtype, order):
    base = np.asarray(np.arange(24).reshape(2, 12) % 5, dtype=dtype, order=order)
    parts = {"whole": base, "row": base[1], "cols": base[:, start:stop:step], "rev": base[::-1, ::-2],
             "t": mg.from_numpy(base).t(), "real": base.real if base.dtype.kind == "c" else base[0]}
    got = round_trip(parts)
    for k, v in parts.items():
        want = v.numpy() if isinstance(v, mg.Tensor) else v
        g = got[k].numpy() if isinstance(got[k], mg.Tensor) else got[k]
        assert g.dtype == want.dtype and g.shape == want.shape and g.tobytes() == want.tobytes()
        assert np.shares_memory(g, got["whole"])
    assert got["row"].strides == base[1].strides and got["t"].stride() == parts["t"].stride()


def test_a_lone_view_is_stored_on_its_own_and_device_tensors_are_not_matched():
    from minigrad_ckpt.testing import strict  # noqa: F401

    x = mg.arange(8.0)
    buf = io.BytesIO()
    mg.save({"v": x[2:4]}, buf)  # nothing else shares x: only the view's two numbers are stored
    assert len(buf.getvalue()) < 1024 and round_trip({"v": x[2:4]})["v"].tolist() == [2.0, 3.0]
    y = mg.arange(4.0, device="strict")
    got = round_trip({"y": y, "v": y[1:]})
    assert got["v"].tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("damage", [
    {"offset": 1 << 40}, {"strides": [-8]}, {"shape": [100]}, {"dtype": "<x2"}, {"storage": "missing"},
    {"offset": -8}, {"strides": [8, 8]}, {"of": "pickle"}])
def test_a_view_outside_its_storage_is_refused(damage):
    node = {"t": "view", "of": "tensor", "storage": "s", "ref": 0, "offset": 8, "shape": [3], "strides": [8],
            "dtype": "<f8", "requires_grad": False, "device": "cpu"}
    assert object_tree.decode(node, {"s": np.zeros(32, np.uint8)}, None, 0).shape == (3,)
    with pytest.raises(SnapshotError):
        object_tree.decode({**node, **damage}, {"s": np.zeros(32, np.uint8)}, None, 0)


@pytest.mark.parametrize("n", [1000, 200_000])
def test_long_lists_and_dicts_of_plain_values_save_and_load(n):
    # Every number was a map of its own ({"t": "value", "v": i}), so 1000 of them passed the header's
    # limit of one map or array per 16 bytes: mg.save(list(range(1000))) was a SnapshotError.
    from minigrad_ckpt.utils.data import DataLoader, TensorDataset

    loader = DataLoader(TensorDataset(mg.arange(n)), batch_size=1, shuffle=True)
    next(iter(loader))
    obj = {"losses": [0.5 * i for i in range(n)], "counts": {f"w{i}": i for i in range(n)},
           "flags": [True, None, "x", -(2**63)] * 10, "loader": loader.state_dict(), "rows": [[1, 2.0]] * 10}
    got = round_trip(obj)
    assert got == obj and type(got["rows"][0]) is list
    again = DataLoader(TensorDataset(mg.arange(n)), batch_size=1, shuffle=True)
    again.load_state_dict(got["loader"])
    assert again.state_dict() == loader.state_dict()


def test_files_written_with_the_earlier_nodes_still_load():
    old = {"t": "dict", "items": [["a", {"t": "value", "v": 1}],
                                  [2, {"t": "list", "items": [{"t": "value", "v": None}, {"t": "value", "v": "s"}]}],
                                  ["t", {"t": "tuple", "items": [{"t": "value", "v": 1.5}]}]]}
    assert object_tree.decode(old, {}, None, 0) == {"a": 1, 2: [None, "s"], "t": (1.5,)}


_KINDS = ["value", "int", "complex", "bytes", "bytearray", "dtype", "dict", "set", "frozenset", "list", "tuple",
          "tensor", "array", "view"]
_FIELDS = ["t", "v", "items", "keys", "values", "name", "storage", "offset", "shape", "strides", "dtype", "of",
           "ref", "requires_grad", "device", "parameter", "ordered"]
_PLAIN = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=4) | st.binary(
    max_size=4) | st.sampled_from(_KINDS + ["s", "a", "<f8", "tensor", "cpu"])
_NODES = st.recursive(_PLAIN, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
    st.sampled_from(_FIELDS), inner, max_size=6), max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(node=_NODES)
def test_any_node_a_file_may_hold_loads_or_is_a_snapshot_error(node):
    try:
        object_tree.decode(node, {"s": np.zeros(16, np.uint8), "a": np.ones(2)}, None, 0)
    except SnapshotError:
        pass


def test_two_slices_of_a_large_array_store_only_the_bytes_between_them(tmp_path):
    big = np.memmap(tmp_path / "data.bin", dtype=np.float32, mode="w+", shape=(1 << 22,))  # 16 MiB
    big[1000:1010] = np.arange(10)
    obj = {"a": big[1000:1004], "b": big[1006:1010:2], "t": mg.from_numpy(big[1002:1008])}
    buf = io.BytesIO()
    mg.save(obj, buf)
    assert len(buf.getvalue()) < 4096
    buf.seek(0)
    got = mg.load(buf)
    assert got["a"].tolist() == [0, 1, 2, 3] and got["b"].tolist() == [6, 8] and got["t"].tolist() == [2, 3, 4, 5, 6, 7]
    got["a"][3] = -1.0
    assert got["t"][1].item() == -1.0  # still one memory


_SUBCLASSES = {
    "defaultdict": lambda: defaultdict(list, {"a": [1]}),
    "namedtuple": lambda: namedtuple("Pair", "a b")(1, mg.ones(2)),
    "list subclass": lambda: type("Steps", (list,), {})([1, 2]),
    "set subclass": lambda: type("Tags", (set,), {})({1}),
}


@pytest.mark.parametrize("kind", sorted(_SUBCLASSES))
def test_a_container_subclass_is_refused_not_loaded_as_the_plain_container(tmp_path, kind):
    """A defaultdict, a namedtuple, ...: their class is code (a default_factory, field names), so
    mg.load could only give back the plain dict or tuple -- silently without their behaviour
    (``ckpt["counts"][k] += 1`` then a KeyError).  PyTorch 2.13's (weights_only) torch.load refuses
    them; mg.save refuses them at once, saying what to store.  An OrderedDict still loads as one,
    and so does a Counter (below)."""
    obj = _SUBCLASSES[kind]()
    with pytest.raises(TypeError, match=r"subclass, whose class is code: it would load as a plain \w+\); store"):
        mg.save({"x": obj}, tmp_path / "c.pt")
    assert not (tmp_path / "c.pt").exists()
    with pytest.raises(TypeError, match="subclass"):  # (a registered object's state is stored the same way)
        ex = mg.Executor()
        ex.register_state("counts", type("Holder", (), {"state_dict": lambda self: {"c": obj},
                                                      "load_state_dict": lambda self, s: None})())
        Snapshot.from_executor(ex)


def test_a_counter_loads_as_a_counter(tmp_path):
    """PyTorch 2.13's weights_only torch.load gives a Counter back (MultiStepLR's state dict holds
    one: its milestones); mg.save refused it as a container subclass."""
    obj = {"milestones": Counter({5: 2, 2: 1}), "words": Counter("aab"), "empty": Counter()}
    mg.save(obj, tmp_path / "c.pt")
    got = mg.load(tmp_path / "c.pt")
    assert got == obj and all(type(v) is Counter for v in got.values())
    assert list(got["milestones"].elements()) == [5, 5, 2]
