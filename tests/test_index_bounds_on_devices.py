"""Out-of-range indices are PyTorch's errors on every device, not silently wrapped ones.

CuPy's integer-array indexing, ``take``, ``put`` and ``scatter_add`` *wrap* an index out of range
(``a[[1, 3]]`` of 3 elements is ``a[[1, 0]]``), where NumPy raises: engine code that leaned on
NumPy's ``IndexError`` gave a wrong answer on a GPU, silently.  The strict stand-in device now
wraps as CuPy does (the first tests), so the table of calls in tests/data/index_bound_cases.py --
``x[i]``, ``x[i] = v``, the gather/scatter family, ``take``/``put``, ``embedding``, ``one_hot``,
the class-index losses -- proves the engine checks them there: each raises what torch 2.13 raises
(type and message, recorded by tests/data/make_torch_index_bounds.py), or gives torch's shape, on
the CPU and both strict devices, off the tape, under backward, inside a checkpoint and in forward
mode.  The check costs one explicit device-to-host read per call on a device, none on the CPU
where NumPy refuses the index itself (its error reworded as PyTorch's).
"""

from __future__ import annotations

import builtins
import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt.backend import get_device
from minigrad_ckpt.testing import strict  # noqa: F401 -- registers the strict devices

DATA = Path(__file__).parent / "data"
sys.path.insert(0, str(DATA))
from index_bound_cases import CASES, make_x, run  # noqa: E402

sys.path.remove(str(DATA))
TORCH = json.loads((DATA / "torch_index_bounds.json").read_text())["cases"]
DEVICES = ["cpu", "strict", "strict-f32"]
# torch words these by the path its kernel takes; the type is the contract here
MESSAGE_VARIES = {"embedding_bag"}
NAMES = sorted(CASES)


def _dtype(device: str) -> str:
    return "float32" if device == "strict-f32" else "float64"


