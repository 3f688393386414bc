"""PyTorch idioms that work alongside the NumPy names."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg


def test_randperm_is_a_seeded_permutation():
    mg.manual_seed(4)
    a = mg.randperm(50)
    mg.manual_seed(4)
    b = mg.randperm(50)
    assert a.dtype == np.int64 and a.tolist() == b.tolist()
    assert sorted(a.tolist()) == list(range(50)) and a.tolist() != list(range(50))
    assert mg.randperm(0).shape == (0,) and mg.randperm(5, dtype="int32").dtype == np.int32
    with pytest.raises(ValueError, match="non-negative"):
        mg.randperm(-1)


def test_from_numpy_shares_memory():
    a = np.zeros(3, dtype=np.float32)
    t = mg.from_numpy(a)
    a[1] = 2.0
    assert t.dtype == np.float32 and t.tolist() == [0.0, 2.0, 0.0]
    with pytest.raises(TypeError, match="numpy.ndarray"):
        mg.from_numpy([1, 2])


# ------------------------------------------------------------------ dim= and friends
def _x():
    return mg.tensor(np.arange(24.0).reshape(2, 3, 4), requires_grad=True)


@pytest.mark.parametrize("name, kwargs", [
    ("sum", {}), ("mean", {}), ("prod", {}), ("logsumexp", {}), ("cumsum", {}),
    ("cumprod", {}), ("argmax", {}), ("argmin", {}), ("flip", {}), ("argsort", {}),
    ("expand_dims", {}), ("roll", {"shift": 1}), ("repeat", {"repeats": 2}),
])
def test_dim_is_axis_for_every_axis_function(name, kwargs):
    fn = getattr(mg, name)
    x = _x()
    want = fn(x, axis=1, **kwargs)
    got = fn(x, dim=1, **kwargs)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    with pytest.raises(TypeError, match="either axis= or dim="):
        fn(x, axis=1, dim=1, **kwargs)


def test_every_public_function_with_an_axis_takes_dim():
    """The class of the problem, not its examples: any public function taking ``axis`` takes ``dim``."""
    import inspect

    for mod in (mg, mg.linalg, mg.special, mg.nn.functional):
        for name in mod.__all__:
            fn = getattr(mod, name)
            if inspect.isclass(fn) or not callable(fn):
                continue
            try:
                params = inspect.signature(fn).parameters
            except (TypeError, ValueError):
                continue
            if "axis" in params:
                assert "dim" in params, f"{mod.__name__}.{name} takes axis= but not dim="
    a = mg.tensor([[3.0, 4.0], [6.0, 8.0]])
    assert mg.linalg.norm(a, dim=1).tolist() == [5.0, 10.0]
    assert mg.special.logsumexp(a, dim=0, keepdim=True).shape == (1, 2)
    assert mg.cross(mg.tensor([[1.0, 0, 0]]), mg.tensor([[0, 1.0, 0]]), dim=1).tolist() == [[0, 0, 1.0]]


def test_dim_and_keepdim_as_methods_and_on_the_joiners():
    x = _x()
    assert x.sum(dim=(0, 2)).shape == (3,) and x.mean(dim=-1, keepdim=True).shape == (2, 3, 1)
    assert mg.sum(x, 1, keepdim=True).shape == (2, 1, 4)
    with pytest.raises(TypeError, match="keepdims= or keepdim="):
        x.sum(dim=1, keepdims=True, keepdim=True)
    assert mg.cat([x, x], dim=1).shape == (2, 6, 4) and mg.cat([x, x]).shape == (4, 3, 4)
    assert mg.stack([x, x], dim=-1).shape == (2, 3, 4, 2)
    assert mg.concatenate([x, x], dim=2).shape == (2, 3, 8)
    assert [t.shape for t in mg.split(x, 2, dim=2)] == [(2, 3, 2), (2, 3, 2)]
    assert mg.squeeze(mg.ones(2, 1, 3), dim=1).shape == (2, 3)
    assert mg.take(x, mg.tensor([0, 2]), dim=1).shape == (2, 2, 4)
    assert mg.nn.functional.softmax(x, dim=0).shape == x.shape
    with pytest.raises(TypeError, match="either axis= or dim="):
        mg.cat([x, x], dim=1, axis=0)


def test_max_with_dim_returns_values_and_indices_like_pytorch():
    x = mg.tensor([[1.0, 5.0, 5.0], [7.0, 2.0, 7.0]], requires_grad=True)
    values, indices = x.max(dim=1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert isinstance(mg.max(x, dim=1), mg.ValuesIndices) and mg.max(x, dim=1).indices.dtype == np.int64
    values.sum().backward()
    assert x.grad.tolist() == [[0, 1, 0], [1, 0, 0]]  # PyTorch: the gradient goes to the index returned
    x.grad = None
    x.max(axis=1).sum().backward()  # NumPy's axis= keeps NumPy's meaning: ties share the gradient
    assert x.grad.tolist() == [[0, 0.5, 0.5], [0.5, 0, 0.5]]
    v, i = mg.min(x, dim=0, keepdim=True)
    assert v.shape == (1, 3) and i.tolist() == [[0, 1, 0]]
    assert x.max().item() == 7.0 and x.max(1).values.shape == (2,) and x.max(axis=1).shape == (2,)
    with pytest.raises(TypeError, match="either axis= or dim="):
        x.max(axis=1, dim=1)
    with pytest.raises(TypeError, match="either axis= or dim="):
        mg.max(x, 1, dim=1)


def test_view_unsqueeze_flatten_and_comparison_methods():
    x = _x()
    assert x.view(6, 4).shape == (6, 4) and x.view((4, -1)).shape == (4, 6) and x.view(-1).shape == (24,)
    assert x.unsqueeze(1).shape == (2, 1, 3, 4) and mg.unsqueeze(x, -1).shape == (2, 3, 4, 1)
    assert x.flatten().shape == (24,) and x.flatten(1).shape == (2, 12) and x.flatten(0, 1).shape == (6, 4)
    assert mg.flatten(x, start_dim=1, end_dim=-1).shape == (2, 12)
    with pytest.raises(ValueError, match="start_dim"):
        x.flatten(2, 1)
    y = mg.tensor([1, 2, 3])
    assert y.eq(2).tolist() == [False, True, False] and y.ne(2).tolist() == [True, False, True]
    assert y.lt(2).tolist() == [True, False, False] and y.le(2).tolist() == [True, True, False]
    assert y.gt(2).tolist() == [False, False, True] and y.ge(mg.tensor([3, 2, 1])).tolist() == [False, True, True]
    (x.view(24) * 2).sum().backward()
    assert (x.grad.numpy() == 2).all()


def test_size_is_the_element_count_and_size_called_is_pytorchs():
    x = mg.ones(3, 4)
    assert x.size == 12 and isinstance(x.size, int) and x.size * 2 == 24 and bool(mg.ones(0).size) is False
    assert x.size() == (3, 4) and x.size(0) == 3 and x.size(-1) == 4


def test_numpy_is_read_only_and_copy_is_the_idiom():
    x = mg.ones(3)
    a = x.numpy()
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 5.0
    b = x.numpy().copy()
    b[0] = 5.0
    assert x.tolist() == [1.0, 1.0, 1.0]
    assert "copy()" in mg.Tensor.numpy.__doc__


# ------------------------------------------------------------------ mg.save / mg.load
@pytest.mark.msgpack
def test_save_load_state_dicts_and_nested_containers(tmp_path):
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.BatchNorm1d(4))
    opt = mg.optim.AdamW(model.parameters(), lr=0.01)
    model(mg.randn(5, 3)).sum().backward()
    opt.step()
    obj = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3, "note": "x", "none": None,
           "pair": (1.5, [mg.tensor([1, 2], dtype="int16"), np.arange(3)]), 7: mg.tensor(2.5, dtype="float64")}
    path = mg.save(obj, tmp_path / "ckpt.mgsnap")
    back = mg.load(path)
    assert back.keys() == obj.keys() and back["epoch"] == 3 and back["note"] == "x" and back["none"] is None
    for k, v in obj["model"].items():
        assert back["model"][k].dtype == v.dtype and back["model"][k].numpy().tobytes() == v.numpy().tobytes()
    assert isinstance(back["pair"], tuple) and back["pair"][1][0].dtype == np.int16
    assert isinstance(back["pair"][1][1], np.ndarray) and back[7].dtype == np.float64
    assert list(back["optimizer"]["state"]) == list(obj["optimizer"]["state"])  # int keys stay ints
    assert back["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)
    model2 = mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.BatchNorm1d(4))
    model2.load_state_dict(back["model"])
    opt2 = mg.optim.AdamW(model2.parameters(), lr=0.01)
    opt2.load_state_dict(back["optimizer"])
    assert opt2.state_dict()["state"][0]["step"] == 1
    # it is a snapshot file: the snapshot reader and its checks apply
    assert mg.snapshot.Snapshot.load(path).tensors["model.0.weight"].shape == (4, 3)


@pytest.mark.msgpack
def test_save_refuses_what_it_cannot_store_and_load_refuses_other_files(tmp_path):
    with pytest.raises(TypeError, match="never pickle"):
        mg.save({"f": lambda: 1}, tmp_path / "a.mgsnap")
    with pytest.raises(TypeError, match="dict key"):  # (a tuple key is stored, as PyTorch's; an object is not)
        mg.save({(1, object()): mg.ones(1)}, tmp_path / "b.mgsnap")
    ex = mg.Executor()
    ex.add_tensor("w", mg.ones(2))
    snap = mg.snapshot.Snapshot.from_executor(ex).save(tmp_path / "c.mgsnap")
    with pytest.raises(mg.snapshot.SnapshotError, match="not a file written by mg.save"):
        mg.load(snap)
    (tmp_path / "d.mgsnap").write_bytes(b"\x93NUMPY pickle? no")
    with pytest.raises(mg.snapshot.SnapshotError):
        mg.load(tmp_path / "d.mgsnap")


@pytest.mark.msgpack
def test_load_validates_the_object_description(tmp_path):
    from minigrad_ckpt.snapshot import object_tree

    for bad in ({"t": "tensor", "name": "missing"}, {"t": "dict", "items": [[1.5, {"t": "value", "v": 1}]]},
                {"t": "pickle"}, {"t": "value", "v": [1]}, [[1]], b"not a node"):  # (a str is a plain value)
        with pytest.raises(mg.snapshot.SnapshotError):
            object_tree.decode(bad, {}, None, 0)
    deep = {"t": "value", "v": 1}
    for _ in range(100):
        deep = {"t": "list", "items": [deep]}
    with pytest.raises(mg.snapshot.SnapshotError):
        object_tree.decode(deep, {}, None, 0)
