"""PyTorch's profilers: ``mg.autograd.profiler`` (the legacy API) and ``mg.profiler``.

Reference answers (names, the table's text, the schedule's actions) were taken from torch 2.13
offline and pasted here."""

from __future__ import annotations

import gzip
import json
import os
import threading
import time
import warnings

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.profiler import ProfilerAction, recording, schedule

legacy = mg.autograd.profiler


@pytest.fixture
def fake_clock(monkeypatch):
    """The profiler's clock, returning the given times (microseconds) one per reading."""
    def use(*times_us):
        readings = iter([round(t * 1000) for t in times_us])
        monkeypatch.setattr(recording, "clock", lambda: next(readings))
    return use


def _names(events):
    return [e.name for e in events]


# ------------------------------------------------------------------ nesting and self time
def test_self_time_is_total_less_children_and_the_table_is_pytorchs(fake_clock):
    # start, outer in, inner in, mul in/out, inner out, mul in/out, outer out
    fake_clock(0, 0, 10, 11, 12.5, 15, 16, 17, 18)
    x = mg.ones(4, 3)
    with legacy.profile() as prof:
        with legacy.record_function("outer"):
            with legacy.record_function("inner"):
                x * 2
            x * 2
    outer, inner, mul1, mul2 = prof.function_events
    assert _names(prof.function_events) == ["outer", "inner", "aten::mul", "aten::mul"]
    assert (outer.cpu_time_total, outer.self_cpu_time_total) == (18.0, 12.0)
    assert (inner.cpu_time_total, inner.self_cpu_time_total) == (5.0, 3.5)
    assert (mul1.cpu_time_total, mul2.cpu_time_total) == (1.5, 1.0)
    assert mul1.cpu_parent is inner and mul2.cpu_parent is outer and outer.cpu_parent is None
    assert inner.cpu_children == [mul1] and outer.cpu_children == [inner, mul2]
    assert prof.self_cpu_time_total == 18.0
    # torch 2.13's EventList of the same events, .key_averages().table(sort_by="self_cpu_time_total")
    assert prof.key_averages().table(sort_by="self_cpu_time_total") == (
        '-------------  ------------  ------------  ------------  ------------  ------------  ------------  \n'
        '         Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  \n'
        '-------------  ------------  ------------  ------------  ------------  ------------  ------------  \n'
        '        outer        66.67%      12.000us       100.00%      18.000us      18.000us             1  \n'
        '        inner        19.44%       3.500us        27.78%       5.000us       5.000us             1  \n'
        '    aten::mul        13.89%       2.500us        13.89%       2.500us       1.250us             2  \n'
        '-------------  ------------  ------------  ------------  ------------  ------------  ------------  \n'
        'Self CPU time total: 18.000us\n')
    avg = {a.key: a for a in prof.key_averages()}
    assert avg["aten::mul"].count == 2 and avg["aten::mul"].cpu_time == 1.25


def test_the_table_with_input_shapes_and_a_row_limit(fake_clock):
    fake_clock(0, 0, 10, 11, 12.5, 15, 16, 17, 18)
    x = mg.ones(4, 3)
    with legacy.profile(record_shapes=True) as prof:
        with legacy.record_function("outer"):
            with legacy.record_function("inner"):
                x * 2
            x * 2
    assert prof.key_averages(group_by_input_shape=True).table(row_limit=2) == (  # torch 2.13's, the same events
        '-------------  ------------  ------------  ------------  ------------  ------------  ------------  '
        '----------------  \n'
        '         Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  '
        '    Input Shapes  \n'
        '-------------  ------------  ------------  ------------  ------------  ------------  ------------  '
        '----------------  \n'
        '        outer        66.67%      12.000us       100.00%      18.000us      18.000us             1  '
        '              []  \n'
        '        inner        19.44%       3.500us        27.78%       5.000us       5.000us             1  '
        '              []  \n'
        '-------------  ------------  ------------  ------------  ------------  ------------  ------------  '
        '----------------  \n'
        'Self CPU time total: 18.000us\n')
    assert prof.function_events[2].input_shapes == [[4, 3], []]


