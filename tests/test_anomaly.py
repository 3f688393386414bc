"""Anomaly mode: the first NaN or inf names its op, the user's line that called it, and the inputs.

Each test that expects an error notes the line of the call it expects to be
named (``line = _next_line()`` right above it) and checks the file and line
number the error gives.
"""

from __future__ import annotations

import dis
import sys
import threading
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigrad_ckpt as mg
from minigrad_ckpt import anomaly, nn, tape
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt.ops.base import Op, registry


def _next_line() -> int:
    """The line number of the caller's next line."""
    return sys._getframe(1).f_lineno + 1


def _is_here(err: mg.AnomalyError, line: int) -> bool:
    return err.source is not None and err.source.filename == __file__ and err.source.lineno == line


@pytest.fixture(autouse=True)
def _mode_off_around_each_test():
    assert not mg.is_anomaly_enabled()
    yield
    was_on = mg.is_anomaly_enabled()
    mg.set_detect_anomaly(False)
    assert not was_on, "a test left anomaly mode on"


def t64(values, requires_grad=True):
    return mg.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


# ------------------------------------------------------------------ the forward pass
def test_log_of_a_negative_number_names_log_the_line_and_the_inputs():
    x = t64([-1.0, 2.0, 4.0])
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError) as info:
        line = _next_line()
        mg.log(x)
    err = info.value
    assert isinstance(err, RuntimeError)
    assert (err.op, err.phase) == ("Log", "forward")
    assert _is_here(err, line)
    assert err.source.line == "mg.log(x)"
    (s,) = err.inputs
    assert (s.shape, s.dtype, s.min, s.max, s.nan, s.inf) == ((3,), "float64", -1.0, 4.0, 0, 0)
    assert (err.produced[0].nan, err.produced[0].inf) == (1, 0)
    text = str(err)
    assert "Log produced NaN in the forward pass" in text
    assert f"{__file__}:{line}" in text and "mg.log(x)" in text
    assert "input 0: float64 (3,): min -1, max 4, 0 NaN, 0 inf" in text


def test_zero_divided_by_zero_and_an_operator_on_tensors():
    a, b = t64([0.0, 1.0]), t64([0.0, 2.0])
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError) as info:
        line = _next_line()
        a / b
    assert (info.value.op, info.value.phase) == ("Div", "forward") and _is_here(info.value, line)
    assert info.value.produced[0].nan == 1
    assert [s.min for s in info.value.inputs] == [0.0, 0.0]


def test_an_infinity_is_an_anomaly_too():
    x = t64([1.0, 1000.0])
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError, match="Exp produced inf") as info:
        line = _next_line()
        mg.exp(x)
    assert _is_here(info.value, line) and info.value.produced[0].inf == 1
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError, match="produced inf"):
        mg.tensor([1.0]) / mg.tensor([0.0])


def test_float32_overflow_that_float64_would_not_have():
    x32 = mg.tensor(np.array([100.0], np.float32), requires_grad=True)
    with mg.detect_anomaly():
        mg.exp(t64([100.0]))  # finite in float64
        with pytest.raises(mg.AnomalyError) as info:
            mg.exp(x32)
    assert info.value.inputs[0].dtype == "float32" and info.value.produced[0].dtype == "float32"
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError) as info:
        mg.log(mg.tensor(np.array([-2.0], np.float32)))
    assert info.value.inputs[0].dtype == "float32"


def test_ops_under_no_grad_and_ops_on_constants_are_checked():
    with mg.detect_anomaly(), mg.no_grad(), pytest.raises(mg.AnomalyError) as info:
        mg.sqrt(t64([-1.0]))
    assert info.value.node is None and info.value.phase == "forward"


def test_the_line_named_is_the_users_line_inside_a_module():
    class Bad(nn.Module):
        def forward(self, x):
            h = x * 2
            self.line = _next_line()
            return mg.log(h - 10)

    m = Bad()
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError) as info:
        m(t64([1.0, 20.0]))
    assert _is_here(info.value, m.line) and info.value.source.function == "forward"


def test_an_input_that_already_held_nan_is_said_so():
    x = t64([np.nan, 1.0])
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError, match="already held NaN") as info:
        x * 2
    assert info.value.inputs[0].nan == 1 and info.value.op == "Mul"


