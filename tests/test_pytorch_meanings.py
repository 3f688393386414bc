"""PyTorch's spellings mean PyTorch's answers; NumPy's spellings NumPy's.

Each row of the table in ``docs/from-pytorch.md`` is a test here, with the values worked
out by hand (they are also PyTorch's and NumPy's outputs for these inputs).  Then: every
public name of ``torch.Tensor`` is offered or listed as not offered; ``.data`` is PyTorch's
alias; Adadelta and LBFGS follow PyTorch step for step (``tests/data/ported_reference.npz``,
made offline by ``make_ported_reference.py``) and resume bit for bit from a snapshot.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import nn

HERE = Path(__file__).parent
DOCS = HERE.parent / "docs" / "from-pytorch.md"
REF = np.load(HERE / "data" / "ported_reference.npz")


def _k():
    return mg.tensor(np.arange(6.0).reshape(2, 3))


# ------------------------------------------------------------ the table, row by row
def test_transpose_two_dims_swaps_them_and_an_axes_tuple_permutes():
    k = _k()
    assert k.transpose(-2, -1).tolist() == [[0, 3], [1, 4], [2, 5]]          # PyTorch: swap
    assert k.transpose(0, 1).tolist() == [[0, 3], [1, 4], [2, 5]]
    assert mg.transpose(k, 0, 1).tolist() == [[0, 3], [1, 4], [2, 5]]
    x = mg.zeros(2, 3, 4)
    assert x.transpose().shape == (4, 3, 2) and x.transpose((1, 0, 2)).shape == (3, 2, 4)  # NumPy
    assert mg.transpose(x, (2, 0, 1)).shape == (4, 2, 3) and x.transpose(0, 2).shape == (4, 3, 2)
    with pytest.raises(RuntimeError, match="<= 2 dimensions"):
        x.t()
    assert k.t().shape == (3, 2)


def test_split_counts_pieces_in_numpy_and_sizes_them_in_pytorch():
    x = mg.arange(6.0)
    assert [p.tolist() for p in mg.split(x, 3)] == [[0, 1], [2, 3], [4, 5]]
    assert [p.tolist() for p in mg.split(x, 3, dim=0)] == [[0, 1, 2], [3, 4, 5]]
    assert [p.tolist() for p in x.split(4)] == [[0, 1, 2, 3], [4, 5]]     # the last piece shorter
    assert [p.tolist() for p in x.split([1, 5])] == [[0], [1, 2, 3, 4, 5]]
    assert [p.shape for p in _k().split(1, dim=1)] == [(2, 1)] * 3
    assert [p.tolist() for p in x.chunk(4)] == [[0, 1], [2, 3], [4, 5]]   # ceil(6/4) = 2: three chunks
    assert [t.tolist() for t in _k().unbind(1)] == [[0, 3], [1, 4], [2, 5]]
    with pytest.raises(ValueError, match="split_sizes to sum exactly to"):
        x.split([1, 2])


def test_max_min_with_a_dim_are_values_and_indices_and_with_a_tensor_elementwise():
    k = mg.tensor([[1.0, 5.0, 5.0], [7.0, 2.0, 7.0]], requires_grad=True)
    assert k.max(1)[1].tolist() == [1, 0]                     # the argmax (first of ties, as PyTorch)
    assert k.min(0).values.tolist() == [1.0, 2.0, 5.0] and k.min(0).indices.tolist() == [0, 1, 0]
    assert k.max(axis=1).tolist() == [5.0, 7.0] and mg.max(k, 1).tolist() == [5.0, 7.0]   # NumPy
    assert k.max(mg.tensor(3.0)).tolist() == [[3, 5, 5], [7, 3, 7]]                        # elementwise
    assert mg.min(k, mg.tensor([2.0, 2.0, 2.0])).tolist() == [[1, 2, 2], [2, 2, 2]]
    assert k.max().item() == 7.0 and k.amax(1).tolist() == [5.0, 7.0]
    v, i = k.max(1, keepdim=True)
    assert v.shape == (2, 1) and i.shape == (2, 1)
    mg.tensor(2.0).max(0)  # a 0-d tensor takes dim 0, as in PyTorch


def test_sort_and_argsort_are_pytorchs_pairs_on_the_method_and_with_dim():
    x = mg.tensor([3.0, 1.0, 2.0, 1.0], requires_grad=True)
    values, indices = x.sort()
    assert values.tolist() == [1, 1, 2, 3] and indices.tolist() == [1, 3, 2, 0]   # stable
    assert x.sort(descending=True).indices.tolist() == [0, 2, 1, 3]             # ties keep their order
    assert mg.sort(x).tolist() == [1, 1, 2, 3] and x.sort(axis=0).tolist() == [1, 1, 2, 3]   # NumPy: values
    assert mg.sort(x, dim=0).indices.tolist() == [1, 3, 2, 0]
    assert mg.sort(x, stable=True).indices.tolist() == [1, 3, 2, 0]            # stable= is PyTorch's keyword
    pair_values, pair_indices = mg.sort(mg.tensor([2.0, 1.0]), stable=True)   # not the two sorted numbers
    assert pair_values.tolist() == [1.0, 2.0] and pair_indices.tolist() == [1, 0]
    assert x.argsort(descending=True).tolist() == [0, 2, 1, 3]
    assert mg.argsort(x, dim=0, descending=True).tolist() == [0, 2, 1, 3] and mg.argsort(x).tolist() == [1, 3, 2, 0]
    values.backward(mg.tensor([1.0, 2.0, 3.0, 4.0]))
    assert x.grad.tolist() == [4.0, 1.0, 3.0, 2.0]           # each element gets its slot's gradient
    top = x.topk(2)
    assert top.values.tolist() == [3.0, 2.0] and top.indices.tolist() == [0, 2]
    assert x.topk(1, largest=False).indices.tolist() == [1]


def test_repeat_tiles_on_the_method_and_repeats_elements_in_numpy():
    x = mg.tensor([1, 2])
    assert x.repeat(2).tolist() == [1, 2, 1, 2]                   # PyTorch: tile
    assert x.repeat(2, 2).tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]
    assert x.repeat(2, axis=0).tolist() == [1, 1, 2, 2]           # NumPy: each element
    assert mg.repeat(x, 2).tolist() == [1, 1, 2, 2] and x.repeat_interleave(2).tolist() == [1, 1, 2, 2]
    with pytest.raises(RuntimeError, match="tiles"):
        _k().repeat(2)


@pytest.mark.parametrize("name", ["var", "std"])
def test_var_std_use_pytorchs_correction_on_the_method_and_with_dim(name):
    x = mg.tensor(np.arange(5.0))                                 # var: N gives 2, N - 1 gives 2.5
    want_n1, want_n = (2.5, 2.0) if name == "var" else (2.5 ** 0.5, 2.0 ** 0.5)
    m = getattr(x, name)
    f = getattr(mg, name)
    assert m().item() == pytest.approx(want_n1) and m(0).item() == pytest.approx(want_n1)
    assert m(unbiased=False).item() == pytest.approx(want_n) and m(correction=0).item() == pytest.approx(want_n)
    assert m(axis=0).item() == pytest.approx(want_n) and m(ddof=1).item() == pytest.approx(want_n1)   # NumPy
    assert f(x).item() == pytest.approx(want_n) and f(x, dim=0).item() == pytest.approx(want_n1)
    assert f(x, correction=0).item() == pytest.approx(want_n) and f(x, ddof=1).item() == pytest.approx(want_n1)
    with pytest.raises(TypeError, match="one of ddof"):
        f(x, ddof=1, correction=1)


def test_size_is_a_number_and_a_call():
    x = mg.zeros(3, 4)
    assert x.size == 12 and x.size + 1 == 13 and x.size() == (3, 4) and x.size(1) == 4 and x.size(-2) == 3
    assert x.numel() == 12 and x.dim() == 2 and x.nelement() == 12


def test_view_reshapes_and_a_dtype_view_reinterprets_bytes():
    x = mg.arange(6.0)
    assert x.view(2, 3).shape == (2, 3) and x.view(-1, 2).shape == (3, 2)
    assert x.view_as(mg.zeros(3, 2)).shape == (3, 2) and x.reshape_as(_k()).shape == (2, 3)
    bits = mg.tensor([1.0], dtype="float32").view(mg.int32)
    assert bits.tolist() == [0x3F800000]
    with pytest.raises(RuntimeError, match="size.-1. must be divisible by 2"):
        mg.tensor([1.0], dtype="float32").view(mg.int64)  # PyTorch's condition for a larger item


def test_type_names_and_casts():
    x = mg.tensor([1.5])
    assert x.type() == "minigrad_ckpt.FloatTensor" and x.double().type() == "minigrad_ckpt.DoubleTensor"
    assert x.type(mg.float64).dtype == np.float64 and x.type("torch.LongTensor").dtype == np.int64
    assert x.type_as(mg.zeros(1, dtype="int32")).dtype == np.int32


def test_nonzero_is_a_tuple_in_numpy_and_a_count_by_ndim_tensor_in_pytorch():
    x = mg.tensor([[0.0, 1.5], [2.0, 0.0]])
    assert [t.tolist() for t in mg.nonzero(x)] == [[0, 1], [1, 0]]
    assert x.nonzero().tolist() == [[0, 1], [1, 0]] and mg.nonzero(x, as_tuple=False).tolist() == [[0, 1], [1, 0]]
    assert [t.tolist() for t in x.nonzero(as_tuple=True)] == [[0, 1], [1, 0]]


def test_median_is_the_mean_of_the_middle_in_numpy_and_the_lower_value_in_pytorch():
    x = mg.tensor([[4.0, 1.0, 3.0, 2.0]])
    assert mg.median(x).item() == 2.5 and mg.median(x, 1).tolist() == [2.5]
    assert x.median().item() == 2.0 and x.median(1).values.tolist() == [2.0] and x.median(1).indices.tolist() == [3]
    assert mg.median(x, dim=1).values.tolist() == [2.0] and mg.nanmedian(x, dim=1).indices.tolist() == [3]


def test_histogram_has_numpys_10_bins_as_a_function_and_pytorchs_100_as_a_method():
    x = mg.arange(10.0)
    assert mg.histogram(x).hist.tolist() == [1.0] * 10 and x.histogram().hist.shape == (100,)
    assert mg.histogram(x, 5, (0.0, 10.0)).hist.tolist() == [2.0] * 5  # NumPy's third argument: range
    assert x.histogram(5, range=(0.0, 10.0)).bin_edges.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]


def test_heaviside_is_nan_at_nan_in_numpy_and_zero_in_pytorch():
    x = mg.tensor([float("nan"), 0.0, 2.0])
    assert np.isnan(mg.heaviside(x, 0.5).numpy()[0]) and mg.heaviside(x, 0.5).tolist()[1:] == [0.5, 1.0]
    assert x.heaviside(mg.tensor(0.5)).tolist() == [0.0, 0.5, 1.0]


def test_triangle_indices_gradient_and_unique_follow_the_spelling():
    rows, cols = mg.tril_indices(3)
    assert rows.tolist() == [0, 1, 1, 2, 2, 2] and mg.tril_indices(3, col=3).shape == (2, 6)
    with pytest.raises(TypeError, match="reads both ways|means"):
        mg.tril_indices(3, 3)
    f = mg.tensor([1.0, 2.0, 4.0])
    assert isinstance(mg.gradient(f), mg.Tensor) and isinstance(mg.gradient(f, spacing=1.0), tuple)
    x = mg.tensor([3, 1, 1])
    values, first = mg.unique(x, True)                      # NumPy: the second argument is return_index
    assert values.tolist() == [1, 3] and first.tolist() == [1, 0]
    assert x.unique(True).tolist() == [1, 3]                # PyTorch: it is sorted=


def test_flatten_all_any_and_expand():
    x = mg.zeros(2, 3, 4)
    assert x.flatten().shape == (24,) and x.flatten(1).shape == (2, 12) and mg.flatten(x, 0, 1).shape == (6, 4)
    b = mg.tensor([[True, False], [True, True]])
    assert b.all().item() is False and b.all(1).tolist() == [False, True] and b.any(0, keepdim=True).shape == (1, 2)
    assert b.all(axis=0).tolist() == [True, False]
    y = mg.tensor([[1.0], [2.0]], requires_grad=True)
    e = y.expand(2, 3)
    assert e.shape == (2, 3) and y.expand(-1, 3).shape == (2, 3) and y.expand(4, 2, 3).shape == (4, 2, 3)
    e.sum().backward()
    assert y.grad.tolist() == [[3.0], [3.0]]
    assert y.expand_as(mg.zeros(2, 5)).shape == (2, 5)


def test_an_empty_dim_list_is_every_dim_and_an_empty_axis_none():
    k = _k()
    assert mg.sum(k, ()).tolist() == k.tolist() and k.sum(axis=()).tolist() == k.tolist()        # NumPy
    assert k.sum(()).item() == 15 and mg.sum(k, dim=[]).item() == 15
    assert k.std(()).item() == pytest.approx(1.8708286933869707)
    assert mg.linalg.vector_norm(k, dim=()).item() == pytest.approx(55 ** 0.5)                 # PyTorch
    assert k.all(()).tolist() == [[False, True, True], [True, True, True]]


def test_dim_0_of_a_0d_tensor_is_its_element():
    z = mg.tensor(3.0)
    assert z.sum(0).item() == 3 and z.amax(-1).item() == 3 and z.argmax(0).item() == 0          # PyTorch
    assert z.std(0).isnan().item() and mg.std_mean(z, dim=0)[1].item() == 3
    for numpys in (lambda: mg.sum(z, 0), lambda: z.sum(axis=0)):
        with pytest.raises(ValueError, match="out of bounds"):
            numpys()


# ----------------------------------------------------------------- the methods list
def _torch_names() -> list[str]:
    lines = (HERE / "data" / "torch_tensor_methods.txt").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def _not_offered() -> set[str]:
    text = DOCS.read_text()
    section = text[text.index("## Tensor methods not offered"):]
    section = section[:section.index("\n## ", 3)]
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", section.split(":\n", 1)[1]))


def test_every_public_name_of_torch_tensor_is_offered_or_documented_as_not():
    missing = [n for n in _torch_names() if not hasattr(mg.Tensor, n) and n not in _not_offered()]
    assert not missing, f"offer these with PyTorch's meaning, or run python docs/gen_not_offered.py: {missing}"


def test_the_not_offered_list_names_nothing_that_is_offered():
    offered = sorted(n for n in _not_offered() & set(_torch_names()) if hasattr(mg.Tensor, n))
    assert not offered, f"these are offered now; run python docs/gen_not_offered.py: {offered}"


# ----------------------------------------------------------------- the top-level functions list
def _torch_functions() -> list[str]:
    lines = (HERE / "data" / "torch_functions.txt").read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def _functions_not_offered() -> set[str]:
    text = DOCS.read_text()
    section = text[text.index("## Top-level functions not offered"):]
    section = section[:section.index("\n## ", 3)]
    body = "\n".join(ln for ln in section.split("with the reason:\n", 1)[1].splitlines() if not ln.startswith("**"))
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", body))


def test_every_public_function_of_torch_is_offered_or_documented_as_not():
    missing = [n for n in _torch_functions() if not hasattr(mg, n) and n not in _functions_not_offered()]
    assert not missing, f"offer these with PyTorch's meaning, or run python docs/gen_not_offered.py: {missing}"


def test_the_functions_not_offered_list_names_nothing_that_is_offered():
    offered = sorted(n for n in _functions_not_offered() & set(_torch_functions()) if hasattr(mg, n))
    assert not offered, f"these are offered now; run python docs/gen_not_offered.py: {offered}"


def test_the_functions_section_is_what_the_generator_writes():
    sys.path.insert(0, str(HERE.parent / "docs"))
    try:
        import gen_not_offered
    finally:
        sys.path.pop(0)
    assert gen_not_offered.function_section() in DOCS.read_text()


def test_the_methods_a_pytorch_user_calls():
    a = mg.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
    assert a.mm(a).tolist() == [[-5.0, -10.0], [15.0, 10.0]] and a.t().tolist() == [[1, 3], [-2, 4]]
    assert a.pow(2).tolist() == [[1, 4], [9, 16]] and a.clamp(min=0).tolist() == [[1, 0], [3, 4]]
    assert a.clamp(-1, 1).tolist() == [[1, -1], [1, 1]] and a.norm().item() == pytest.approx(30 ** 0.5)
    assert a.norm(dim=1).tolist() == pytest.approx([5 ** 0.5, 5.0])
    assert a.masked_fill(a < 0, 0.0).tolist() == [[1, 0], [3, 4]]
    assert a.softmax(1).sum(1).tolist() == pytest.approx([1.0, 1.0])
    assert a.log_softmax(-1).exp().sum(-1).tolist() == pytest.approx([1.0, 1.0])
    assert a.roll(1, 0).tolist() == [[3, 4], [1, -2]] and a.add(a, alpha=2).tolist() == [[3, -6], [9, 12]]
    assert a.sub(1, alpha=2).tolist() == [[-1, -4], [1, 2]]
    n = a.new_zeros(2, 3)
    assert n.shape == (2, 3) and n.dtype == a.dtype and not n.requires_grad
    assert a.new_ones((1,)).tolist() == [1.0] and a.new_full((2,), 7.0).tolist() == [7.0, 7.0]
    assert a.new_tensor([1, 2]).dtype == a.dtype and a.new_empty(3).shape == (3,)
    with mg.no_grad():
        c = mg.zeros(2)
        c.addcmul_(mg.tensor([1.0, 2.0]), mg.tensor([3.0, 4.0]), value=0.5)
        c.addcdiv_(mg.tensor([1.0, 2.0]), mg.tensor([2.0, 4.0]))
    assert c.tolist() == [2.0, 4.5]
    assert mg.tensor([2.0]).item() == 2.0 and mg.tensor([[1, 2]]).tolist() == [[1, 2]]
    for cast, dt in (("double", "float64"), ("float", "float32"), ("half", "float16"), ("long", "int64"),
                     ("int", "int32"), ("bool", "bool"), ("short", "int16"), ("byte", "uint8"), ("char", "int8")):
        assert getattr(a, cast)().dtype == np.dtype(dt)
    assert mg.double == np.float64 and mg.float == np.float32 and mg.long == np.int64
    assert mg.device("cpu").type == "cpu" and mg.accelerator.is_available() == mg.cuda.is_available()
    assert (mg.accelerator.current_accelerator() is None) == (not mg.cuda.is_available())


def test_in_place_twins_follow_the_in_place_rules():
    x = mg.tensor([1.0, 4.0, 9.0])
    assert x.sqrt_() is x and x.tolist() == [1.0, 2.0, 3.0]
    x.clamp_(max=2.5).mul_(2)
    assert x.tolist() == [2.0, 4.0, 5.0]
    p = mg.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        p.exp_()
    with mg.no_grad():
        p.exp_()
    assert p.item() == pytest.approx(np.e)


def test_a_zero_d_tensor_formats_as_its_number():
    loss = mg.tensor(0.123456, dtype="float64")
    assert f"{loss:.4f}" == "0.1235" and f"{mg.tensor(2.0):+.2f}" == "+2.00"
    assert f"{mg.tensor([1.0, 2.0])}".startswith("tensor(")
    with pytest.raises(TypeError):
        f"{mg.tensor([1.0, 2.0]):.2f}"


# ------------------------------------------------------------------------- .data
def test_data_is_a_tensor_alias_with_no_history():
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    d = w.data
    assert isinstance(d, mg.Tensor) and not d.requires_grad and d.is_leaf and d.grad_fn is None
    d[0] = 5.0                                                    # writes through: shared memory
    assert w.tolist() == [5.0, 2.0]
    (w * w).sum().backward()
    w.data -= 0.5 * w.grad                                        # micrograd's update
    w.data.add_(-0.5 * w.grad)                                    # pytorch/examples' update
    assert w.tolist() == [-5.0, -2.0] and w.requires_grad and w.is_leaf
    assert w.data.numpy().flags.writeable is False                # .numpy() stays read-only


def test_writes_through_data_are_not_seen_by_the_version_check_as_in_pytorch():
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * w).sum()                                          # saves w
    v = w.version()
    w.data.mul_(10.0)
    assert w.version() == v
    loss.backward()                                               # no error: PyTorch's documented hazard
    assert w.grad.tolist() == [20.0, 40.0]
    with pytest.raises(RuntimeError):                            # the checked way refuses instead
        loss2 = (w * w).sum()
        with mg.no_grad():
            w.mul_(2.0)
        loss2.backward()


def test_setting_data_swaps_values_and_keeps_identity():
    w = nn.Parameter(mg.zeros(2))
    w.data = mg.tensor([3.0, 4.0])
    assert w.tolist() == [3.0, 4.0] and isinstance(w, nn.Parameter) and w.dtype == np.float32
    w.data = mg.zeros(3)  # a leaf takes the new shape, as PyTorch's (torch 2.13: torch.Size([3]), a Parameter)
    assert w.shape == (3,) and isinstance(w, nn.Parameter)
    y = mg.ones(2, requires_grad=True) * 2
    with pytest.raises(ValueError, match="shape"):
        y.data = mg.zeros(3)  # one with a history keeps its node's (PyTorch's backward fails on it later)


# ------------------------------------------------------------------- optimizers
def _optimizer_problem():
    rng = np.random.default_rng(7)
    n = rng.standard_normal
    return n((16, 4)), n((16, 1)), n((1, 4)), n(1)


def _optimizer(name, params):
    return {
        "adadelta": lambda: mg.optim.Adadelta(params, lr=1.0, weight_decay=0.1),
        "adadelta_rho": lambda: mg.optim.Adadelta(params, lr=0.5, rho=0.5, eps=1e-4),
        "lbfgs": lambda: mg.optim.LBFGS(params, lr=0.5, history_size=3, max_iter=5),
        "lbfgs_wolfe": lambda: mg.optim.LBFGS(params, lr=1.0, history_size=3, max_iter=6,
                                              line_search_fn="strong_wolfe"),
    }[name]()


def _run(name, steps, lin=None, opt=None):
    a, b, w0, b0 = _optimizer_problem()
    if lin is None:
        lin = nn.Linear(4, 1, dtype="float64")
        lin.load_state_dict({"weight": w0, "bias": b0})
        opt = _optimizer(name, lin.parameters())
    x, y = mg.tensor(a), mg.tensor(b)
    out = []
    for _ in range(steps):
        def closure():
            opt.zero_grad()
            loss = ((mg.tanh(lin(x)) - y) ** 2).mean()
            loss.backward()
            return loss
        opt.step(closure)
        out.append(np.concatenate([lin.weight.numpy().ravel(), lin.bias.numpy()]))
    return out, lin, opt


@pytest.mark.parametrize("name", ["adadelta", "adadelta_rho", "lbfgs", "lbfgs_wolfe"])
def test_adadelta_and_lbfgs_follow_pytorch_step_for_step(name):
    steps = 6 if name.startswith("adadelta") else 3
    got, _, _ = _run(name, steps)
    for i, g in enumerate(got):
        np.testing.assert_allclose(g, REF[f"optim|{name}|{i}"], rtol=1e-10, atol=1e-12, err_msg=f"step {i}")


@pytest.mark.msgpack
@pytest.mark.parametrize("name", ["adadelta", "lbfgs_wolfe"])
def test_adadelta_and_lbfgs_resume_bit_for_bit_from_a_snapshot(name, tmp_path):
    from minigrad_ckpt.snapshot import Snapshot

    want, _, _ = _run(name, 4)
    _, lin, opt = _run(name, 2)
    path = Snapshot.from_executor(mg.Executor(lin, opt), 2).save(tmp_path / "s.mgsnap")
    fresh = nn.Linear(4, 1, dtype="float64")
    fresh_opt = _optimizer(name, fresh.parameters())
    Snapshot.load(path).restore_into(mg.Executor(fresh, fresh_opt))
    got, _, _ = _run(name, 2, fresh, fresh_opt)
    for g, w in zip(got, want[2:]):
        assert g.tobytes() == w.tobytes()


def test_step_takes_a_closure_on_every_optimizer_and_lbfgs_needs_one():
    lin = nn.Linear(2, 1)
    for make in (mg.optim.SGD, mg.optim.Adam, mg.optim.Adadelta, mg.optim.RMSprop):
        opt = make(lin.parameters(), lr=0.1)
        calls = []

        def closure(opt=opt, calls=calls):
            opt.zero_grad()
            loss = lin(mg.ones(1, 2)).sum()
            loss.backward()
            calls.append(1)
            return loss
        assert isinstance(opt.step(closure), mg.Tensor) and calls == [1]
    with pytest.raises(TypeError, match="closure"):
        mg.optim.LBFGS(lin.parameters()).step()
    with pytest.raises(ValueError, match="parameter groups"):
        mg.optim.LBFGS([{"params": [lin.weight]}, {"params": [lin.bias]}])


# ------------------------------------------------------------ the small things ports hit
def test_saving_a_module_suggests_its_state_dict(tmp_path):
    with pytest.raises(TypeError, match=r"mg.save\(obj.state_dict\(\), path\)"):
        mg.save(nn.Linear(2, 2), tmp_path / "m.mgsnap")


def test_the_demo_says_why_a_sqrt_plan_has_no_prediction():
    from minigrad_ckpt import demo

    config = demo.DemoConfig(checkpoint="sqrt", steps=1, d_model=16, n_layers=2, batch_size=2, block_size=8)
    ckpt = demo._checkpoint_config(config)
    assert ckpt is not None

    class Plan:
        predicted_peak_bytes = None

        def describe(self):
            return "Plan(Sqrt())"

    import minigrad_ckpt.checkpoint as ck

    real = ck.last_plan
    ck.last_plan = lambda blocks: Plan()
    try:
        class Model:
            blocks = [1, 2]

        class Ledger:
            def peak(self, kind):
                return 1 << 20
        report = demo._memory_report(Model(), Ledger(), ckpt)
    finally:
        ck.last_plan = real
    assert "not predicted: the sqrt policy" in report["line"] and "n/a" not in report["line"]


def test_list_state_in_a_snapshot_is_checked_reference_by_reference():
    _, lin, opt = _run("lbfgs_wolfe", 2)
    ex = mg.Executor(lin, opt)
    saved = ex.optimizer_state()
    arrays = {k: v.numpy() for k, v in ex.tensors.items()}
    listed = [k for k in arrays if k.startswith("optimizer.state.") and k.rsplit(".", 1)[1].isdigit()]
    assert listed, "LBFGS's history is stored as list elements"
    state = ex.optimizer_state_dict_from(saved, arrays)["state"][0]
    # ro is a list of 0-d tensors, as PyTorch's LBFGS keeps it (tests/test_optim_lbfgs_state_layout.py)
    assert all(isinstance(t, mg.Tensor) for t in state["old_dirs"]) and state["ro"][0].shape == ()
    missing = dict(arrays)
    del missing[listed[0]]
    with pytest.raises(ValueError, match="does not hold"):
        ex.optimizer_state_dict_from(saved, missing)
    extra = dict(arrays, **{listed[0].rsplit(".", 1)[0] + ".99": arrays[listed[0]]})
    with pytest.raises(ValueError, match="no tensor reference"):
        ex.optimizer_state_dict_from(saved, extra)


@pytest.mark.parametrize("name, args", [("new_zeros", ()), ("new_ones", ()), ("new_empty", ())])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64, mg.int32])
def test_new_tensors_take_size_by_keyword_and_only_integers(name, args, dtype):
    # torch 2.13: x.new_zeros(size=(2, 3)) is a (2, 3) tensor of x's dtype; x.new_zeros(2.5) a TypeError
    # (size= was refused here, and 2.5 read as 2)
    x = mg.ones(1, dtype=dtype, requires_grad=dtype.kind == "f")
    t = getattr(x, name)(size=(2, 3))
    assert (t.shape, t.dtype, t.requires_grad) == ((2, 3), dtype, False)
    assert getattr(x, name)(size=[4]).shape == (4,)
    with pytest.raises(TypeError):
        getattr(x, name)(2.5)
    with pytest.raises(TypeError):
        getattr(x, name)(2, size=(3,))
    assert x.new_full(size=(2,), fill_value=3).tolist() == [3, 3]


def test_type_as_takes_a_tensor_only():
    # torch 2.13: TypeError "type_as(): argument 'other' (position 1) must be Tensor, not int"; it was read
    # as to(3), a GPU's index, and asked for CuPy
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        mg.ones(2).type_as(3)
    assert mg.ones(2).type_as(mg.zeros(1, dtype=mg.int32)).dtype == mg.int32


def test_a_storage_level_name_is_refused_with_the_reason_and_what_to_use():
    # "Deep Learning with PyTorch" ch. 3 calls points.storage() and second_point.storage_offset():
    # a bare "no attribute 'storage'" reads as a gap to fill, not as a deliberate refusal with a way around.
    x = mg.tensor([[4.0, 1.0], [5.0, 3.0]])
    for name in ("storage", "untyped_storage", "storage_offset", "as_strided", "resize_", "is_shared"):
        with pytest.raises(AttributeError, match="one dense NumPy/CuPy array.*stride\\(\\)") as info:
            getattr(x, name)
        assert name in str(info.value)
        assert not hasattr(x, name)
    with pytest.raises(AttributeError, match="^'Tensor' object has no attribute 'no_such_name'$"):
        x.no_such_name  # noqa: B018 -- any other miss reads as Python's own
    assert mg.nn.Parameter(x).__class__.__name__ == "Parameter"
    with pytest.raises(AttributeError, match="^'Parameter' object has no attribute 'no_such_name'$"):
        mg.nn.Parameter(x).no_such_name  # noqa: B018


def test_a_storage_level_function_is_refused_at_the_top_level_with_the_reason():
    # torchdiffeq's adjoint calls torch.as_strided(t, (), ()) (a workaround for a PyTorch bug): run on the
    # engine it read Python's bare "module 'minigrad_ckpt' has no attribute 'as_strided'. Did you mean:
    # 'strided'?" -- a gap to fill, pointing at an unrelated name -- where x.as_strided says why it is absent.
    for name in ("as_strided", "as_strided_", "as_strided_scatter", "as_strided_copy", "resize_as_"):
        with pytest.raises(AttributeError, match="one dense NumPy/CuPy array.*stride\\(\\)") as info:
            getattr(mg, name)
        assert f"'{name}'" in str(info.value)
        assert not hasattr(mg, name)
    with pytest.raises(AttributeError, match="^module 'minigrad_ckpt' has no attribute 'no_such_name'$") as info:
        mg.no_such_name  # noqa: B018 -- any other miss reads as Python's own, its suggestion included
    assert (info.value.name, info.value.obj) == ("no_such_name", mg)


def test_the_c_binding_is_refused_naming_the_linalg_error_ported_code_catches():
    # torchdiffeq's implicit solvers (rk_common.py) write `except torch._C._LinAlgError: break` around
    # linalg.solve of their Broyden Jacobian: ported, the clause is read only when a solve fails, and then
    # raised Python's bare "no attribute '_C'" over the LinAlgError.  The message names the public class.
    with pytest.raises(AttributeError, match=r"^module 'minigrad_ckpt' has no attribute '_C': .*"
                                             r"torch\._C\._LinAlgError.*is mg\.linalg\.LinAlgError$"):
        mg._C  # noqa: B018
    assert not hasattr(mg, "_C")
    try:  # the class it names is what a singular solve raises, as torch._C._LinAlgError is torch's
        mg.linalg.solve(mg.zeros(2, 2), mg.ones(2))
    except mg.linalg.LinAlgError as caught:
        assert "singular" in str(caught)


def test_a_sparse_layout_name_is_refused_with_the_reason_and_the_dense_way():
    # Whisper's model.py keeps its alignment heads as all_heads.to_sparse() and reads them back with
    # .indices().T: run on the engine, Whisper() failed as it was built with Python's "no attribute
    # 'to_sparse'. Did you mean: 'is_sparse'?" -- a gap to fill, pointing at an unrelated name -- where the
    # docs list these names as a decision (every tensor is dense).  Each now says so, with the dense way.
    mask = mg.tensor([[False, True, False], [True, False, True]])
    for name in ("to_sparse", "to_sparse_coo", "to_sparse_csr", "indices", "values", "coalesce",
                 "is_coalesced", "sparse_dim", "crow_indices", "sparse_mask"):
        with pytest.raises(AttributeError, match=r"no sparse layout.*nonzero\(\)") as info:
            getattr(mask, name)
        assert f"'{name}'" in str(info.value)
        assert not hasattr(mask, name) and not hasattr(mg.Tensor, name)
    for name in ("sparse_coo_tensor", "sparse_csr_tensor", "sparse_coo", "sparse_csr", "hspmm", "smm"):
        with pytest.raises(AttributeError, match=r"no sparse layout.*nonzero\(\)") as info:
            getattr(mg, name)
        assert f"'{name}'" in str(info.value)
        assert not hasattr(mg, name)
    # the dense way the message names gives what PyTorch's sparse tensor does: to_sparse().indices() of a
    # bool mask is its nonzero().T (row-major, as a coalesced tensor's), values() the entries there
    assert mask.nonzero().T.tolist() == [[0, 1, 1], [1, 0, 2]]
    assert mask[mask != 0].tolist() == [True, True, True]


def test_a_linear_algebra_function_removed_from_pytorch_is_refused_with_its_replacement():
    # ACKTR's K-FAC optimizer (pytorch-a2c-ppo-acktr-gail) calls torch.symeig(m_aa, eigenvectors=True):
    # PyTorch 2.13 raises, naming linalg.eigh(A, UPLO='U') -- symeig read the upper triangle, eigh reads the
    # lower -- where the engine's bare "no attribute 'symeig'" left the port to guess the replacement.
    a = mg.tensor([[2.0, 1.0], [1.0, 3.0]])
    expected = {"symeig": "linalg.eigh\\(A, UPLO='U'\\)", "eig": "linalg.eig\\(A\\)",
                "lstsq": "linalg.lstsq\\(A, B\\)", "solve": "linalg.solve\\(A, B\\)"}
    for name, replacement in expected.items():
        for owner in (mg, a):
            with pytest.raises(AttributeError, match=f"'{name}'.*removed from PyTorch.*{replacement}"):
                getattr(owner, name)
            assert not hasattr(owner, name)
    with pytest.raises(AttributeError, match="removed from PyTorch.*linalg.matrix_rank\\(A\\)"):
        mg.matrix_rank  # noqa: B018 -- PyTorch's Tensor never had it: only the module answers
    with pytest.raises(AttributeError, match="^'Tensor' object has no attribute 'matrix_rank'$"):
        a.matrix_rank  # noqa: B018
    values, vectors = mg.linalg.eigh(a, UPLO="U")  # the replacement the message names runs
    assert np.allclose(vectors.numpy() @ np.diag(values.numpy()) @ vectors.numpy().T, a.numpy())


def test_the_lstsq_replacement_names_the_rows_the_old_solution_had():
    # torch.lstsq(B, A).solution of a tall (m, n) A had m rows -- the solution's n, then residual terms --
    # and linalg.lstsq(A, B).solution has n: PyTorch's own message slices, [:A.size(1)]; the engine's said the
    # two were the same
    replacement = re.escape("linalg.lstsq(A, B).solution for lstsq(B, A).solution[:A.size(1)]")
    for owner in (mg, mg.ones(3, 2)):
        with pytest.raises(AttributeError, match=replacement):
            owner.lstsq  # noqa: B018


def test_to_dense_of_a_dense_tensor_is_the_tensor_itself_as_pytorchs():
    # PyTorch's x.to_dense() of a strided tensor returns x (the same object, its graph kept); given a dtype,
    # the cast. Refused with the sparse names, it stopped code that densifies whatever it is handed.
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    assert x.to_dense() is x and x.to_dense(mg.float32) is x
    y = x.to_dense(mg.float64)
    assert y.dtype == mg.float64 and y.tolist() == [1.0, 2.0]
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