# ------------------------------------------------------------------ names
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_and_backward_events_are_named_as_pytorch_names_them(dtype):
    x = mg.randn(4, 3, dtype=dtype, requires_grad=True)
    w = mg.randn(3, 2, dtype=dtype, requires_grad=True)
    with legacy.profile() as prof:
        y = (x * 2).exp().sum() + (x @ w).relu().mean()
        y.backward()
    names = _names(prof.function_events)
    assert names[:7] == ["aten::mul", "aten::exp", "aten::sum", "aten::matmul", "aten::relu", "aten::mean", "aten::add"]
    for grad_fn in ("AddBackward0", "MulBackward0", "ExpBackward0", "SumBackward0", "ReluBackward0", "MeanBackward0"):
        outer = next(e for e in prof.function_events if e.name == "autograd::engine::evaluate_function: " + grad_fn)
        assert _names(outer.cpu_children) == [grad_fn] and outer.cpu_children[0].scope == 1
    assert names.count("torch::autograd::AccumulateGrad") >= 2  # x and w


def test_indexing_is_named_select_slice_or_index_as_pytorch_names_it():
    x = mg.randn(4, 3)
    with legacy.profile() as prof:
        x[0], x[1:3], x[mg.tensor([0, 2])]
    assert _names(prof.function_events) == ["aten::select", "aten::slice", "aten::index"]  # torch 2.13's


def test_backward_events_carry_the_name_grad_fn_name_gives():
    x = mg.randn(3, requires_grad=True)
    y = mg.lerp(x, x * 3, 0.5).sum()
    with legacy.profile() as prof:
        y.backward()
    assert y.grad_fn.name() in _names(prof.function_events)
    assert "LerpBackward0" in _names(prof.function_events)


def test_on_the_strict_stand_in_device():
    pytest.importorskip("minigrad_ckpt.testing.strict")
    x = mg.tensor(np.array([-1.0, 4.0]), device="strict", requires_grad=True)
    with legacy.profile(record_shapes=True, profile_memory=True) as prof:
        (x * x).sum().backward()
    assert _names(prof.function_events)[:2] == ["aten::mul", "aten::sum"]
    assert prof.function_events[0].input_shapes == [[2], [2]]
    assert prof.function_events[0].cpu_memory_usage == 16