# ------------------------------------------------------------------ backward
def test_a_gradient_that_only_backward_makes_names_the_forward_line():
    x = t64(0.0)
    with mg.detect_anomaly():
        line = _next_line()
        y = mg.sqrt(x) * 3.0  # sqrt(0) = 0 is fine; its derivative at 0 is inf
        with pytest.raises(mg.AnomalyError) as info:
            y.backward()
    err = info.value
    assert (err.op, err.phase) == ("Sqrt", "backward") and _is_here(err, line)
    assert err.produced[0].inf == 1 and err.node.op.name == "Sqrt"
    assert "the backward of Sqrt returned inf in the gradient of input 0" in str(err)
    assert f"{__file__}:{line}" in str(err) and "gradient arriving: float64 (): min 3, max 3" in str(err)
    assert x.grad is None  # the pass stopped before the leaf got anything


class _NaNBackward(Op):
    """An op whose forward is the identity and whose backward returns NaN."""

    name = "_AnomalyTestNaNBackward"
    save_inputs = False

    def forward(self, xp, x):
        return x * 1

    def backward(self, xp, g, out, x):
        return g * xp.nan

    def jvp(self, xp, tangents, out, x):
        return tangents[0]


class _NaNOnReplay(Op):
    """A planted nondeterministic op: the identity, except that a checkpoint replay gets NaN."""

    name = "_AnomalyTestNaNOnReplay"
    save_inputs = False

    def forward(self, xp, x):
        return x * xp.nan if mg.is_recomputing() else x * 1

    def backward(self, xp, g, out, x):
        return g


registry.pop(_NaNBackward.name, None)  # defining an op registers it; the registry keeps the package's ops only
registry.pop(_NaNOnReplay.name, None)


def test_a_custom_op_whose_backward_returns_nan():
    x = t64([1.0, 2.0])
    with mg.detect_anomaly():
        line = _next_line()
        y = tape.apply(_NaNBackward(), x * 1)
        loss = y.sum()
        with pytest.raises(mg.AnomalyError) as info:
            loss.backward()
    assert (info.value.op, info.value.phase) == (_NaNBackward.name, "backward")
    assert _is_here(info.value, line) and info.value.produced[0].nan == 2


def test_backward_is_checked_also_once_its_op_class_has_passed_its_contract_checks():
    # the pass calls an op's backward inline (not through call_backward) once the first calls of
    # its class have been checked; anomaly mode must see those calls too
    sqrt = registry["Sqrt"]
    left, sqrt.contract_checks_left = sqrt.contract_checks_left, 0
    try:
        x = t64([0.0, 1.0])
        with mg.detect_anomaly():
            y = mg.sqrt(x).sum()
            with pytest.raises(mg.AnomalyError, match="the backward of Sqrt returned inf"):
                y.backward()
    finally:
        sqrt.contract_checks_left = left


def test_the_gradient_arriving_already_bad_is_said_so():
    x = t64([1.0])
    with mg.detect_anomaly():
        y = mg.exp(x)
        with pytest.raises(mg.AnomalyError, match="arriving already held NaN"):
            y.backward(mg.tensor(np.array([np.nan])))


def test_a_bad_gradient_a_hook_returned_is_pointed_at_the_hook():
    # hooks run outside every op's check: the report named only the op whose backward met it
    x = t64([1.0, 2.0])
    with mg.detect_anomaly():
        y = x * 3.0
        y.register_hook(lambda g: mg.tensor(np.array([np.nan, 0.0])))
        with pytest.raises(mg.AnomalyError, match=r"arriving already held NaN/inf: a gradient hook on this "
                                                  r"op's output \(register_hook\) may have returned it") as info:
            mg.tanh(y).sum().backward()
    assert info.value.op == "Mul"


def test_a_node_recorded_with_the_mode_off_still_names_its_op():
    x = t64(0.0)
    y = mg.sqrt(x)
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError, match="not known: recorded while anomaly mode was off") \
            as info:
        y.backward()
    assert info.value.op == "Sqrt" and info.value.source is None


def test_create_graph_names_the_op_inside_the_backward_and_the_node_it_belongs_to():
    x = t64(0.0)
    with mg.detect_anomaly():
        line = _next_line()
        y = mg.sqrt(x)
        with pytest.raises(mg.AnomalyError) as info:
            mg.grad(y, x, create_graph=True)
    err = info.value
    assert err.phase == "forward" and err.op != "Sqrt"  # an op of Sqrt's backward rule
    assert f"while running the backward of Sqrt (node #{y._node.seq}), called at {__file__}:{line}" in str(err)


