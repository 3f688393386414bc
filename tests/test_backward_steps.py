"""``mg.backward_steps``: the backward pass one node at a time.  Exhausted, it leaves what
``backward()`` leaves, bit for bit (random programs, checkpointed segments, hooks); stopped
early, it leaves every ``.grad`` as it was."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt.backward import queue_callback
from minigrad_ckpt.checkpoint import checkpoint

_UNARY = {"tanh": mg.tanh, "sin": mg.sin, "square": lambda a: a * a, "exp_tanh": lambda a: mg.exp(mg.tanh(a)),
          "sum_keep": lambda a: a.sum(axis=-1, keepdims=True), "neg": lambda a: -a}
_BINARY = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "sub": lambda a, b: a - b}

# A program: which of the values so far each op reads (indices taken modulo the count).
programs = st.lists(
    st.one_of(st.tuples(st.sampled_from(sorted(_UNARY)), st.integers(0, 50)),
              st.tuples(st.sampled_from(sorted(_BINARY)), st.integers(0, 50), st.integers(0, 50))),
    min_size=1, max_size=12)


def _leaves(seed: int) -> list[mg.Tensor]:
    rng = np.random.default_rng(seed)
    shapes = [(2, 3), (3,), (1, 3)]
    return [mg.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]


def _run(program, leaves, segment_from: int | None = None) -> mg.Tensor:
    values = list(leaves)
    for i, (name, *reads) in enumerate(program):
        args = [values[r % len(values)] for r in reads]
        fn = _UNARY.get(name) or _BINARY[name]
        if segment_from is not None and i >= segment_from:
            values.append(checkpoint(fn, *args))
        else:
            values.append(fn(*args))
    return (values[-1] * values[-1]).sum() + values[0].sum()


def _grads(leaves):
    return [None if t.grad is None else t.grad.numpy().copy() for t in leaves]


def _assert_bitwise(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert (x is None) == (y is None)
        if x is not None:
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


@pytest.mark.filterwarnings("ignore::minigrad_ckpt.checkpoint.CheckpointCostWarning")
@settings(max_examples=40, deadline=None)
@given(programs, st.integers(0, 2**16), st.sampled_from([None, 0, 1]))
def test_exhausting_the_steps_gives_backward_bitwise(program, seed, segment_from):
    ref = _leaves(seed)
    _run(program, ref, segment_from).backward()
    stepped = _leaves(seed)
    loss = _run(program, stepped, segment_from)
    steps = list(mg.backward_steps(loss))
    _assert_bitwise(_grads(stepped), _grads(ref))
    assert [s.index for s in steps] == list(range(len(steps)))
    seqs = [s.node.seq for s in steps]
    assert seqs == sorted(seqs, reverse=True)  # reverse recording order
    assert len(steps) == len(mg.tape.walk(loss))
    # What each step says it gives the leaves adds up to their .grad (same order of sums as the pass).
    totals: dict[int, np.ndarray] = {}
    for s in steps:
        assert len(s.grad_inputs) == len(s.node.inputs)
        for leaf, g in s.accumulated:
            assert g.shape == leaf.shape
            k = id(leaf)
            totals[k] = g.numpy() if k not in totals else totals[k] + g.numpy()
    for t in stepped:
        if t.grad is not None:
            assert totals[id(t)].tobytes() == t.grad.numpy().tobytes()


def test_stopping_early_changes_no_grad_and_restores_the_pass_state():
    x = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    x.grad = mg.tensor([1.0, 1.0, 1.0])
    loss = (mg.tanh(x) * x).sum()
    steps = mg.backward_steps(loss)
    first = next(steps)
    assert first.op == "Sum" and first.index == 0
    assert mg.is_grad_enabled()  # the loop body runs in the caller's grad mode
    for s in steps:
        if s.accumulated:
            break  # a leaf's gradient was computed: still not in .grad
    steps.close()
    assert x.grad.numpy().tolist() == [1.0, 1.0, 1.0]
    assert mg.is_grad_enabled()


def test_the_last_step_writes_grad_when_it_is_taken():
    x = mg.tensor([0.5, -1.0], requires_grad=True)
    loss = (x * 3.0).sum()
    seen = []
    for _step in mg.backward_steps(loss):
        seen.append(None if x.grad is None else x.grad.numpy().tolist())
    assert seen == [None, [3.0, 3.0]]


def test_a_step_reports_its_gradients_ops_and_leaf_shares():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    c = mg.tensor([5.0, 7.0])  # a constant: no gradient is sent to it
    loss = (x * c).sum()
    steps = list(mg.backward_steps(loss))
    assert [s.op for s in steps] == ["Sum", "Mul"]
    mul = steps[1]
    assert mul.grad_output.numpy().tolist() == [1.0, 1.0]
    assert mul.grad_inputs[0].numpy().tolist() == [5.0, 7.0] and mul.grad_inputs[1] is None
    ((leaf, g),) = mul.accumulated
    assert leaf is x and g.numpy().tolist() == [5.0, 7.0]
    assert mul.released_bytes is None and mul.replay is None  # ledger off, no checkpoint
    assert "Mul" in repr(mul)


@pytest.mark.parametrize("create_graph", [False, True])
def test_grad_output_is_what_the_op_received_after_the_tensors_hooks(create_graph):
    # it was the gradient before h's hook: Mul #h said it received 1 and sent 30 (= 10 * 3)
    w = mg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    h = w * 3.0
    h.register_hook(lambda g: g * 10.0)
    loss = (h * 1.0).sum()
    steps = {s.node: s for s in mg.backward_steps(loss, create_graph=create_graph)}
    step = steps[h._node]
    np.testing.assert_array_equal(step.grad_output.numpy(), [10.0, 10.0])
    np.testing.assert_array_equal(step.grad_inputs[0].numpy(), [30.0, 30.0])
    np.testing.assert_array_equal(w.grad.numpy(), [30.0, 30.0])
    # a node without hooks: what arrived, unchanged
    np.testing.assert_array_equal(steps[loss._node].grad_output.numpy(), 1.0)


def test_released_bytes_come_from_the_ledger():
    x = mg.tensor(np.ones(1000), requires_grad=True)
    with mg.memory.track() as ledger:
        loss = mg.tanh(x * 2.0).sum()
        held = ledger.live("saved")
        steps = list(mg.backward_steps(loss))
    assert held > 0
    assert sum(s.released_bytes for s in steps) >= held
    assert any(s.op == "Tanh" and s.released_bytes >= 8000 for s in steps)


def test_a_checkpointed_segment_is_reported_where_it_is_replayed():
    x = mg.tensor([0.3, -0.7, 1.1], requires_grad=True)

    def block(a):
        return mg.tanh(mg.sin(a) * a)

    loss = checkpoint(block, x).sum()
    steps = list(mg.backward_steps(loss))
    replayed = [s for s in steps if s.replay is not None]
    assert len(replayed) == 1 and replayed[0].op == "Tanh"  # the newest node of the segment replays it
    ref = mg.tensor([0.3, -0.7, 1.1], requires_grad=True)
    checkpoint(block, ref).sum().backward()
    assert x.grad.numpy().tobytes() == ref.grad.numpy().tobytes()


def test_post_accumulate_hooks_and_callbacks_run_as_in_backward():
    def program(w, b):
        return (mg.tanh(w * 2.0) * b).sum()

    def watch(log, name):
        def hook(t):
            log.append((name, t.grad.numpy().tobytes()))
            queue_callback(lambda: log.append((name + " callback", None)))
        return hook

    results = []
    for stepping in (False, True):
        w, b = mg.tensor([0.1, 0.2], requires_grad=True), mg.tensor([1.5, -2.0], requires_grad=True)
        log: list = []
        w.register_post_accumulate_grad_hook(watch(log, "w"))
        b.register_post_accumulate_grad_hook(watch(log, "b"))
        loss = program(w, b)
        if stepping:
            for _ in mg.backward_steps(loss):
                pass
        else:
            loss.backward()
        results.append((log, w.grad.numpy().tobytes(), b.grad.numpy().tobytes()))
    assert results[0] == results[1]
    assert sorted(name for name, _ in results[0][0]) == ["b", "b callback", "w", "w callback"]


def test_create_graph_steps_give_differentiable_gradients():
    x = mg.tensor([0.4, -0.3], requires_grad=True)
    loss = (x * x * x).sum()
    steps = list(mg.backward_steps(loss, create_graph=True))
    assert all(isinstance(g, mg.Tensor) for s in steps for g in s.grad_inputs if g is not None)
    (gx,) = mg.grad(x.grad.sum(), [x])
    np.testing.assert_allclose(gx.numpy(), 6 * np.array([0.4, -0.3]))


def test_a_leaf_output_has_no_steps_but_gets_its_gradient():
    x = mg.tensor(2.0, requires_grad=True)
    assert list(mg.backward_steps(x)) == []
    assert x.grad.item() == 1.0


def test_errors_are_those_of_backward():
    with pytest.raises(RuntimeError, match="one element"):
        next(mg.backward_steps(mg.tensor([1.0, 2.0], requires_grad=True) * 2.0))


def test_the_grad_mode_between_steps_and_after_them_is_the_callers():
    # A loop body that switches grad mode keeps its choice through the next step and the last one,
    # and a generator left unfinished, closed (here by the collector) under no_grad, leaves no_grad on
    # -- the steps used to put back the mode the pass began in
    x = mg.tensor([0.5, -1.0], requires_grad=True)
    steps = mg.backward_steps((mg.exp(x) * x).sum())
    next(steps)
    with mg.no_grad():
        next(steps)
        assert not mg.is_grad_enabled()
        del steps
        import gc

        gc.collect()
        assert not mg.is_grad_enabled()
    assert mg.is_grad_enabled()
    for s in mg.backward_steps((mg.exp(x) * x).sum()):
        mg.set_grad_enabled(s.index > 0)  # off after the first step, on again after the second
    assert mg.is_grad_enabled() and x.grad is not None
    x.grad = None
    try:
        for _step in mg.backward_steps((mg.exp(x) * x).sum(), create_graph=True):
            mg.set_grad_enabled(False)  # the last step's end keeps it off; create_graph's steps still record
        assert not mg.is_grad_enabled() and x.grad.grad_fn is not None
    finally:
        mg.set_grad_enabled(True)


def test_steps_inside_a_transform_are_refused_as_backward_is():
    # torch 2.13: backward() inside torch.func.grad is a RuntimeError "backward() called inside a functorch
    # transform"; the steps of the same pass (and mg.viz.explore, which runs them) ran, writing the
    # transform's leaves' .grad
    def f(x):
        y = (mg.sin(x) * x).sum()
        with pytest.raises(RuntimeError, match="backward\\(\\) called inside a functorch transform"):
            next(mg.backward_steps(y, retain_graph=True))
        return y

    g = mg.func.grad(f)(mg.tensor([1.0, 2.0]))
    np.testing.assert_allclose(g.numpy(), np.cos([1.0, 2.0]) * [1.0, 2.0] + np.sin([1.0, 2.0]), rtol=1e-6)
