"""A node several ops read sums its gradients into the first one's array when nothing else can see that
array (``backward._sum_into``): bitwise the sum a new array would hold, never a write into memory a hook,
a view, another gradient, a saved value or ``.grad`` holds -- on the CPU, on the strict device, under
checkpointing and through an LSTM."""

import sys

import numpy as np
import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.testing.strict  # noqa: F401  (registers the "strict" devices)
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn

B = sys.modules["minigrad_ckpt.backward"]


@pytest.fixture
def in_place_sums(monkeypatch):
    """Counts the sums written in place (``_writeable`` is asked only once the counts said sole)."""
    hits = [0]
    real = B._writeable

    def counting(a):
        hits[0] += 1
        return real(a)
    monkeypatch.setattr(B, "_writeable", counting)
    return hits


def _program(x):
    y = x * 2
    return (y.exp() + y.sin() + y * y + y.reshape(-1).sum()).sum()


def _grad(fn, x0, device="cpu", sole=True, monkeypatch=None):
    if not sole:
        monkeypatch.setattr(B, "_SOLE_PENDING_COUNT", None)
    x = mg.tensor(x0, device=device, requires_grad=True)
    fn(x).backward()
    if not sole:
        monkeypatch.undo()
    return x.grad.cpu().numpy()


def test_the_interpreter_lets_counting_tell():
    assert B._SOLE_PENDING_COUNT is not None


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_sums_in_place_are_bitwise_the_new_arrays_sums(device, in_place_sums, monkeypatch):
    x0 = np.random.default_rng(0).standard_normal((6, 7))
    got = _grad(_program, x0, device)
    assert in_place_sums[0] >= 3
    want = _grad(_program, x0, device, sole=False, monkeypatch=monkeypatch)
    np.testing.assert_array_equal(got.view(np.uint64), want.view(np.uint64))


# In each program below ``y``'s other reader is recorded first, so its gradient arrives last (the pass goes
# from the newest node back) and would be summed into the array that arrived first -- the one that is seen
# elsewhere.

def test_a_gradient_a_hook_kept_is_never_written(in_place_sums):
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = x * 3
    v = y * 7
    u = y + 1  # Add sends u's gradient array itself on to y
    kept = []
    u.register_hook(lambda g: kept.append(g))
    loss = (u * 5).sum() + v.sum()
    loss.backward()
    np.testing.assert_array_equal(kept[0].numpy(), np.full((2, 3), 5.0))
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 36.0))


def test_a_gradient_that_is_also_a_leafs_grad_is_never_written(in_place_sums):
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    w = mg.tensor(np.ones((2, 3)), requires_grad=True)
    y = x * 2
    v = y * 3
    s = y + w  # the same array goes on to y and to the leaf w
    (s * 5 + v).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 3), 5.0))
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 16.0))


def test_a_leafs_partial_sum_another_input_still_waits_for_is_never_written(in_place_sums):
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    w = mg.tensor(np.ones((2, 3)), requires_grad=True)
    y = x * 2
    v = w * 3  # recorded before s: its gradient reaches w after s's, while y still waits for s's array
    s = y + w
    (s * 5 + v).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 3), 8.0))
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 10.0))


def test_a_gradient_a_view_still_reads_is_never_written(in_place_sums):
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    n = x.T * 3  # recorded before y's readers: its node runs after the sum into y's gradient
    y = x * 2
    v = y * 5
    s = y + n.T  # one array goes to y and to the transpose, which sends a view of it on to n
    (s * 4 + v).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3), 2 * (4 + 5) + 3 * 4.0))


def test_retained_graphs_and_second_passes_agree(in_place_sums):
    x = mg.tensor(np.linspace(-1, 1, 8), requires_grad=True)
    y = x.tanh()
    loss = (y * y + y.exp() + y).sum()
    loss.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    x.grad = None
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), first)
    (g,) = mg.grad((x.tanh() ** 2 + x.tanh()).sum(), [x], create_graph=True)
    (gg,) = mg.grad(g.sum(), [x])
    t = np.tanh(x.numpy())
    np.testing.assert_allclose(gg.numpy(), (1 - t * t) * (2 - 6 * t * t) - 2 * t * (1 - t * t), rtol=1e-12)