def test_a_second_derivative_that_goes_bad_names_the_forward_line_it_differentiates():
    # x ** 1.5 has a finite first derivative at 0 but an infinite second one: the bad node is an op
    # of Pow's backward (recorded by mg.grad); the error also names the forward line of the Pow,
    # as PyTorch's "forward call that induced the previous calculation" does
    x = t64([0.0, 1.0])
    with mg.detect_anomaly():
        forward_line = _next_line()
        y = (x ** 1.5).sum()
        grad_line = _next_line()
        (g,) = mg.grad(y, x, create_graph=True)
        with pytest.raises(mg.AnomalyError) as info:
            g.sum().backward()
    err = info.value
    assert err.phase == "backward" and err.source.lineno == grad_line
    op, seq, source = err.source.backward_of
    assert (op, seq, source.lineno) == ("Pow", y._node.inputs[0].seq, forward_line)
    assert (f"recorded (create_graph=True) by the backward of Pow (node #{seq}), called at "
            f"{__file__}:{forward_line}") in str(err)
    del y  # a description, not the node: the first derivative's ops do not keep the forward graph alive
    assert not isinstance(err.source.backward_of[2], mg.Tensor)


def test_backward_steps_stops_at_the_same_node():
    x = t64(0.0)
    with mg.detect_anomaly():
        y = mg.sqrt(x).sum()
        steps = mg.backward_steps(y)
        next(steps)  # the Sum
        with pytest.raises(mg.AnomalyError) as info:
            next(steps)
    assert info.value.op == "Sqrt"


def test_a_tape_recorded_in_anomaly_mode_snapshots_and_restores(tmp_path):
    pytest.importorskip("msgpack", reason="msgpack (a runtime dependency) is not installed")
    from tape_snapshots import gradients_before_and_after_restore

    def build():
        mg.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
        return model, mg.Executor(model, mg.optim.SGD(model.parameters(), lr=0.1))

    x = mg.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 4.0]])
    before, after = gradients_before_and_after_restore(
        build, lambda m: mg.sqrt(m(x) ** 2 + 1.0).sum(),  # finite everywhere
        tmp_path / "t.mgsnap", context=mg.detect_anomaly)
    assert after == before


# ------------------------------------------------------------------ checkpoint replays
def test_a_nan_that_only_the_replay_makes_is_named_as_coming_from_the_replay():
    x = t64([1.0, 2.0])

    def segment(v):
        h = mg.tanh(v)
        segment.line = _next_line()
        return mg.sin(tape.apply(_NaNOnReplay(), h))  # sin keeps its input: the replay makes it

    with mg.detect_anomaly():
        loss = ck.checkpoint(segment, x).sum()  # the forward pass is clean
        with pytest.raises(mg.AnomalyError) as info:
            loss.backward()
    err = info.value
    assert (err.op, err.phase) == (_NaNOnReplay.name, "replay") and _is_here(err, segment.line)
    assert err.segment is not None and err.segment is err.node.segment
    assert f"in the replay of checkpointed segment {err.segment.index}" in str(err)
    assert "the forward pass made finite values here" in str(err)


class _CustomNaNOnReplay(mg.autograd.Function):
    """x * 1 the first time its forward runs, x * nan when a checkpoint replay runs it again."""

    calls = 0

    @staticmethod
    def forward(ctx, x):
        _CustomNaNOnReplay.calls += 1
        ctx.save_for_backward(x)
        _CustomNaNOnReplay.line = _next_line()
        return x * (1.0 if _CustomNaNOnReplay.calls == 1 else float("nan"))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x


def test_a_nan_that_a_custom_functions_forward_makes_only_in_the_replay_is_named_as_replay():
    # its inner ops run through apply, so they were reported as "in the forward pass", phase "forward"
    x = t64([1.0, 2.0])
    _CustomNaNOnReplay.calls = 0
    with mg.detect_anomaly():
        loss = ck.checkpoint(lambda v: mg.tanh(_CustomNaNOnReplay.apply(v)), x).sum()  # clean
        with pytest.raises(mg.AnomalyError) as info:
            loss.backward()
    err = info.value
    assert (err.op, err.phase) == ("Mul", "replay") and _is_here(err, _CustomNaNOnReplay.line)
    assert err.segment is not None and f"in the replay of checkpointed segment {err.segment.index}" in str(err)
    assert "while running the backward of Tanh" in str(err)
    # the same function outside a replay: the forward pass, its line
    _CustomNaNOnReplay.calls = 1
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError) as info:
        _CustomNaNOnReplay.apply(x)
    assert info.value.phase == "forward" and info.value.segment is None