def test_a_custom_function_is_named_by_its_class():
    class Cube(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = mg.randn(3, requires_grad=True)
    with legacy.profile() as prof:
        Cube.apply(x).sum().backward()
    names = _names(prof.function_events)
    assert "Cube" in names and "autograd::engine::evaluate_function: CubeBackward" in names


def test_optimizer_steps_and_zero_grad():
    w = mg.randn(3, requires_grad=True)
    opt = mg.optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    with legacy.profile() as prof:
        opt.step()
        opt.zero_grad()
    assert _names(prof.function_events) == ["Optimizer.step#Adam.step", "Optimizer.zero_grad#Adam.zero_grad"]


def test_mg_grad_accumulates_no_grad_so_shows_no_accumulate_grad():
    x = mg.randn(3, requires_grad=True)
    with legacy.profile() as prof:
        mg.autograd.grad((x * x).sum(), x)
    assert "torch::autograd::AccumulateGrad" not in _names(prof.function_events)
    assert "MulBackward0" in _names(prof.function_events)


# ------------------------------------------------------------------ record_function
def test_record_function_as_a_decorator_and_outside_a_profiler():
    @legacy.record_function("my_block")
    def block(x):
        return x.exp()

    x = mg.ones(2)
    block(x)  # no profiler: nothing to record, and no error
    with mg.profiler.profile() as prof:
        block(x)
    (e,) = [e for e in prof.events() if e.name == "my_block"]
    assert _names(e.cpu_children) == ["aten::exp"] and e.is_user_annotation


# ------------------------------------------------------------------ memory
def test_profile_memory_counts_the_bytes_each_op_made_and_parents_include_childrens():
    x = mg.ones(4, 3, dtype="float32")
    with legacy.profile(profile_memory=True) as prof:
        with legacy.record_function("block"):
            (x * 2).sum()
    block, mul, total = prof.function_events
    assert (mul.cpu_memory_usage, total.cpu_memory_usage) == (48, 4)
    assert (block.cpu_memory_usage, block.self_cpu_memory_usage) == (52, 0)
    assert "CPU Mem" in prof.key_averages().table()


def test_profile_memory_counts_no_bytes_for_a_view():
    x = mg.ones(4, 3, dtype="float64")
    with legacy.profile(profile_memory=True) as prof:
        x.reshape(12)
        x.T.reshape(12)  # not a view: a copy
    assert [e.cpu_memory_usage for e in prof.function_events if e.name == "aten::reshape"] == [0, 96]


# ------------------------------------------------------------------ schedule
@pytest.mark.parametrize("kwargs, actions", [  # torch 2.13's schedule, steps 0..13
    (dict(wait=1, warmup=1, active=2, repeat=2), "NWRSNWRSNNNNNN"),
    (dict(wait=2, warmup=0, active=1, repeat=0, skip_first=3), "NNNNNSNNSNNSNN"),
    (dict(wait=5, warmup=1, active=2, skip_first=2, skip_first_wait=1), "NNWRSNNNNNWRSN"),
])
def test_schedule_actions_are_pytorchs(kwargs, actions):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = schedule(**kwargs)
    letters = {ProfilerAction.NONE: "N", ProfilerAction.WARMUP: "W", ProfilerAction.RECORD: "R",
               ProfilerAction.RECORD_AND_SAVE: "S"}
    assert "".join(letters[s(i)] for i in range(14)) == actions


def test_schedule_records_the_active_steps_and_hands_each_cycle_over():
    seen = []

    def ready(p):
        steps = [e.trace_name for e in p.events() if e.name == "ProfilerStep*"]
        seen.append((p.step_num, steps, sum(a.count for a in p.key_averages() if a.key == "aten::mul")))

    with mg.profiler.profile(activities=[mg.profiler.ProfilerActivity.CPU], on_trace_ready=ready,
                             schedule=schedule(wait=1, warmup=1, active=2, repeat=2)) as p:
        for i in range(10):
            mg.ones(2) * i
            p.step()
    # torch 2.13: on_trace_ready at steps 4 and 8, each cycle two steps of one mul
    assert seen == [(4, ["ProfilerStep#2", "ProfilerStep#3"], 2), (8, ["ProfilerStep#6", "ProfilerStep#7"], 2)]
    assert _names(p.events()).count("aten::mul") == 2


def test_without_a_schedule_everything_is_recorded_and_steps_are_not_marked():
    with mg.profiler.profile() as p:
        for _ in range(3):
            mg.ones(2) * 2
            p.step()
    assert _names(p.events()) == ["aten::mul"] * 3


def test_acc_events_keeps_every_cycle():
    with mg.profiler.profile(schedule=schedule(wait=0, warmup=1, active=1), acc_events=True) as p:
        for _ in range(6):
            mg.ones(2) * 2
            p.step()
    assert _names(p.events()).count("aten::mul") == 3


def test_tensorboard_trace_handler_writes_a_trace_per_cycle(tmp_path):
    handler = mg.profiler.tensorboard_trace_handler(str(tmp_path), "w", use_gzip=True)
    with mg.profiler.profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2), on_trace_ready=handler) as p:
        for _ in range(5):
            mg.ones(2) * 2
            p.step()
    files = sorted(tmp_path.iterdir())
    assert len(files) == 2 and all(f.name.startswith("w.") and f.name.endswith(".pt.trace.json.gz") for f in files)
    assert "traceEvents" in json.loads(gzip.open(files[0]).read())


# ------------------------------------------------------------------ chrome trace
def test_the_chrome_trace_is_json_whose_complete_events_nest(tmp_path):
    x = mg.randn(4, 3, requires_grad=True)
    with legacy.profile(record_shapes=True) as prof:
        with legacy.record_function("block"):
            (x * 2).sum().backward()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert [e["name"] for e in complete] == _names(prof.function_events)
    block = complete[0]
    assert block["cat"] == "user_annotation" and all(e["cat"] == "cpu_op" for e in complete[1:])
    for e in complete[1:]:
        assert block["ts"] <= e["ts"] and e["ts"] + e["dur"] <= block["ts"] + block["dur"] + 1e-6
    assert complete[1]["args"]["Input Dims"] == [[4, 3], []]