def test_checkpointed_lstm_gradients_equal_the_plain_ones_bitwise():
    rng = np.random.default_rng(3)
    xs = rng.standard_normal((5, 4, 3))

    def run(use_checkpoint):
        mg.manual_seed(0)
        cell = nn.LSTMCell(3, 6).double()
        h = c = mg.zeros((4, 6), dtype="float64")
        x = mg.tensor(xs)

        def step(x_t, h, c):
            h, c = cell(x_t, (h, c))
            return h, c
        for t in range(5):
            h, c = ck.checkpoint(step, x[t], h, c) if use_checkpoint else step(x[t], h, c)
        (h.sum() + (c * c).sum()).backward()
        return [p.grad.numpy() for p in cell.parameters()]
    for a, b in zip(run(False), run(True)):
        np.testing.assert_array_equal(a.view(np.uint64), b.view(np.uint64))


# ----------------------------------------------------- a slice's gradient added where its input's already is
@pytest.fixture
def zero_arrays(monkeypatch):
    """Counts the zero arrays of an input's shape a slice's backward builds (``xp.index_add``)."""
    from minigrad_ckpt import backend
    calls = [0]
    real = backend.ArrayNamespace.index_add

    def counting(self, *args, **kwargs):
        calls[0] += 1
        return real(self, *args, **kwargs)
    monkeypatch.setattr(backend.ArrayNamespace, "index_add", counting)
    return calls


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("through", ["leaf", "node"])
def test_unbinding_a_sequence_builds_one_gradient_not_one_a_step(device, through, zero_arrays):
    x0 = np.random.default_rng(4).standard_normal((3, 50, 4))
    x = mg.tensor(x0, device=device, requires_grad=True)
    src = x if through == "leaf" else x * 1.0
    steps = src.unbind(1)
    loss = sum((p * float(t + 1)).sum() for t, p in enumerate(steps))
    zero_arrays[0] = 0
    loss.backward()
    assert zero_arrays[0] <= 2  # 50 before: one zero array of x's shape a step, and 49 sums of them
    want = np.broadcast_to(np.arange(1.0, 51.0)[None, :, None], x0.shape)
    np.testing.assert_array_equal(x.grad.cpu().numpy(), want)


@pytest.mark.parametrize("through", ["leaf", "node"])
def test_overlapping_slices_and_chunks_sum_as_before(through, monkeypatch):
    x0 = np.random.default_rng(5).standard_normal((6, 8))

    def grad_of_slices():
        x = mg.tensor(x0, requires_grad=True)
        src = x if through == "leaf" else x.sin()
        parts = [src[1:4], src[0:3], src[2:], src[:, ::3], src[-1], *src.chunk(4, 1)]
        sum((p.exp() * (k + 1)).sum() for k, p in enumerate(parts)).backward()
        return x.grad.numpy()
    got = grad_of_slices()
    monkeypatch.setattr(B, "_SOLE_PENDING_COUNT", None)
    want = grad_of_slices()
    np.testing.assert_array_equal(got, want)


def test_a_negative_zero_a_later_slice_does_not_reach_stays_negative_as_in_pytorch():
    # c's gradient arrives first (the pass goes from the newest node back) and holds -0.0; the zeros
    # added around b's and a's pieces turned it into 0.0. PyTorch's unbind backward stacks the pieces:
    # torch 2.13 gives [[2., 3., -0.]] * 2 here.
    x = mg.tensor(np.ones((2, 3)), requires_grad=True)
    a, b, c = x.unbind(1)
    (a * 2.0 + b * 3.0 + c * -0.0).sum().backward()
    got = x.grad.numpy()
    np.testing.assert_array_equal(got, [[2.0, 3.0, 0.0]] * 2)
    assert np.signbit(got[:, 2]).all()