def test_a_bad_gradient_inside_a_checkpointed_segment_says_its_values_were_replayed():
    x = t64([0.0, 1.0])

    def segment(v):
        segment.line = _next_line()
        return mg.sqrt(v) * 2 + mg.tanh(v)

    with mg.detect_anomaly():
        loss = ck.checkpoint(segment, x).sum()
        with pytest.raises(mg.AnomalyError, match="recomputed by replaying checkpointed segment") as info:
            loss.backward()
    assert (info.value.op, info.value.phase) == ("Sqrt", "backward") and _is_here(info.value, segment.line)


def test_a_forward_nan_inside_a_checkpointed_segment_is_caught_in_the_forward_pass():
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError) as info:
        line = _next_line()
        ck.checkpoint(lambda v: mg.log(v - 5), t64([1.0]))
    assert _is_here(info.value, line) and info.value.phase == "forward"


# ------------------------------------------------------------------ mg.func transforms and forward mode
def _sqrt_sum(v):
    _sqrt_sum.line = _next_line()
    return mg.sqrt(v).sum()


@pytest.mark.parametrize("transform", [
    lambda x: mg.func.grad(_sqrt_sum)(x),
    lambda x: mg.func.vjp(_sqrt_sum, x)[1](mg.tensor(1.0, dtype="float64")),
    lambda x: mg.func.jacrev(_sqrt_sum)(x),
    lambda x: mg.func.value_and_grad(_sqrt_sum)(x),
    lambda x: mg.func.jacobian(_sqrt_sum)(x),
], ids=["grad", "vjp", "jacrev", "value_and_grad", "jacobian"])
def test_reverse_mode_transforms(transform):
    x = t64([0.0, 4.0], requires_grad=False)
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError) as info:
        transform(x)
    assert (info.value.op, info.value.phase) == ("Sqrt", "backward") and _is_here(info.value, _sqrt_sum.line)


@pytest.mark.parametrize("transform", [
    lambda x: mg.func.jvp(_sqrt_sum, (x,), (mg.ones_like(x),)),
    lambda x: mg.func.jacfwd(_sqrt_sum)(x),
    lambda x: mg.func.linearize(_sqrt_sum, x)[1](mg.ones_like(x)),
], ids=["jvp", "jacfwd", "linearize"])
def test_forward_mode_tangents(transform):
    x = t64([0.0, 4.0], requires_grad=False)
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError) as info:
        transform(x)
    err = info.value
    assert f"{__file__}:{_sqrt_sum.line}" in str(err)
    if err.phase == "jvp":  # the rule ran on arrays: the tangent itself is checked
        assert err.op == "Sqrt" and _is_here(err, _sqrt_sum.line)
        assert "the forward-mode tangent (jvp) of Sqrt is inf (its value is finite)" in str(err)
        assert err.produced[0].inf == 1
    else:  # linearize: tangents of a recorded vjp, so an op of Sqrt's backward rule makes the inf
        assert err.phase == "forward" and "while running the backward of Sqrt" in str(err)


@pytest.mark.parametrize("transform", [
    lambda x: mg.func.hessian(_sqrt_sum)(x),
    lambda x: mg.func.hvp(_sqrt_sum, (x,), (mg.ones_like(x),)),
], ids=["hessian", "hvp"])
def test_second_order_transforms_name_the_inner_op_and_whose_rule_it_ran_for(transform):
    x = t64([0.0, 4.0], requires_grad=False)
    with mg.detect_anomaly(), pytest.raises(mg.AnomalyError) as info:
        transform(x)
    assert "of Sqrt" in str(info.value) and _is_here(info.value, _sqrt_sum.line)


def test_a_finite_jvp_passes_and_gives_the_tangent():
    x = t64([1.0, 4.0], requires_grad=False)
    with mg.detect_anomaly():
        out, tangent = mg.func.jvp(_sqrt_sum, (x,), (mg.ones_like(x),))
    assert tangent.item() == pytest.approx(0.5 + 0.25)