def test_add_metadata_goes_to_the_top_of_its_cycles_trace(tmp_path):
    # torch 2.13: trace["test_key1"] == "test_value1", trace["test_key2"] == [1, 2, 3]; with a
    # schedule each cycle's trace has the keys added while it (and its warmup) ran; before start()
    # and after stop() a key is ignored.
    path = tmp_path / "trace.json"
    with mg.profiler.profile() as prof:
        mg.ones(1) + mg.ones(1)
        prof.add_metadata("test_key1", 'a "quoted" value')
        prof.add_metadata_json("test_key2", "[1,2,3]")
    prof.add_metadata("late", "ignored")
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    assert trace["test_key1"] == 'a "quoted" value' and trace["test_key2"] == [1, 2, 3] and "late" not in trace
    with pytest.raises(ValueError):
        prof.add_metadata_json("bad", "[1,")

    cycles = []

    def handler(p):
        p.export_chrome_trace(str(path))
        cycles.append({k: v for k, v in json.loads(path.read_text()).items() if k.startswith("m")})
    with mg.profiler.profile(schedule=schedule(wait=0, warmup=1, active=1, repeat=2), on_trace_ready=handler) as p:
        for i in range(4):
            p.add_metadata(f"m{i}", str(i))
            mg.ones(1) + 1
            p.step()
    assert cycles == [{"m0": "0", "m1": "1"}, {"m2": "2", "m3": "3"}]


# ------------------------------------------------------------------ the engine's seams
def test_inside_checkpoint_the_replay_shows_as_recomputation():
    x = mg.randn(4, 3, requires_grad=True)
    with legacy.profile() as prof:
        checkpoint(lambda a: (a.exp() * 2).sin(), x).sum().backward()
    names = _names(prof.function_events)
    (replay,) = [e for e in prof.function_events if e.name == "checkpoint::recompute"]
    assert _names(replay.cpu_children) == ["aten::exp", "aten::mul"]
    assert names.count("aten::exp") == 2  # the forward, and its replay in backward
    assert "autograd::engine::evaluate_function: SinBackward0" in names


def test_under_func_transforms():
    x = mg.randn(3)
    with legacy.profile() as prof:
        g = mg.func.grad(lambda a: (a.sin() * a).sum())(x)
        _, t = mg.func.jvp(lambda a: a.exp(), (x,), (mg.ones_like(x),))
    names = _names(prof.function_events)
    assert {"aten::sin", "aten::mul", "MulBackward0", "SinBackward0", "aten::exp"} <= set(names)
    np.testing.assert_allclose(g.numpy(), np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy()))
    np.testing.assert_allclose(t.numpy(), np.exp(x.numpy()), rtol=1e-6)


