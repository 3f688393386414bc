"""PyTorch's autocast state queries (``torch.is_autocast_enabled``, ``get_autocast_dtype``, ``set_*``,
the cache and nesting counters, the deprecated per-device spellings and ``torch.cpu.amp``/
``torch.cuda.amp.autocast``) were AttributeErrors, so ported code asking "is autocast on?" failed;
``mg.autocast`` kept no state at all.  Expected answers: torch 2.13 (CPU build), probed offline.
The state is a setting: ops still run in their inputs' dtype."""

from __future__ import annotations

import threading
import warnings

import pytest

import minigrad_ckpt as mg


@pytest.fixture(autouse=True)
def _quiet_and_clean(monkeypatch):
    monkeypatch.setattr(mg.autocast, "_warned", True)  # (the one-time "no lower precision" warning)
    yield
    mg.set_autocast_enabled("cpu", False)
    mg.set_autocast_enabled("cuda", False)
    mg.set_autocast_dtype("cpu", mg.bfloat16)
    mg.set_autocast_dtype("cuda", mg.float16)
    mg.set_autocast_cache_enabled(True)


def _state(device="cpu"):
    return mg.is_autocast_enabled(device), mg.get_autocast_dtype(device), mg.is_autocast_cache_enabled()


def test_defaults_are_pytorchs_and_bfloat16_is_the_name_only_dtype():
    assert _state("cpu") == (False, mg.bfloat16, True)
    assert _state("cuda") == (False, mg.float16, True)
    assert mg.is_autocast_enabled() is False  # no argument: cuda, PyTorch's older meaning
    assert mg.get_autocast_dtype("cuda:0") == mg.float16 and mg.get_autocast_dtype("xla") is mg.bfloat16
    with pytest.raises(TypeError, match="bfloat16 is not offered.*float32"):  # never a silent float32
        mg.ones(2).to(mg.get_autocast_dtype("cpu"))


def test_nested_blocks_set_and_restore_the_state():
    with mg.autocast("cpu"):
        assert _state() == (True, mg.bfloat16, True) and not mg.is_autocast_enabled("cuda")
        with mg.autocast("cpu", dtype=mg.float16):
            assert _state() == (True, mg.float16, True)
            with mg.autocast("cpu", enabled=False):  # off, and the dtype it names is the current one
                assert _state() == (False, mg.float16, True)
            assert _state() == (True, mg.float16, True)
            with mg.autocast("cpu", cache_enabled=False):  # dtype=None: the current dtype, as made
                assert _state() == (True, mg.float16, False)
        assert _state() == (True, mg.bfloat16, True)
        x = mg.ones(2, 2, dtype=mg.float64, requires_grad=True)
        y = (x @ x).sum()
    assert _state() == (False, mg.bfloat16, True)
    assert y.dtype == mg.float64  # ops keep their inputs' dtype


def test_nesting_counter_and_cache_are_pytorchs():
    assert mg.autocast_increment_nesting() == 1
    with mg.autocast("cpu"):
        assert mg.autocast_increment_nesting() == 3
        assert mg.autocast_decrement_nesting() == 2
    assert mg.autocast_decrement_nesting() == 0 and mg.autocast_decrement_nesting() == -1
    assert mg.autocast_increment_nesting() == 0
    mg.set_autocast_cache_enabled(False)
    assert mg.is_autocast_cache_enabled() is False
    assert mg.clear_autocast_cache() is None