def test_a_slice_of_a_value_whose_gradient_is_seen_elsewhere_is_not_written(zero_arrays):
    x = mg.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    y = x * 2
    z = x * 3
    head = y[:1]  # recorded before s: its gradient arrives while s's one array waits at y and at z
    s = y + z
    ((s * 5).sum() + head.sum() * 7).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[39.0] * 4, [25.0] * 4, [25.0] * 4])


@pytest.mark.parametrize("through", ["leaf", "node"])
def test_backward_steps_show_what_a_slice_sends_and_its_leaf_receives(through):
    # mg.backward_steps shows each node's grad_inputs and each leaf's share (BackwardStep): a slice whose
    # gradient went into its input's array in place sent nothing, as far as its step could tell -- the
    # step read "GetItem sends [None]" and listed no leaf gradient, where the slice sends [[3, 3, 0]] * 2
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    src = x if through == "leaf" else x * 1.0
    loss = (src[:, 0:2] * 3.0).sum() + (src * 2.0).sum()  # src's other reader is newer: it arrives first
    (step,) = [s for s in mg.backward_steps(loss) if s.op == "GetItem"]  # (the steps before it: not kept)
    want = [[3.0, 3.0, 0.0]] * 2
    np.testing.assert_array_equal(step.grad_inputs[0].numpy(), want)
    if through == "leaf":
        ((leaf, share),) = step.accumulated
        assert leaf is x
        np.testing.assert_array_equal(share.numpy(), want)
    np.testing.assert_array_equal(x.grad.numpy(), [[5.0, 5.0, 2.0]] * 2)


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_backward_with_create_graph_sums_tensors_into_new_ones(device, monkeypatch):
    # backward(create_graph=True) (no mg.grad targets: the pass is not watched) sums Tensors, recorded: an
    # in-place add would be an op on a tensor of the graph (and e10ecc01 alone raised AttributeError here:
    # a Tensor has no .base)
    x0 = np.linspace(-1.0, 1.0, 5)

    def run():
        x = mg.tensor(x0, device=device, requires_grad=True)
        y = x.tanh()
        (y * y + y.exp() + y.sin()).sum().backward(create_graph=True)
        g, x.grad = x.grad, None
        (g * g).sum().backward()
        return g.detach().cpu().numpy(), x.grad.cpu().numpy()
    g, gg = run()
    t = np.tanh(x0)
    np.testing.assert_allclose(g, (2 * t + np.exp(t) + np.cos(t)) * (1 - t * t), rtol=1e-12)
    monkeypatch.setattr(B, "_SOLE_PENDING_COUNT", None)
    want_g, want_gg = run()
    np.testing.assert_array_equal(g, want_g)
    np.testing.assert_array_equal(gg, want_gg)


class _OnesOnTheCpu(mg.autograd.Function):
    """A custom function whose backward hands its (strict-device) input a CPU gradient, which the engine
    takes (as it did before sums in place)."""

    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return mg.tensor(np.ones(tuple(g.shape)))


def test_gradients_of_another_devices_class_are_summed_into_a_new_array(monkeypatch):
    # Two CPU gradients at one strict node were summed by asking the strict namespace's owns_memory about a
    # NumPy array, which reads ._owner: AttributeError
    def run():
        x = mg.tensor(np.arange(6.0).reshape(2, 3), device="strict", requires_grad=True)
        y = x * 2
        (_OnesOnTheCpu.apply(y) + _OnesOnTheCpu.apply(y)).sum().backward()
        return x.grad.cpu().numpy()
    got = run()
    np.testing.assert_array_equal(got, np.full((2, 3), 4.0))
    monkeypatch.setattr(B, "_SOLE_PENDING_COUNT", None)
    np.testing.assert_array_equal(run(), got)


def _layout_node_sum(x, b):
    h = x.T.sin() + b  # column-major
    (h * 3.0 + h.exp()).sum().backward()  # exp's g * out arrives first, column-major; h * 3's row-major