# ------------------------------------------------------------------ the switch
def test_nested_blocks_restore_the_previous_mode_also_on_exceptions():
    assert not mg.is_anomaly_enabled()
    with mg.detect_anomaly():
        assert mg.is_anomaly_enabled() and mg.is_anomaly_check_nan_enabled()
        with mg.set_detect_anomaly(False):
            assert not mg.is_anomaly_enabled()
            mg.log(t64([-1.0]))  # off: NaN passes silently
            with mg.detect_anomaly(check_nan=False):
                assert mg.is_anomaly_enabled() and not mg.is_anomaly_check_nan_enabled()
                assert mg.is_anomaly_check_inf_enabled()
            assert not mg.is_anomaly_enabled()
        assert mg.is_anomaly_enabled() and mg.is_anomaly_check_nan_enabled()
        with pytest.raises(ZeroDivisionError):
            with mg.set_detect_anomaly(False):
                1 / 0
        assert mg.is_anomaly_enabled()
        with pytest.raises(mg.AnomalyError):
            with mg.detect_anomaly(check_inf=False):
                mg.log(t64([-1.0]))
        assert mg.is_anomaly_check_inf_enabled()
    assert not mg.is_anomaly_enabled() and tape._anomaly is None


def test_set_detect_anomaly_switches_at_once_and_decorators_restore():
    mg.set_detect_anomaly(True)
    try:
        assert mg.is_anomaly_enabled() and tape._anomaly is not None
    finally:
        mg.set_detect_anomaly(False)
    assert not mg.is_anomaly_enabled() and tape._anomaly is None

    @mg.detect_anomaly()
    def f():
        assert mg.is_anomaly_enabled()
        return mg.log(t64([-1.0]))

    with pytest.raises(mg.AnomalyError):
        f()
    assert not mg.is_anomaly_enabled()
    decorated = mg.set_detect_anomaly(True)(lambda: mg.is_anomaly_enabled())
    assert not mg.is_anomaly_enabled() and decorated() and not mg.is_anomaly_enabled()
    assert repr(mg.detect_anomaly()) == "detect_anomaly(check_nan=True, check_inf=True)"


def test_check_nan_and_check_inf_select_what_is_refused():
    with mg.detect_anomaly(check_nan=False):
        mg.log(t64([-1.0]))  # NaN passes
        with pytest.raises(mg.AnomalyError, match="Log produced inf"):
            mg.log(t64([0.0]))
    with mg.detect_anomaly(check_inf=False):  # an attention-style mask of -inf passes
        scores = t64([[1.0, 2.0, 3.0]])
        masked = mg.where(mg.tensor([[True, True, False]]), scores, -np.inf)
        weights = mg.nn.functional.softmax(masked, axis=-1)
        weights.sum().backward()
        with pytest.raises(mg.AnomalyError, match="Log produced NaN"):
            mg.log(t64([-1.0]))
    with mg.detect_anomaly(check_nan=False, check_inf=False):  # only notes where ops were called
        line = _next_line()
        y = mg.log(t64([-1.0, 0.0]))
    assert y._node.source.lineno == line


def test_the_switch_is_process_wide_as_in_pytorch():
    seen = {}

    def worker():
        seen["enabled"] = mg.is_anomaly_enabled()
        try:
            mg.log(t64([-1.0]))
        except mg.AnomalyError as err:
            seen["error"] = err

    with mg.detect_anomaly():
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join(timeout=60)
    assert seen["enabled"] and seen["error"].op == "Log"
    assert seen["error"].source.function == "worker"


# ------------------------------------------------------------------ off: free; on: changes nothing
def test_off_it_raises_nothing_and_runs_no_code_of_its_own():
    calls = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_filename == anomaly.__file__:
            calls.append(frame.f_code.co_name)

    x = t64([0.0, -1.0])
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        y = (mg.sqrt(x) + mg.log(x)).sum()
        y.backward()
        mg.func.jvp(lambda v: mg.sqrt(v).sum(), (x.detach(),), (mg.ones_like(x),))
        ck.checkpoint(lambda v: tape.apply(_NaNOnReplay(), mg.sqrt(v)), x).sum().backward()
    finally:
        sys.setprofile(previous)
    assert calls == []
    assert not np.isfinite(x.grad.numpy()).any()  # the NaN and inf went through unreported