# ------------------------------------------------------------- the stand-in wraps as CuPy
def test_the_strict_device_wraps_out_of_range_index_arrays_as_cupy_does():
    xp = get_device("strict").xp
    a = xp.asarray(np.arange(3.0))
    idx = xp.asarray(np.array([1, 3, -4]))
    np.testing.assert_array_equal(xp.to_host(a[idx]), [1.0, 0.0, 2.0])  # CuPy's documented a[[1, 3]]
    np.testing.assert_array_equal(xp.to_host(xp.take(a, idx)), [1.0, 0.0, 2.0])
    b = xp.asarray(np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(xp.to_host(b[:, xp.asarray(np.array([5]))]).ravel(), [1.0, 5.0, 9.0])
    np.testing.assert_array_equal(xp.to_host(xp.take_along_axis(b, xp.asarray(np.array([[4]])), axis=1)).ravel(),
                                  [0.0, 4.0, 8.0])
    a[xp.asarray(np.array([4]))] = 9.0
    np.testing.assert_array_equal(xp.to_host(a), [0.0, 9.0, 2.0])
    xp.scatter_add(a, (xp.asarray(np.array([3, 3])),), xp.asarray(np.array([1.0, 1.0])))
    np.testing.assert_array_equal(xp.to_host(a), [2.0, 9.0, 2.0])
    with pytest.raises(IndexError):  # a Python int is basic indexing: CuPy checks it on the host
        a[3]
    assert xp.wraps_bad_indices and not get_device("cpu").xp.wraps_bad_indices


# ------------------------------------------------------------------------ the table
def _check(name: str, call) -> None:
    expected = TORCH[name]
    if "raises" in expected:
        with pytest.raises(Exception) as info:  # noqa: PT011 -- the type is checked below, against torch's
            call()
        assert isinstance(info.value, getattr(builtins, expected["raises"])), (name, repr(info.value))
        if name not in MESSAGE_VARIES:
            assert str(info.value) == expected["message"], name
    else:
        assert list(call().shape) == expected["shape"], name


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", NAMES)
def test_index_ops_answer_as_pytorch_on_every_device(name, device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(name, lambda: run(mg, CASES[name], device, _dtype(device)))


def _differentiated(name: str, device: str, mode: str):
    """The case as a function of a leaf ``x``: backward through it, inside a checkpoint, or forward mode."""
    x = make_x(mg, device, _dtype(device), requires_grad=mode != "jvp")

    def f(x):
        return run(mg, CASES[name], device, _dtype(device), x=x)

    if mode == "jvp":
        return mg.func.jvp(f, (x,), (mg.ones_like(x),))[0]
    out = mg.checkpoint.checkpoint(f, x, use_reentrant=False) if mode == "checkpoint" else f(x)
    if out.requires_grad:
        out.sum().backward()
    return out


@pytest.mark.parametrize("checkpointed", [False, True], ids=["backward", "checkpoint"])
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", NAMES)
def test_index_ops_check_under_backward_and_checkpoint(name, device, checkpointed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(name, lambda: _differentiated(name, device, "checkpoint" if checkpointed else "backward"))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", NAMES)
def test_index_ops_check_in_forward_mode(name, device):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _check(name, lambda: _differentiated(name, device, "jvp"))


# ------------------------------------------------------------------- what the check costs
def _count_reads(monkeypatch, device: str) -> list:
    """Every explicit device-to-host read of ``device`` (``xp.scalar`` reads through ``to_host``)."""
    xp = get_device(device).xp
    reads, to_host = [], xp.to_host
    monkeypatch.setattr(xp, "to_host", lambda a: reads.append(a) or to_host(a))
    return reads


@pytest.mark.parametrize(("device", "expected"), [("cpu", 0), ("strict", 1), ("strict-f32", 1)])
def test_index_arrays_are_checked_in_one_read_on_a_device_and_none_on_the_cpu(monkeypatch, device, expected):
    x = mg.arange(24.0, device=device).reshape(2, 3, 4)
    if device == "strict-f32":
        x = x.float()
    i, j, k = (mg.tensor(v, device=device) for v in ([1, 0], [[2], [-3]], [3, -4]))
    reads = _count_reads(monkeypatch, device)
    out = x[i, j, k]
    x[i, j, k] = out * 2
    assert len(reads) == 2 * expected  # NumPy refuses a bad index itself; a device reads all three at once


@pytest.mark.parametrize("call", [
    lambda x, T: mg.nn.functional.embedding(T([[0, 2], [1, 1]]), x),
    lambda x, T: mg.nn.functional.one_hot(T([0, 2, 1])),
    lambda x, T: mg.nn.functional.cross_entropy(x, T([0, 3, 1])),
    lambda x, T: mg.nn.functional.cross_entropy(x, T([0, -100, 1])),  # an ignored target among them
    lambda x, T: mg.nn.functional.nll_loss(x, T([0, -100, 1]), weight=x[0] * 0 + 1),
    lambda x, T: mg.nn.functional.cross_entropy(x, T([0, -100, 1]), weight=x[0] * 0 + 1, label_smoothing=0.1),
    lambda x, T: mg.nn.functional.max_unpool1d(x[None, :1, :2], T([[[0, 3]]]), 2),
    lambda x, T: mg.gather(x, 1, T([[0, 3]] * 3)),
    lambda x, T: mg.scatter(x, 1, T([[3], [0]]), x[:2, :1] * 2),
    lambda x, T: mg.scatter_add(x, 1, T([[3], [0]]), x[:2, :1] * 2),
    lambda x, T: mg.scatter_reduce(x, 1, T([[3, 3]]), x[:1, :2] * 2, "amax"),
    lambda x, T: mg.index_select(x, 1, T([3, 0])),
], ids=["embedding", "one_hot", "cross_entropy", "cross_entropy_ignored", "nll_loss_weighted_ignored",
        "cross_entropy_weighted_smoothed", "max_unpool1d", "gather", "scatter", "scatter_add", "scatter_reduce",
        "index_select"])
def test_lookups_and_losses_check_their_indices_in_one_read_on_a_device(monkeypatch, call, request):
    x = make_x(mg, "strict", requires_grad=True)
    reads = _count_reads(monkeypatch, "strict")
    out = call(x, lambda v: mg.tensor(v, device="strict"))
    # (two or three before: the min, then the max; or a host copy, then a check).  A loss whose targets
    # hold ignore_index reads the counted targets' bounds second: the usual batch, none ignored, then
    # costs two reductions and one read instead of six passes
    assert len(reads) == (2 if "ignored" in request.node.callspec.id or "smoothed" in request.node.callspec.id
                          else 1)
    if out.requires_grad:
        out.sum().backward()


def test_take_along_axis_checks_in_one_read_on_a_device(monkeypatch):
    x = make_x(mg, "strict", requires_grad=True)
    reads = _count_reads(monkeypatch, "strict")
    out = mg.take_along_axis(x, mg.tensor([[0], [3], [-4]], device="strict"), axis=1)
    assert len(reads) == 1  # (two before: its min, then its max)
    out.sum().backward()
    np.testing.assert_array_equal(out.detach().to("cpu").numpy().ravel(), [0.0, -2.5, 1.0])
    for device in DEVICES:
        with pytest.raises(IndexError, match="take_along_axis: index -5 is out of bounds for axis 1 with size 4"):
            mg.take_along_axis(make_x(mg, device, _dtype(device)), mg.tensor([[0], [-5], [4]], device=device), 1)


@pytest.mark.parametrize("call", [
    lambda x: x.max(dim=1).values,
    lambda x: x.min(dim=0, keepdim=True).values,
    lambda x: x.sort(dim=1, descending=True).values,
    lambda x: x.topk(2, dim=1).values,
    lambda x: x.kthvalue(2, dim=1).values,
    lambda x: mg.nn.functional.adaptive_max_pool1d(x[None], 2),
], ids=["max", "min", "sort", "topk", "kthvalue", "adaptive_max_pool1d"])
def test_gathers_at_indices_the_engine_made_read_nothing_back(monkeypatch, call):
    """``x.max(dim)`` gathers its values at its own argmax: in range by construction, so a GPU is
    not made to wait for a check of them (it waited twice per call)."""
    x = make_x(mg, "strict", requires_grad=True)
    reads = _count_reads(monkeypatch, "strict")
    call(x).sum().backward()
    assert not reads


# ------------------------------------------------------- any index, on the CPU and a wrapping device
@st.composite
def _indexings(draw):
    """A shape, and an index into it: slices, then 1 to 3 integer arrays of one shape, some of their
    values out of range (either side), as tensors or lists."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    lead = draw(st.integers(0, len(shape) - 1))
    count = draw(st.integers(1, len(shape) - lead))
    ishape = tuple(draw(st.lists(st.integers(0, 3), max_size=2)))
    size = math.prod(ishape)
    arrays = [np.array(draw(st.lists(st.integers(-6, 6), min_size=size, max_size=size)), dtype=np.int64).reshape(ishape)
              for _ in range(count)]
    return shape, lead, arrays, draw(st.booleans())


@settings(max_examples=80, deadline=None)
@given(case=_indexings(), write=st.booleans())
def test_indexing_answers_alike_on_the_cpu_and_a_device_that_wraps(case, write):
    """x[index] and x[index] = v: the same values, or the same IndexError, on the CPU (NumPy raises) and
    on the strict device (it wraps, as CuPy: the engine's check must catch what NumPy would)."""
    shape, lead, arrays, as_lists = case
    answers = []
    for device in ("cpu", "strict"):
        x = mg.arange(float(math.prod(shape)), device=device).reshape(shape)
        index = (slice(None),) * lead + tuple(a.tolist() if as_lists else mg.tensor(a, device=device) for a in arrays)
        try:
            if write:
                x[index] = -1.0
                answers.append(x.to("cpu").numpy())
            else:
                answers.append(x[index].to("cpu").numpy())
        except IndexError as error:
            answers.append(str(error))
    if isinstance(answers[0], str):
        assert answers[1] == answers[0]
        assert "is out of bounds for dimension" in answers[0]
    else:
        np.testing.assert_array_equal(answers[1], answers[0])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index", [([5],), (np.array([0, -4]),), ([[0], [1]], [1, 3])], ids=["list", "array", "lists"])
def test_the_adjoint_of_indexing_checks_a_callers_index_tuple(device, index):
    """``mg.functional.index_add(shape, index, values)`` with a tuple of lists or host arrays: the
    strict device (as CuPy) added at 5 % 3 = 2 silently, where the CPU raised."""
    values = mg.ones(2 if len(index) == 1 and len(index[0]) == 2 else 1, device=device)
    with pytest.raises(IndexError, match="out of bounds for dimension"):
        mg.functional.index_add((3, 3) if len(index) == 2 else (3,), index, values)