def _layout_slice(x, b):
    h = x.T.sin() + b
    s = h[5:40]
    (h.exp().sum() + (s * 3.0).sum()).backward()  # the slice's gradient then goes at its index (_add_at)


def _layout_leaf(x, b):
    w = mg.tensor(np.asfortranarray(x.detach().cpu().numpy().T), device=x.device, requires_grad=True)
    (w * 3.0 + w.sin().exp()).sum().backward()  # the leaf's partial sums: column-major, then row-major
    b.grad = w.grad.sum(0)  # a reduction of the .grad the user got


@pytest.mark.parametrize("device", ["cpu", "strict"])
@pytest.mark.parametrize("program", [_layout_node_sum, _layout_slice, _layout_leaf])
def test_a_sum_in_place_keeps_the_new_arrays_layout(program, device, monkeypatch):
    # A new sum of a column-major first gradient and a row-major one is row-major; a sum into the first one
    # stayed column-major: the same numbers, but summed over the 64 rows (for b by h's backward, or of the
    # leaf's .grad by the user) pairwise down a contiguous column instead of row after row, b.grad differed
    # in its last bits
    rng = np.random.default_rng(1)
    x0, b0 = rng.standard_normal((3, 64)), rng.standard_normal(3)

    def run():
        x = mg.tensor(x0, device=device, requires_grad=True)
        b = mg.tensor(b0, device=device, requires_grad=True)
        program(x, b)
        return [t.grad.cpu().numpy() for t in (b, x) if t.grad is not None]
    got = run()
    monkeypatch.setattr(B, "_SOLE_PENDING_COUNT", None)
    for a, want in zip(got, run(), strict=True):
        np.testing.assert_array_equal(a.view(np.uint64), want.view(np.uint64))


_TRACED_IMPORT = """
import sys

def tracer(frame, event, arg):
    frame.f_locals  # what a debugger's variables view or a watch expression reads: a snapshot of the locals
    return tracer

sys.settrace(tracer)
import numpy as np
import minigrad_ckpt as mg
sys.settrace(None)
B = sys.modules["minigrad_ckpt.backward"]
x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
y = x * 3
v = y * 7
s = y + 0  # Add sends the root gradient G's array itself on to y, whose other reader v sends next
G = mg.tensor(np.full((2, 3), 5.0))
mg.autograd.backward([s, v], [G, mg.ones((2, 3), dtype="float64")])
print(repr((B._SOLE_PENDING_COUNT, B._SOLE_VIEW_COUNTS, G.numpy().tolist(), x.grad.numpy().tolist())))
"""


def _run_python(*args):
    import ast
    import pathlib
    import subprocess

    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=120,
                         cwd=pathlib.Path(__file__).resolve().parents[1])
    assert out.returncode == 0, out.stderr
    return ast.literal_eval(out.stdout.strip().splitlines()[-1])


def test_counts_measured_under_a_tracer_never_let_a_seen_array_be_written():
    # A tracer that reads frame.f_locals while the package was imported held one more reference to the array
    # measured in each measuring frame: the sole count read 6, not 4 -- met, once tracing was off, by the
    # user's root gradient G (held by G and the pass's root_grads as well), whose memory the sum into y's
    # gradient then overwrote: G read 12 where 5 was given.  Counts are now checked against those of an
    # array no frame's local holds: inflated ones are refused (None: no sums in place in that process)
    sole, views, g, x_grad = _run_python("-c", _TRACED_IMPORT)
    assert sole in (None, B._SOLE_PENDING_COUNT) and views in (None, B._SOLE_VIEW_COUNTS)
    assert g == [[5.0] * 3] * 2
    assert x_grad == [[36.0] * 3] * 2