def test_setters_and_their_refusals():
    mg.set_autocast_enabled("cpu", True)
    assert mg.is_autocast_enabled("cpu")
    mg.set_autocast_enabled(True)  # one argument: cuda
    assert mg.is_autocast_enabled() and mg.is_autocast_enabled("cuda:1")
    mg.set_autocast_dtype("cpu", mg.float64)  # PyTorch's setter takes any dtype
    assert mg.get_autocast_dtype("cpu") == mg.float64
    with pytest.raises(TypeError, match="must be bool, not int"):
        mg.set_autocast_enabled("cpu", 1)
    with pytest.raises(TypeError, match="must be str, not int"):
        mg.is_autocast_enabled(1)
    with pytest.raises(RuntimeError, match="device type at start of device string: xyz"):
        mg.is_autocast_enabled("xyz")
    with pytest.raises(RuntimeError, match="unknown device type for autocast"):
        mg.get_autocast_dtype("meta")
    with pytest.raises(TypeError, match="must be torch.dtype"):
        mg.set_autocast_dtype("cpu", 3)


def test_device_strings_with_an_index_and_unsupported_dtypes():
    with mg.autocast("cpu:0"):
        assert mg.is_autocast_enabled("cpu")
    assert mg.amp.is_autocast_available("cuda:0") and mg.amp.is_autocast_available("cpu:1")
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported"):
        ac = mg.autocast("cpu", dtype=mg.float32)
    with ac:  # off, and naming float32, as PyTorch's
        assert _state() == (False, mg.float32, True)
    assert _state() == (False, mg.bfloat16, True)


@pytest.mark.skipif(mg.cuda.is_available(), reason="a GPU is visible: cuda autocast is on")
def test_cuda_without_a_gpu_warns_and_stays_off():
    for device in ("cuda", "cuda:0"):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            ac = mg.autocast(device)
        with ac:
            assert not mg.is_autocast_enabled("cuda") and mg.get_autocast_dtype("cuda") == mg.float16


def test_an_exception_leaves_the_state_as_it_was():
    with pytest.raises(ValueError):
        with mg.autocast("cpu", dtype=mg.float16, cache_enabled=False):
            raise ValueError
    assert _state() == (False, mg.bfloat16, True)
    assert mg.autocast_increment_nesting() == 1 and mg.autocast_decrement_nesting() == 0


def test_decorator_takes_the_dtype_when_made_and_restores_after_recursion():
    mg.set_autocast_dtype("cpu", mg.float16)

    @mg.autocast("cpu")
    def inner(n):
        return inner(n - 1) if n else _state()

    mg.set_autocast_dtype("cpu", mg.bfloat16)
    assert inner(3) == (True, mg.float16, True)
    # PyTorch's instance keeps one saved state, and leaves autocast on after a recursion; here each
    # entry restores its own
    assert _state() == (False, mg.bfloat16, True)
    with pytest.raises(TypeError, match="requires a callable"):
        mg.autocast("cpu")(3)


def test_the_state_is_per_thread():
    seen = {}

    def other():
        seen["start"] = _state()
        with mg.autocast("cpu", dtype=mg.float16):
            seen["inside"] = _state()
            gate.wait()
        seen["nesting"] = mg.autocast_increment_nesting()
        mg.autocast_decrement_nesting()

    gate = threading.Event()
    mg.set_autocast_dtype("cpu", mg.float16)
    with mg.autocast("cpu", cache_enabled=False):
        t = threading.Thread(target=other)
        t.start()
        while "inside" not in seen:
            t.join(0.01)
        assert _state() == (True, mg.float16, False)  # the other thread's block changes nothing here
        gate.set()
        t.join()
    assert seen == {"start": (False, mg.bfloat16, True), "inside": (True, mg.float16, True), "nesting": 1}


def test_a_decorated_function_in_two_threads_restores_each_threads_state():
    gate, results = threading.Barrier(2), []

    @mg.autocast("cpu")
    def f():
        gate.wait()  # both threads inside at once
        return mg.is_autocast_enabled("cpu")

    def run():
        results.append((f(), mg.is_autocast_enabled("cpu")))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [(True, False), (True, False)]


class _Records(mg.autograd.Function):
    seen: list = []

    @staticmethod
    def forward(ctx, x):
        _Records.seen.append((mg.is_autocast_enabled("cpu"), mg.get_autocast_dtype("cpu"),
                              mg.is_autocast_cache_enabled()))
        y = x * x
        ctx.save_for_backward(y)  # an intermediate: only running forward again rebuilds it
        return y.sum()

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * 2 * y.sqrt()