class _WhatAWorkerRecords(mg.utils.data.Dataset):
    """Each item runs an op and says what the worker's process records: profilers recording in it,
    ranges held, and whether Mul's forward is still the op's own."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        mg.ones(3) * i
        held = sum(len(c.ranges) for c in recording._local.collectors)
        wrapped = hasattr(mg.ops.registry["Mul"].__dict__.get("forward"), "_profiled")
        return np.array([len(recording._local.collectors), held, wrapped])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_worker_forked_while_profiling_records_nothing():
    # A DataLoader's workers forked inside a profiler inherited its recording: each op a worker ran
    # was recorded, for the worker's whole life, into a list nothing read (6 ranges here, growing with
    # every batch of a persistent worker), through wrappers nothing took off
    loader = mg.utils.data.DataLoader(_WhatAWorkerRecords(), batch_size=2, num_workers=2,
                                      multiprocessing_context="fork")
    with legacy.profile() as prof:
        batches = [b.numpy() for b in loader]
        mg.ones(2) * 2
    assert np.array_equal(np.concatenate(batches), np.zeros((6, 3)))
    assert "aten::mul" in _names(prof.function_events)  # the parent's own recording goes on


def test_create_graph_backward_nests_the_ops_it_records():
    x = mg.randn(3, requires_grad=True)
    with legacy.profile() as prof:
        (gx,) = mg.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (pow_backward,) = [e for e in prof.function_events if e.name == "PowBackward0"]
    assert "aten::mul" in _names(pow_backward.cpu_children)


def test_a_profiler_records_its_own_thread_only():
    x = mg.ones(3)
    go, done = threading.Event(), threading.Event()

    def other():
        go.wait()
        x * 3
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with legacy.profile() as prof:
        go.set()
        done.wait()
        x + 1
    t.join()
    assert _names(prof.function_events) == ["aten::add"]  # as torch's: the other thread's mul is not there

    found = {}

    def profiled_in_a_thread():
        with legacy.profile() as p:
            x - 1
        found["names"] = _names(p.function_events)

    with legacy.profile() as outer:
        t = threading.Thread(target=profiled_in_a_thread)
        t.start()
        t.join()
        x * 5
    assert found["names"] == ["aten::sub"] and _names(outer.function_events) == ["aten::mul"]


# ------------------------------------------------------------------ nothing left behind
def _methods():
    from minigrad_ckpt.backward import BackwardPass
    from minigrad_ckpt.checkpoint.segment import Segment
    from minigrad_ckpt.ops.base import Op
    from minigrad_ckpt.optim.optimizer import Optimizer
    classes = [*recording._subclasses(Op), *recording._subclasses(Optimizer), BackwardPass, Segment]
    names = ("forward", "backward", "step", "zero_grad", "accumulate_leaf", "rematerialize")
    return {(c, n): c.__dict__.get(n) for c in classes for n in names}


def test_the_classes_are_put_back_as_they_were():
    before = _methods()
    x = mg.randn(3, requires_grad=True)
    with legacy.profile():
        assert mg.ops.registry["Mul"].__dict__["forward"] is not before[(mg.ops.registry["Mul"], "forward")]
        (x * 2).sum().backward()
    assert _methods() == before
    with pytest.raises(KeyError), mg.profiler.profile():
        with legacy.record_function("r"):
            x * 2
            raise KeyError("escapes")
    assert _methods() == before
    with legacy.profile(), legacy.profile():  # two at once: off when the last one stops
        pass
    assert _methods() == before


def test_an_exception_inside_an_op_closes_its_event():
    x = mg.ones(3)
    with legacy.profile() as prof:
        with legacy.record_function("outer"):
            with pytest.raises(RuntimeError):
                mg.reshape(x, (2, 2))
            x * 2
    outer = prof.function_events[0]
    assert outer.name == "outer" and "aten::mul" in _names(outer.cpu_children)


def test_disabled_not_reentrant_and_no_results_before_the_end():
    with legacy.profile(enabled=False) as prof:
        mg.ones(2) * 2
    assert prof is None
    p = legacy.profile()
    with pytest.raises(RuntimeError, match="no results yet"):
        p.key_averages()
    with p:
        with pytest.raises(RuntimeError, match="not reentrant"):
            p.__enter__()
    assert p.key_averages() == []


@pytest.mark.parametrize("which", ["profiler", "autograd"])
def test_acc_events_keeps_each_cycle_at_its_own_time(which, tmp_path):
    # each cycle's times are relative to its own start: accumulated, a later cycle's events come
    # after the earlier's on the one time line (the chrome trace drew them on top of each other)
    if which == "profiler":
        p = mg.profiler.profile(schedule=schedule(wait=0, warmup=1, active=1), acc_events=True)
        with p:
            for _ in range(4):
                mg.ones(2) * 2
                time.sleep(0.02)
                p.step()
    else:
        p = mg.autograd.profiler.profile(acc_events=True)
        for _ in range(2):
            with p:
                mg.ones(2) * 2
            time.sleep(0.02)
    muls = [e for e in p.events() if e.name == "aten::mul"] if which == "profiler" else \
        [e for e in p.function_events if e.name == "aten::mul"]
    assert len(muls) == 2 and muls[1].time_range.start - muls[0].time_range.end > 15_000  # (microseconds)
    p.export_chrome_trace(str(tmp_path / "t.json"))
    ts = [e["ts"] for e in json.load(open(tmp_path / "t.json"))["traceEvents"] if e.get("name") == "aten::mul"]
    assert ts[1] - ts[0] > 15_000


def test_the_tables_column_limits_may_be_none(fake_clock):
    # torch 2.13's table takes max_name_column_width=None (and the shapes' and sources' limits) as no
    # limit; here it was a TypeError (min() of an int and None)
    fake_clock(0, 0, 10, 11)
    name = "a_record_function_name_well_beyond_the_fifty_five_character_default"
    with legacy.profile(record_shapes=True) as prof:
        with legacy.record_function(name):
            pass
    table = prof.key_averages().table(max_name_column_width=None, max_shapes_column_width=None,
                                      max_src_column_width=None)
    assert name in table and "..." not in table
    assert name[:52] + "..." in prof.key_averages().table()