def _global_reads_executed(fn, call):
    """The module globals ``fn``'s own frames read while ``call()`` runs, one entry per read executed."""
    by_offset = {ins.offset: ins for ins in dis.get_instructions(fn)}
    reads = []

    def trace(frame, event, arg):
        if frame.f_code is not fn.__code__:
            return None
        frame.f_trace_opcodes = True
        if event == "opcode":
            ins = by_offset.get(frame.f_lasti)
            if ins is not None and ins.opname == "LOAD_GLOBAL":
                reads.append(ins.argval)
        return trace

    previous = sys.gettrace()  # a coverage tool's tracer, say: put back afterwards
    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(previous)
    return reads


def test_off_it_costs_one_global_read_per_op():
    x, w = t64([1.0, 2.0]), t64([3.0, 4.0])
    for call in (lambda: mg.tanh(x), lambda: x * w, lambda: mg.add(x, 1.0)):
        reads = _global_reads_executed(tape.apply, call)
        assert reads.count("_anomaly") == 1, reads
        assert not [r for r in reads if "anomaly" in r.lower() and r != "_anomaly"]


def _mlp_step(anomaly_on: bool, checkpointed: bool) -> list[np.ndarray]:
    mg.manual_seed(3)
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Dropout(0.3), nn.Linear(8, 8), nn.GELU(),
                          nn.LayerNorm(8), nn.Linear(8, 2))
    x = mg.randn(6, 5)
    target = mg.tensor(np.arange(6) % 2)
    with mg.set_detect_anomaly(anomaly_on):
        h = ck.checkpoint_sequential(model, 2, x) if checkpointed else model(x)
        loss = mg.nn.functional.cross_entropy(h, target)
        loss.backward()
    return [loss.numpy()] + [p.grad.numpy() for p in model.parameters()]


@pytest.mark.parametrize("checkpointed", [False, True])
def test_on_it_changes_no_result_bitwise(checkpointed):
    off, on = _mlp_step(False, checkpointed), _mlp_step(True, checkpointed)
    for a, b in zip(off, on):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


# bounded functions, so a program's values stay finite (|v| grows at most 4x per step)
_UNARY = {"tanh": mg.tanh, "sin": mg.sin, "sigmoid": mg.sigmoid, "cos": mg.cos,
          "exp_small": lambda v: mg.exp(mg.tanh(v)), "softplus": lambda v: mg.log1p(mg.exp(-mg.abs(v)))}


@settings(max_examples=25, deadline=None)
@given(names=st.lists(st.sampled_from(sorted(_UNARY)), min_size=1, max_size=6),
       values=st.lists(st.floats(-3, 3), min_size=1, max_size=5), dtype=st.sampled_from(["float32", "float64"]))
def test_random_programs_give_the_same_bits_with_the_mode_on(names, values, dtype):
    def program(v):
        for name in names:
            v = _UNARY[name](v) * v + v
        return (v * v).sum()

    def run(on):
        x = mg.tensor(np.asarray(values, dtype=dtype), requires_grad=True)
        with mg.set_detect_anomaly(on):
            y = program(x)
            y.backward()
            _, tangent = mg.func.jvp(program, (x.detach(),), (mg.ones_like(x),))
            (h,) = mg.grad(program(x), x, create_graph=True)
        return [y.numpy(), x.grad.numpy(), tangent.numpy(), h.numpy()]

    for a, b in zip(run(False), run(True)):
        assert a.tobytes() == b.tobytes()


def test_on_the_strict_stand_in_device():
    pytest.importorskip("minigrad_ckpt.testing.strict")
    x = mg.tensor(np.array([-1.0, 4.0]), device="strict", requires_grad=True)
    with mg.detect_anomaly():
        y = mg.sqrt(mg.abs(x)).sum()
        y.backward()
        with pytest.raises(mg.AnomalyError) as info:
            mg.log(x)
    assert info.value.inputs[0].min == -1.0 and info.value.produced[0].nan == 1