def test_counts_measured_under_cprofile_are_the_plain_ones(tmp_path):
    # (a C profile function reads no locals: the counts stand, and the profiler keeps working)
    script = tmp_path / "counts.py"
    script.write_text(_TRACED_IMPORT.replace("sys.settrace(tracer)", "").replace("sys.settrace(None)", ""))
    sole, views, g, _ = _run_python("-m", "cProfile", "-o", str(tmp_path / "profile.out"), str(script))
    assert (sole, views) == (B._SOLE_PENDING_COUNT, B._SOLE_VIEW_COUNTS)
    assert g == [[5.0] * 3] * 2


@pytest.mark.parametrize("device", ["cpu", "strict"])
def test_element_by_element_reads_build_one_gradient(device, zero_arrays, monkeypatch):
    x0 = np.random.default_rng(6).standard_normal(40)

    def run():
        x = mg.tensor(x0, device=device, requires_grad=True)
        sum(x[i] * x[i + 1] for i in range(39)).backward()
        return x.grad.cpu().numpy()
    zero_arrays[0] = 0
    got = run()
    assert zero_arrays[0] <= 2  # 78 before: a zero array of x's shape for each x[i]
    want = np.concatenate([[0.0], x0[:-1]]) + np.concatenate([x0[1:], [0.0]])
    np.testing.assert_allclose(got, want, rtol=1e-15)
    monkeypatch.setattr(B, "_SOLE_PENDING_COUNT", None)
    np.testing.assert_array_equal(got + 0.0, run() + 0.0)


def _stepped(x, w):
    """A recurrence over x's unbound rows with a closed-over weight read at every step, and an in-place
    write into a slice of a computed value (recorded on the tape) before its pieces are read."""
    y = x * 1.5
    y[0].mul_(2.0)
    h = None
    for row in y.unbind(0):
        h = (row @ w).tanh() if h is None else (row @ w + h).tanh()
    return (h * h).sum() + y[1:].sum()


@pytest.mark.parametrize("transform", ["backward", "func.grad", "vmap(func.grad)", "jvp", "checkpoint"])
def test_transforms_and_in_place_writes_give_the_sums_new_arrays_give(transform, monkeypatch, in_place_sums):
    rng = np.random.default_rng(8)
    x0, w0 = rng.standard_normal((2, 5, 3)), rng.standard_normal((3, 3))
    w = mg.tensor(w0)  # closed over by the function below

    def run():
        if transform == "backward":
            x = mg.tensor(x0[0], requires_grad=True)
            _stepped(x, w).backward()
            return x.grad.numpy()
        if transform == "func.grad":
            return mg.func.grad(lambda x: _stepped(x, w))(mg.tensor(x0[0])).numpy()
        if transform == "vmap(func.grad)":
            return mg.func.vmap(mg.func.grad(lambda x: _stepped(x, w)))(mg.tensor(x0)).numpy()
        if transform == "jvp":
            tangent = mg.ones(5, 3, dtype="float64")
            return mg.func.jvp(lambda x: _stepped(x, w), (mg.tensor(x0[0]),), (tangent,))[1].numpy()
        x = mg.tensor(x0[0], requires_grad=True)
        ck.checkpoint(lambda x: _stepped(x, w), x).backward()
        return x.grad.numpy()
    got = run()
    # (func.grad's pass has targets, mg.grad's: watched, it sums into new arrays; forward mode sums none)
    assert (in_place_sums[0] > 0) == (transform in ("backward", "checkpoint"))
    monkeypatch.setattr(B, "_SOLE_PENDING_COUNT", None)
    want = run()
    np.testing.assert_array_equal(got + 0.0, want + 0.0)
    if transform in ("backward", "func.grad"):  # and right: central differences of the float64 function
        eps, flat = 1e-6, x0[0].ravel()
        num = np.array([(_stepped(mg.tensor((flat + eps * e).reshape(5, 3)), w).item()
                         - _stepped(mg.tensor((flat - eps * e).reshape(5, 3)), w).item()) / (2 * eps)
                        for e in np.eye(flat.size)]).reshape(5, 3)
        np.testing.assert_allclose(got, num, rtol=1e-6, atol=1e-8)
