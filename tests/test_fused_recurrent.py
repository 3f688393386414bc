"""The recurrent steps' fused gate ops (ops/recurrent.py) against the steps written op by op.

``LSTMCell``, ``LSTM`` (and so pytorch/examples' ``time_sequence_prediction``)
compute ``c' = sigmoid(f) c + sigmoid(i) tanh(g)`` and ``h' = sigmoid(o)
tanh(c')`` as two recorded ops and a slice; ``GRUCell`` and ``GRU`` their step as one.  Here
every seam is compared with the same step built from ``sigmoid``, ``tanh``,
slices and products: values, gradients, second derivatives, forward mode,
float32, checkpointing, and the op count.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from resume_steps import uninterrupted_and_resumed

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.func import jvp
from minigrad_ckpt.tape import Node


def _unfused_cell(cell: nn.LSTMCell, x, state):
    """The step as thirteen ops (how the cells were written before the fused ops)."""
    h, c = state
    g = nn.functional.linear(x, cell.weight_ih, cell.bias_ih) + nn.functional.linear(h, cell.weight_hh, cell.bias_hh)
    H = cell.hidden_size
    i, f = mg.sigmoid(g[..., :H]), mg.sigmoid(g[..., H:2 * H])
    cand, o = mg.tanh(g[..., 2 * H:3 * H]), mg.sigmoid(g[..., 3 * H:])
    c = f * c + i * cand
    return o * mg.tanh(c), c


def _unfused_gru(cell: nn.GRUCell, x, h):
    xg = nn.functional.linear(x, cell.weight_ih, cell.bias_ih)
    hg = nn.functional.linear(h, cell.weight_hh, cell.bias_hh)
    H = cell.hidden_size
    r = mg.sigmoid(xg[..., :H] + hg[..., :H])
    z = mg.sigmoid(xg[..., H:2 * H] + hg[..., H:2 * H])
    n = mg.tanh(xg[..., 2 * H:] + r * hg[..., 2 * H:])
    return (1 - z) * n + z * h


def _gru_run(step, xs, h):
    for x in xs:
        h = step(x, h)
    return (h * mg.tanh(h)).sum()


def _setup(seed: int, n: int, d: int, hidden: int, dtype: str = "float64", kind: type = nn.LSTMCell):
    mg.manual_seed(seed)
    cell = kind(d, hidden).to(dtype)
    rng = np.random.default_rng(seed)
    xs = [mg.tensor(rng.standard_normal((n, d)).astype(dtype), requires_grad=True) for _ in range(3)]
    h0 = mg.tensor(rng.standard_normal((n, hidden)).astype(dtype), requires_grad=True)
    c0 = mg.tensor(rng.standard_normal((n, hidden)).astype(dtype), requires_grad=True)
    return cell, xs, h0, c0


def _run(step, xs, h, c):
    for x in xs:
        h, c = step(x, (h, c))
    return (h * h).sum() + (c * mg.tanh(c)).sum()


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 4), d=st.integers(1, 3), hidden=st.integers(1, 4))
def test_fused_cell_matches_the_op_by_op_step(seed, n, d, hidden):
    cell, xs, h0, c0 = _setup(seed, n, d, hidden)
    leaves = [*xs, h0, c0, *cell.parameters()]
    fused = _run(cell, xs, h0, c0)
    plain = _run(lambda x, s: _unfused_cell(cell, x, s), xs, h0, c0)
    np.testing.assert_allclose(fused.item(), plain.item(), rtol=1e-12)
    g_fused = mg.grad(fused, leaves, create_graph=True)
    g_plain = mg.grad(plain, leaves, create_graph=True)
    for a, b in zip(g_fused, g_plain):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    # second derivatives: the fused ops' backward is made of differentiable ops
    s_fused = sum((g * g).sum() for g in g_fused)
    s_plain = sum((g * g).sum() for g in g_plain)
    for a, b in zip(mg.grad(s_fused, leaves[:2]), mg.grad(s_plain, leaves[:2])):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(1, 4), d=st.integers(1, 3), hidden=st.integers(1, 4))
def test_fused_gru_matches_the_op_by_op_step(seed, n, d, hidden):
    cell, xs, h0, _ = _setup(seed, n, d, hidden, kind=nn.GRUCell)
    leaves = [*xs, h0, *cell.parameters()]
    fused = _gru_run(cell, xs, h0)
    plain = _gru_run(lambda x, h: _unfused_gru(cell, x, h), xs, h0)
    np.testing.assert_allclose(fused.item(), plain.item(), rtol=1e-12)
    g_fused = mg.grad(fused, leaves, create_graph=True)
    g_plain = mg.grad(plain, leaves, create_graph=True)
    for a, b in zip(g_fused, g_plain):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    s_fused = sum((g * g).sum() for g in g_fused)
    s_plain = sum((g * g).sum() for g in g_plain)
    for a, b in zip(mg.grad(s_fused, leaves[:2]), mg.grad(s_plain, leaves[:2])):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)
    rng = np.random.default_rng(seed)
    primals = (xs[0].detach(), h0.detach())  # (tuples, as torch.func.jvp insists)
    tangents = tuple(mg.tensor(rng.standard_normal(t.shape)) for t in primals)
    (v1, t1) = jvp(lambda x, h: _gru_run(cell, [x, 2 * x], h), primals, tangents)
    (v2, t2) = jvp(lambda x, h: _gru_run(lambda xx, hh: _unfused_gru(cell, xx, hh), [x, 2 * x], h), primals, tangents)
    np.testing.assert_allclose(t1.item(), t2.item(), rtol=1e-10, atol=1e-12)


def test_forward_mode_through_the_fused_cell_matches_the_op_by_op_step():
    cell, xs, h0, c0 = _setup(3, 2, 3, 4)
    rng = np.random.default_rng(7)
    tangents = tuple(mg.tensor(rng.standard_normal(t.shape)) for t in (xs[0], h0, c0))

    def fused(x, h, c):
        return _run(cell, [x, x * 0.5], h, c)

    def plain(x, h, c):
        return _run(lambda xx, s: _unfused_cell(cell, xx, s), [x, x * 0.5], h, c)

    primals = (xs[0].detach(), h0.detach(), c0.detach())
    (v1, t1), (v2, t2) = jvp(fused, primals, tangents), jvp(plain, primals, tangents)
    np.testing.assert_allclose(v1.item(), v2.item(), rtol=1e-12)
    np.testing.assert_allclose(t1.item(), t2.item(), rtol=1e-10)


def test_fused_cell_in_float32_and_inside_a_checkpoint():
    cell, xs, h0, c0 = _setup(5, 3, 2, 3, "float32")
    plain = _run(lambda x, s: _unfused_cell(cell, x, s), xs, h0, c0)
    inside = checkpoint(lambda a, b: _run(cell, xs, a, b), h0, c0)
    assert inside.dtype == mg.float32
    np.testing.assert_allclose(inside.item(), plain.item(), rtol=1e-5)
    g_in = mg.grad(inside, [h0, c0, cell.weight_hh])
    g_plain = mg.grad(plain, [h0, c0, cell.weight_hh])
    for a, b in zip(g_in, g_plain):
        assert a.dtype == mg.float32
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("layer", ["lstm_cell", "lstm", "gru_cell", "gru"])
def test_a_recurrent_step_records_its_fused_gate_ops(layer):
    """The point of the fusion: an LSTM layer's step records its hidden projection and two gate ops
    (the cell state is a slice of the first one's record), an ``LSTMCell`` step one op for both
    projections and the gates and the output op; a GRU step the two linears and one."""
    mg.manual_seed(0)
    x = mg.tensor(np.ones((2, 3)), requires_grad=True)
    make = {"lstm_cell": nn.LSTMCell, "lstm": nn.LSTM, "gru_cell": nn.GRUCell, "gru": nn.GRU}[layer]
    if layer.endswith("cell"):
        out = make(3, 4).double()(x)
        out = out[0] if isinstance(out, tuple) else out
    else:
        out = make(3, 4).double()(mg.unsqueeze(x, 0))[0]
    names, stack, seen = [], [out._node], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(type(node.op).__name__)
        stack.extend(e for e in node.inputs if isinstance(e, Node))
    if layer == "lstm_cell":
        assert [names.count(op) for op in ("LSTMCellStep", "LSTMStep", "LSTMStepOutput", "Linear", "Add")] == \
            [1, 0, 1, 0, 0]
    elif layer == "lstm":
        assert [names.count(op) for op in ("LSTMStep", "LSTMStepOutput", "Add")] == [1, 1, 0]
    else:
        assert names.count("GRUCell") == 1
    assert "Sigmoid" not in names and "Tanh" not in names


@pytest.mark.parametrize("write", ["h", "c", "both"])
@pytest.mark.parametrize("inside_checkpoint", [False, True])
def test_in_place_writes_into_a_steps_outputs_match_the_op_by_op_step(write, inside_checkpoint):
    """The fused step returns ``c'`` as a slice of its record and ``h'`` as an output no backward
    reads: writing into either in place before the next step reads it gives the op-by-op step's
    gradients (PyTorch's CPU cell allows both writes too), also inside a checkpoint."""
    cell, xs, h0, c0 = _setup(11, 3, 2, 4)

    def two_steps(step, x, h, c):
        h1, c1 = step(x, (h, c))
        if write in ("h", "both"):
            h1.mul_(2)
        if write in ("c", "both"):
            c1.add_(0.5)
        h2, c2 = step(x, (h1, c1))
        return (h2 * h2).sum() + (c2 * mg.tanh(c2)).sum() + (h1 * c1).sum()

    def run(step):
        if inside_checkpoint:
            return checkpoint(lambda x, h, c: two_steps(step, x, h, c), xs[0], h0, c0)
        return two_steps(step, xs[0], h0, c0)

    leaves = [xs[0], h0, c0, *cell.parameters()]
    fused, plain = run(cell), run(lambda x, s: _unfused_cell(cell, x, s))
    np.testing.assert_allclose(fused.item(), plain.item(), rtol=1e-12)
    for a, b in zip(mg.grad(fused, leaves), mg.grad(plain, leaves)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


def test_the_cell_state_is_a_slice_of_the_step_record_and_survives_a_snapshot(tmp_path):
    """``c'`` shares the record's memory; saving the cell's state mid-sequence and reading it back
    gives the same values and the same next step."""
    cell, xs, h0, c0 = _setup(12, 2, 2, 3)
    h1, c1 = cell(xs[0], (h0, c0))
    mg.save({"h": h1.detach(), "c": c1.detach()}, tmp_path / "state.mg")
    back = mg.load(tmp_path / "state.mg")
    np.testing.assert_array_equal(back["c"].numpy(), c1.numpy())
    h2a, c2a = cell(xs[1], (h1.detach(), c1.detach()))
    h2b, c2b = cell(xs[1], (back["h"], back["c"]))
    np.testing.assert_array_equal(h2a.numpy(), h2b.numpy())
    np.testing.assert_array_equal(c2a.numpy(), c2b.numpy())


def test_two_fused_steps_under_vmap_jacrev_jacfwd_and_hessian_match_the_op_by_op_step():
    """The record and its slice under the transforms: per-example values, both Jacobians and the
    Hessian of two steps of a cell closed over by the function, against the op-by-op step."""
    from minigrad_ckpt import func

    cell, _, _, _ = _setup(13, 2, 3, 4)
    xs = mg.tensor(np.random.default_rng(13).standard_normal((3, 2, 3)))

    def two_steps(step):
        def f(x):
            h, c = step(x, None)
            h2, c2 = step(x, (h, c))
            return (h2 * c2).sum()
        return f

    def plain_step(x, state):
        if state is None:
            zero = mg.zeros((x.shape[0], cell.hidden_size), dtype=x.dtype)
            state = (zero, zero)
        return _unfused_cell(cell, x, state)

    fused, plain = two_steps(lambda x, s: cell(x, s)), two_steps(plain_step)
    np.testing.assert_allclose(func.vmap(fused)(xs).numpy(), func.vmap(plain)(xs).numpy(), rtol=1e-12)
    for transform in (func.jacrev, func.jacfwd, func.hessian):
        np.testing.assert_allclose(transform(fused)(xs[0]).numpy(), transform(plain)(xs[0]).numpy(),
                                   rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("device,dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"),
                                          ("strict-f32", "float32")])
@pytest.mark.parametrize("lead", [(), (5,), (2, 3)])
def test_the_step_record_keeps_each_block_as_one_array_with_the_kernels_bits(device, dtype, lead):
    """The record is (6, ..., H), so each of its blocks (a gate, c', tanh(c')) is one contiguous array
    that every pass over it reads as one run of memory -- with the bits of the kernels applied to the
    column blocks of ``xg + hg`` one by one (the layout changes the time, not a value)."""
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)
    from minigrad_ckpt.ops.recurrent import LSTMStep

    xp, cpu = mg.tensor([1.0], device=device, dtype=dtype).device.xp, mg.tensor([1.0]).device.xp
    H, rng = 4, np.random.default_rng(len(lead))
    xg, hg = (rng.standard_normal(lead + (4 * H,)).astype(dtype) * 3 for _ in range(2))
    c = rng.standard_normal(lead + (H,)).astype(dtype)
    record = xp.to_host(LSTMStep().forward(xp, xp.asarray(xg), xp.asarray(hg), xp.asarray(c)))
    assert record.shape == (6,) + lead + (H,) and record.dtype == np.dtype(dtype)
    assert all(record[k].flags.c_contiguous for k in range(6))
    pre = xg + hg
    a_i, a_f, a_o = (cpu.sigmoid(pre[..., k * H:(k + 1) * H]) for k in (0, 1, 3))
    a_g = np.tanh(pre[..., 2 * H:3 * H])
    c_new = a_f * c + a_i * a_g
    for got, want in zip(record, [a_i, a_f, a_g, a_o, c_new, np.tanh(c_new)]):
        np.testing.assert_array_equal(got, want)


def test_the_cells_states_are_contiguous_arrays():
    """``c'`` is ``record[4]`` (a view of one contiguous block) and ``h'`` a new array: the next
    step's products read them as one run of memory each."""
    cell, xs, h0, c0 = _setup(0, 5, 3, 4)
    h, c = cell(xs[0], (h0, c0))
    assert h.numpy().flags.c_contiguous and c.numpy().flags.c_contiguous
    assert c.numpy().base is not None  # a view of the record, not a copy


@pytest.mark.parametrize("shapes", [((3, 8), (8,), (2, 1, 2)), ((8,), (8,), (5, 2)), ((5, 8), (5, 8), (2,)),
                                    ((1, 8), (4, 1, 8), (3, 2))])
def test_a_step_whose_state_and_projections_broadcast(shapes):
    """The op on operands whose leading axes broadcast (the layers pass equal ones): the record has the
    broadcast shape, values as the plain formula, derivatives in both modes against finite differences."""
    from minigrad_ckpt.ops.recurrent import LSTMStep
    from minigrad_ckpt.tape import apply
    from minigrad_ckpt.testing import gradcheck

    rng = np.random.default_rng(len(shapes[2]))
    xg, hg, c = (rng.standard_normal(s) for s in shapes)
    xp = mg.tensor([1.0]).device.xp
    record = LSTMStep().forward(xp, xg, hg, c)
    want = LSTMStep().reference(np, xg, hg, c)
    lead = np.broadcast_shapes(*(s[:-1] for s in shapes))
    assert record.shape == want.shape == (6,) + lead + (2,)
    np.testing.assert_allclose(record, want, rtol=1e-14, atol=1e-15)
    leaves = [mg.tensor(a, requires_grad=True) for a in (xg, hg, c)]
    assert gradcheck(lambda a, b, s: apply(LSTMStep(), a, b, s), leaves)


@pytest.mark.parametrize("gates_dtype,state_dtype", [("float32", "float64"), ("float64", "float32"),
                                                     ("float32", "float32")])
def test_gates_are_computed_in_the_projections_dtype_beside_a_state_of_another(gates_dtype, state_dtype):
    """As op by op (and as the op's reference): the gates in the projections' dtype, widened only where
    they meet a wider state -- not computed in the state's dtype from the projections' sum."""
    from minigrad_ckpt.ops.recurrent import LSTMStep

    xp, H, rng = mg.tensor([1.0]).device.xp, 3, np.random.default_rng(5)
    xg, hg = (rng.standard_normal((4, 4 * H)).astype(gates_dtype) * 3 for _ in range(2))
    c = rng.standard_normal((4, H)).astype(state_dtype)
    record = LSTMStep().forward(xp, xg, hg, c)
    pre = xg + hg
    a_i, a_f, a_o = (xp.sigmoid(pre[:, k * H:(k + 1) * H]) for k in (0, 1, 3))
    a_g = np.tanh(pre[:, 2 * H:3 * H])
    c_new = a_f * c + a_i * a_g
    assert record.dtype == np.result_type(gates_dtype, state_dtype)
    for got, want in zip(record, [a_i, a_f, a_g, a_o, c_new, np.tanh(c_new)]):
        np.testing.assert_array_equal(got, want)


def _three_node_cell(cell: nn.LSTMCell, x, state):
    """The cell's step as it was recorded before ``LSTMCellStep``: two ``Linear`` nodes and ``LSTMStep``."""
    from minigrad_ckpt.nn.recurrent import _lstm_outputs
    from minigrad_ckpt.ops.recurrent import LSTMStep
    from minigrad_ckpt.tape import apply

    h, c = state
    xg = nn.functional.linear(x, cell.weight_ih, cell.bias_ih)
    hg = nn.functional.linear(h, cell.weight_hh, cell.bias_hh)
    return _lstm_outputs(apply(LSTMStep(), xg, hg, c))


@pytest.mark.parametrize("device,dtype", [("cpu", "float64"), ("cpu", "float32"), ("strict", "float64"),
                                          ("strict-f32", "float32")])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("inputs", [1, 3])
def test_the_one_node_cell_step_has_the_three_nodes_bits(device, dtype, bias, inputs):
    """``LSTMCellStep`` computes the projections as ``Linear`` does and returns the same gradients,
    the two biases' from one sum: three steps of a sequence (one input feature takes the product's
    broadcast path) give bit for bit the values and every gradient of the three-node step -- with
    ``.backward()`` accumulating into the leaves, a frozen weight, an input without grad, inside a
    checkpoint, and after a snapshot of the cell's weights and a reload."""
    import minigrad_ckpt.testing.strict  # noqa: F401  (registers the strict devices)

    mg.manual_seed(21)
    cell = nn.LSTMCell(inputs, 5, bias=bias).to(dtype).to(device)
    rng = np.random.default_rng(inputs)
    xs = [mg.tensor(rng.standard_normal((4, inputs)).astype(dtype), device=device) for _ in range(3)]
    h0 = mg.tensor(rng.standard_normal((4, 5)).astype(dtype), device=device, requires_grad=True)
    c0 = mg.tensor(rng.standard_normal((4, 5)).astype(dtype), device=device, requires_grad=True)
    xs[1].requires_grad_()
    cell.weight_ih.requires_grad_(inputs == 1)  # (frozen with 3 inputs: its gradient is not asked for)

    def loss(step, wrap=lambda f, *a: f(*a)):
        return wrap(lambda h, c: _run(step, xs, h, c), h0, c0)

    leaves = [xs[1], h0, c0, *[p for p in cell.parameters() if p.requires_grad]]
    results = []
    for step in (cell, lambda x, s: _three_node_cell(cell, x, s)):
        for wrap in (lambda f, *a: f(*a), checkpoint):
            for p in leaves:
                p.grad = None
            value = loss(step, wrap)
            value.backward()
            results.append([value.cpu().numpy()] + [p.grad.cpu().numpy() for p in leaves])
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert a.dtype == np.dtype(dtype)
            np.testing.assert_array_equal(a, b)
    assert cell.weight_ih.grad is None or inputs == 1


def test_the_one_node_cell_step_refuses_a_saved_input_written_in_place():
    """It saves ``x``, ``h``, ``c`` and both weights: an unrecorded write into ``h`` or a weight
    after the step (under ``no_grad``, as an optimizer's), before backward, is refused as for any
    saved value (the three-node step saved them in its Linears); a recorded write is a new version
    and the step's gradient the one before it."""
    for target in ("h", "weight_hh"):
        cell, xs, h0, c0 = _setup(4, 2, 3, 4)
        h = h0 * 1.0
        h1, c1 = cell(xs[0], (h, c0))
        with mg.no_grad():
            (h if target == "h" else cell.weight_hh).add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            (h1 * c1).sum().backward()
    cell, xs, h0, c0 = _setup(4, 2, 3, 4)
    h = h0 * 1.0
    h1, c1 = cell(xs[0], (h, c0))
    h.add_(1.0)
    (g_written,) = mg.grad((h1 * c1).sum(), [h0])
    cell, xs, h0, c0 = _setup(4, 2, 3, 4)
    h1, c1 = cell(xs[0], (h0 * 1.0, c0))
    (g_plain,) = mg.grad((h1 * c1).sum(), [h0])
    np.testing.assert_array_equal(g_written.numpy(), g_plain.numpy())


def test_the_one_node_cell_step_refuses_a_hidden_weight_of_another_dtype():
    # as the hidden projection's linear did (torch: "self and mat2 must have the same dtype")
    cell = nn.LSTMCell(2, 4, dtype="float64")
    cell.weight_hh = nn.Parameter(mg.tensor(cell.weight_hh.numpy().astype("float32")))
    with pytest.raises(RuntimeError, match="got float64 input, but its parameters are float32"):
        cell(mg.randn(3, 2, dtype="float64"), None)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_training_through_the_one_node_cell_resumes_bitwise_from_a_snapshot(tmp_path, dtype):
    """Snapshot and resume across ``LSTMCellStep``: two cells over five steps, trained with Adam for
    four steps, equal bit for bit two steps, the model and optimizer state saved and loaded into new
    objects, and two more."""

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.first, self.second, self.head = nn.LSTMCell(1, 4), nn.LSTMCell(4, 4), nn.Linear(4, 1)

        def forward(self, x):
            s1 = s2 = None
            for x_t in mg.split(x, x.shape[1], axis=1):
                s1 = self.first(x_t, s1)
                s2 = self.second(s1[0], s2)
            return self.head(s2[0])

    rng = np.random.default_rng(31)
    batches = [(mg.tensor(rng.standard_normal((3, 5)).astype(dtype)),
                mg.tensor(rng.standard_normal((3, 1)).astype(dtype))) for _ in range(4)]

    def fresh():
        mg.manual_seed(8)
        net = Net().to(dtype)
        return net, mg.optim.Adam(net.parameters(), lr=0.01)

    net, second = uninterrupted_and_resumed(fresh, batches, tmp_path / "run.mg")
    for (name, a), (_, b) in zip(net.state_dict().items(), second.state_dict().items()):
        assert a.dtype == np.dtype(dtype), name
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)