def test_checkpoint_replay_runs_under_the_forward_passs_autocast_state():
    # torch 2.13: the recomputation sees the forward's state, whatever the backward runs under
    x = mg.ones(2, dtype=mg.float64, requires_grad=True)
    _Records.seen = []
    with mg.autocast("cpu", dtype=mg.float16, cache_enabled=False):
        y = mg.checkpoint.checkpoint(_Records.apply, x, use_reentrant=False)
    y.backward()
    forward_state = (True, mg.float16, False)
    assert _Records.seen == [forward_state, forward_state]
    _Records.seen = []
    y = mg.checkpoint.checkpoint(_Records.apply, x, use_reentrant=False)
    with mg.autocast("cpu"):
        y.backward()
        assert _state() == (True, mg.bfloat16, True)  # the replay put the backward's state back
    assert _Records.seen == [(False, mg.bfloat16, True)] * 2
    assert x.grad.tolist() == [4.0, 4.0]


def test_deprecated_spellings_warn_as_pytorchs():
    with pytest.warns(DeprecationWarning, match=r"is_autocast_cpu_enabled\(\) is deprecated"):
        assert mg.is_autocast_cpu_enabled() is False
    with pytest.warns(DeprecationWarning, match="get_autocast_cpu_dtype"):
        assert mg.get_autocast_cpu_dtype() is mg.bfloat16
    with pytest.warns(DeprecationWarning, match="get_autocast_gpu_dtype"):
        assert mg.get_autocast_gpu_dtype() == mg.float16
    with pytest.warns(DeprecationWarning, match="set_autocast_cpu_dtype"):
        mg.set_autocast_cpu_dtype(mg.float16)
    with pytest.warns(DeprecationWarning, match="set_autocast_cpu_enabled"):
        mg.set_autocast_cpu_enabled(True)
    assert _state() == (True, mg.float16, True)
    mg.set_autocast_enabled("cpu", False)
    with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
        ac = mg.cpu.amp.autocast(dtype=mg.float16)
    with ac:
        assert _state() == (True, mg.float16, True)
    with pytest.warns(FutureWarning, match="torch.cpu.amp.autocast"):
        ac = mg.cpu.amp.autocast()
    mg.set_autocast_dtype("cpu", mg.bfloat16)
    with ac:
        assert _state() == (True, mg.bfloat16, True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mg.cuda.amp.autocast()
        mg.cuda.amp.GradScaler()
        assert mg.cpu.amp.GradScaler().is_enabled()
    messages = [str(w.message) for w in caught if w.category is FutureWarning]
    assert any("torch.cuda.amp.autocast(args...)` is deprecated" in m for m in messages)
    assert any("torch.cuda.amp.GradScaler(args...)` is deprecated" in m for m in messages)
    assert any("torch.cpu.amp.GradScaler(args...)` is deprecated" in m for m in messages)


def test_a_captured_state_does_not_follow_later_settings():
    # (capture() hands out the state's dicts without a copy -- it runs on every custom Function call --
    # so no setter may change them in place)
    from minigrad_ckpt import autocast_state

    snapshot = autocast_state.capture()
    mg.set_autocast_enabled("cpu", True)
    mg.set_autocast_dtype("cpu", mg.float16)
    assert snapshot[0].get("cpu", False) is False and snapshot[1]["cpu"] is mg.bfloat16
    with autocast_state.restored(snapshot):
        assert not mg.is_autocast_enabled("cpu") and mg.get_autocast_dtype("cpu") is mg.bfloat16
        mg.set_autocast_enabled("cpu", True)  # (a replayed forward may set it: undone on leaving)
    assert mg.is_autocast_enabled("cpu") and mg.get_autocast_dtype("cpu") == mg.float16
    assert snapshot[0].get("cpu", False) is False