def test_the_overhead_benchmark_runs(capsys):
    """``benchmarks/anomaly_overhead.py`` measures the cost quoted in docs/anomaly.md; here it runs once, untimed."""
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root holds benchmarks/
    from benchmarks import anomaly_overhead

    ratios = anomaly_overhead.main(["--rounds", "1"])
    assert len(ratios) == 3 and all(r > 0 for r in ratios.values())
    assert "on/off" in capsys.readouterr().out
    assert not mg.is_anomaly_enabled()
    anomaly_overhead.main(["--child", "small MLP (2-32-32-2, batch 64)", "on", "1"])
    assert not mg.is_anomaly_enabled()


def test_the_check_nan_flag_reads_as_pytorchs():
    # torch 2.13: True at start; set_detect_anomaly(True, check_nan=False) -> False; set_detect_anomaly(False)
    # -> True (the default); set_detect_anomaly(False, check_nan=False) -> False, and a block restores it
    try:
        assert mg.is_anomaly_check_nan_enabled()
        mg.set_detect_anomaly(True, check_nan=False)
        assert not mg.is_anomaly_check_nan_enabled()
        mg.set_detect_anomaly(False)
        assert mg.is_anomaly_check_nan_enabled() and not mg.is_anomaly_enabled()
        mg.set_detect_anomaly(False, check_nan=False)
        assert not mg.is_anomaly_check_nan_enabled()
        with mg.detect_anomaly():
            assert mg.is_anomaly_check_nan_enabled()
        assert not mg.is_anomaly_check_nan_enabled()
        mg.log(t64([-1.0]))  # off: nothing is checked, whatever the flag
    finally:
        mg.set_detect_anomaly(False)


def test_one_detect_anomaly_object_entered_again_inside_itself_restores_each_level():
    # a shared object entered by a recursive function: the inner exit overwrote what the outer one
    # restores, and the mode stayed on after the outermost block (torch 2.13 restores the state at
    # its construction on every exit, turning the mode off inside the outer block too)
    shared = mg.detect_anomaly(check_inf=False)

    def depth(n):
        with shared:
            inner = depth(n - 1) if n else []
            return [*inner, (mg.is_anomaly_enabled(), mg.is_anomaly_check_inf_enabled())]

    assert depth(2) == [(True, False)] * 3
    assert not mg.is_anomaly_enabled() and mg.is_anomaly_check_nan_enabled()
    with shared:
        with mg.set_detect_anomaly(False):
            assert not mg.is_anomaly_enabled()
        with shared:
            pass
        assert mg.is_anomaly_enabled()
    assert not mg.is_anomaly_enabled()


class _NaNInSecondGradient(Op):
    """``x * y`` whose backward returns NaN in the gradient of ``y`` (its second input)."""

    name = "_AnomalyTestNaNInSecond"

    def forward(self, xp, x, y):
        return x * y

    def backward(self, xp, g, out, x, y):
        return g * y, g * x * xp.nan


registry.pop(_NaNInSecondGradient.name, None)


def test_a_nan_gradient_is_named_in_pytorchs_words_first():
    # torch 2.13: RuntimeError "Function 'MulBackward0' returned nan values in its 1th output." -- a ported
    # test matches it; the engine's message began "the backward of ... returned NaN in the gradient of input 1"
    x, y = t64([1.0, 2.0]), t64([3.0, 4.0])
    with mg.detect_anomaly():
        z = tape.apply(_NaNInSecondGradient(), x, y)
        with pytest.raises(RuntimeError, match=r"^Function '_NaNInSecondGradientBackward0' returned nan values in "
                                               r"its 1th output\.\nthe backward of _AnomalyTestNaNInSecond returned "
                                               r"NaN in the gradient of input 1\n"):
            z.sum().backward()
        # an infinity is the engine's own check (PyTorch's looks for NaN only): its words alone
        with pytest.raises(mg.AnomalyError, match=r"^the backward of Sqrt returned inf"):
            mg.sqrt(t64([0.0])).sum().backward()


def test_detect_anomaly_warns_as_pytorchs_and_set_detect_anomaly_does_not():
    # torch 2.13: detect_anomaly() warns UserWarning "Anomaly Detection has been enabled. This mode will increase
    # the runtime and should only be enabled for debugging." where it is made (a with block, a decorator);
    # set_detect_anomaly warns nothing.  The engine warned nothing
    with pytest.warns(UserWarning, match=r"^Anomaly Detection has been enabled\. This mode will increase the runtime "
                      r"and should only be enabled for debugging\.$") as caught:
        with mg.detect_anomaly():
            pass
    assert caught[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with mg.set_detect_anomaly(True):
            pass
