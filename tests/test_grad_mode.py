"""Grad mode: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``is_grad_enabled``."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minigrad_ckpt as mg


def records() -> bool:
    """Whether an op on a requires-grad tensor is recorded right now."""
    return (mg.ones(1, requires_grad=True) * 2).requires_grad


def test_enabled_by_default():
    assert mg.is_grad_enabled()
    assert records()


def test_no_grad_context():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with mg.no_grad():
        assert not mg.is_grad_enabled()
        y = x * 2
        assert not y.requires_grad and y.is_leaf
        assert not records()
    assert mg.is_grad_enabled()
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0])


def test_enable_grad_inside_no_grad():
    with mg.no_grad():
        with mg.enable_grad():
            assert mg.is_grad_enabled()
            assert records()
        assert not mg.is_grad_enabled()
    assert mg.is_grad_enabled()


def test_nested_no_grad_restores_outer_state():
    with mg.no_grad():
        with mg.no_grad():
            assert not mg.is_grad_enabled()
        assert not mg.is_grad_enabled()
    assert mg.is_grad_enabled()


@pytest.mark.parametrize("mode", [True, False])
def test_set_grad_enabled_context(mode):
    with mg.set_grad_enabled(mode):
        assert mg.is_grad_enabled() is mode
        assert records() is mode
    assert mg.is_grad_enabled()
    with mg.no_grad():
        with mg.set_grad_enabled(mode):
            assert mg.is_grad_enabled() is mode
        assert not mg.is_grad_enabled()


def test_set_grad_enabled_coerces_to_bool():
    with mg.set_grad_enabled(0):
        assert mg.is_grad_enabled() is False


def test_no_grad_decorator():
    @mg.no_grad()
    def evaluate(x):
        """Docstring kept."""
        return mg.is_grad_enabled(), x * 2

    x = mg.tensor([1.0], requires_grad=True)
    enabled, y = evaluate(x)
    assert enabled is False
    assert not y.requires_grad
    assert mg.is_grad_enabled()
    assert evaluate.__name__ == "evaluate"
    assert evaluate.__doc__ == "Docstring kept."


def test_enable_grad_decorator_inside_no_grad():
    @mg.enable_grad()
    def f():
        return mg.is_grad_enabled()

    with mg.no_grad():
        assert f() is True
        assert not mg.is_grad_enabled()


@pytest.mark.parametrize("mode", [True, False])
def test_set_grad_enabled_decorator(mode):
    @mg.set_grad_enabled(mode)
    def f(a, b=1):
        return mg.is_grad_enabled(), a + b

    assert f(1, b=2) == (mode, 3)
    assert mg.is_grad_enabled()


def test_decorator_is_reusable():
    deco = mg.no_grad()

    @deco
    def f():
        return mg.is_grad_enabled()

    assert [f(), f(), f()] == [False, False, False]
    assert mg.is_grad_enabled()


@pytest.mark.parametrize("ctx", [mg.no_grad, mg.enable_grad, lambda: mg.set_grad_enabled(False)])
def test_context_restores_on_exception(ctx):
    for outer in (True, False):
        with mg.set_grad_enabled(outer):
            with pytest.raises(KeyError):
                with ctx():
                    raise KeyError("boom")
            assert mg.is_grad_enabled() is outer


@pytest.mark.parametrize("deco", [mg.no_grad, mg.enable_grad, lambda: mg.set_grad_enabled(False)])
def test_decorator_restores_on_exception(deco):
    @deco()
    def f():
        raise ValueError("boom")

    for outer in (True, False):
        with mg.set_grad_enabled(outer):
            with pytest.raises(ValueError, match="boom"):
                f()
            assert mg.is_grad_enabled() is outer


def test_grad_mode_is_per_thread():
    inside = threading.Event()
    release = threading.Event()
    seen = {}

    def worker():
        with mg.no_grad():
            inside.set()
            release.wait(5)
            seen["worker"] = mg.is_grad_enabled()
            seen["worker_records"] = records()

    t = threading.Thread(target=worker)
    t.start()
    assert inside.wait(5)
    # the worker is inside no_grad right now; this thread is unaffected
    seen["main"] = mg.is_grad_enabled()
    seen["main_records"] = records()
    release.set()
    t.join(5)
    assert seen == {"main": True, "main_records": True, "worker": False, "worker_records": False}


def test_new_thread_starts_enabled_even_if_spawner_is_in_no_grad():
    seen = []
    with mg.no_grad():
        t = threading.Thread(target=lambda: seen.append(mg.is_grad_enabled()))
        t.start()
        t.join(5)
    assert seen == [True]


def test_backward_inside_no_grad_still_works():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    with mg.no_grad():
        y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])
    assert mg.is_grad_enabled()


def test_backward_restores_grad_mode():
    x = mg.tensor([1.0], requires_grad=True)
    (x * x).sum().backward()
    assert mg.is_grad_enabled()
    with mg.no_grad():
        (x * 1.0)  # nothing recorded
    y = (x * x).sum()
    y.backward(create_graph=True)
    assert mg.is_grad_enabled()


# ------------------------------------------------ the count of threads with recording off
# ``tape.apply`` reads the thread-local switch only while some thread has recording off
# (``grad_mode.grad_off``); these check that the count always tells the truth.
def test_every_way_of_switching_leaves_the_count_at_zero():
    from minigrad_ckpt.grad_mode import grad_off

    assert grad_off.active == 0

    @mg.no_grad
    def bare():
        return records()

    @mg.enable_grad()
    def inner():
        return records()

    with mg.no_grad():
        assert grad_off.active == 1 and not records()
        with mg.enable_grad():
            assert grad_off.active == 0 and records()
        assert inner() and not records()
    assert not bare() and records()
    mg.set_grad_enabled(False)
    assert grad_off.active == 1 and not records()
    mg.set_grad_enabled(False)  # switching to the mode already on changes nothing
    assert grad_off.active == 1
    mg.set_grad_enabled(True)
    assert grad_off.active == 0 and records()
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()  # a backward pass switches recording off while it runs
    mg.grad((x * x).sum(), x, create_graph=True)
    assert grad_off.active == 0 and records()


@pytest.mark.parametrize("worker_mode", [False, True])
def test_a_thread_with_recording_off_never_changes_what_another_records(worker_mode):
    from minigrad_ckpt.grad_mode import grad_off

    switched, release = threading.Event(), threading.Event()
    seen = {}

    def worker():
        with mg.set_grad_enabled(worker_mode):
            switched.set()
            release.wait(5)
            seen["worker"] = records()

    t = threading.Thread(target=worker)
    t.start()
    assert switched.wait(5)
    assert grad_off.active == (0 if worker_mode else 1)
    seen["main"] = records()
    with mg.no_grad():
        seen["main_off"] = records()
    release.set()
    t.join(5)
    assert seen == {"main": True, "main_off": False, "worker": worker_mode}
    assert grad_off.active == 0


# Generators: PyTorch (torch/utils/_contextlib.py, _wrap_generator) sets the mode around each
# resumption of the body and gives the caller its own mode back at each yield.  The expected
# values below are what torch 2.13 gives for the same programs with torch.no_grad & co.
_GENERATOR_MODES = [
    (lambda: mg.no_grad(), False), (lambda: mg.no_grad, False), (lambda: mg.enable_grad(), True),
    (lambda: mg.enable_grad, True), (lambda: mg.inference_mode(), False), (lambda: mg.inference_mode, False),
    (lambda: mg.set_grad_enabled(False), False), (lambda: mg.set_grad_enabled(True), True),
]


@pytest.mark.parametrize(("deco", "inside"), _GENERATOR_MODES)
@pytest.mark.parametrize("outer", [True, False])
def test_decorated_generator_runs_in_the_mode_and_yields_to_the_callers(deco, inside, outer):
    @deco()
    def gen(x):
        """Docstring kept."""
        got = yield records(), mg.is_grad_enabled(), (x * 2).requires_grad
        yield got, mg.is_grad_enabled()
        return "done"

    with mg.set_grad_enabled(outer):
        g = gen(mg.tensor([1.0], requires_grad=True))
        assert mg.is_grad_enabled() is outer  # calling it runs nothing
        assert next(g) == (inside, inside, inside)
        assert mg.is_grad_enabled() is outer  # between yields: the caller's mode
        assert records() is outer
        assert g.send("sent") == ("sent", inside)
        assert mg.is_grad_enabled() is outer
        with pytest.raises(StopIteration) as stop:
            next(g)
        assert stop.value.value == "done"
        assert mg.is_grad_enabled() is outer
    assert gen.__doc__ == "Docstring kept."


def test_no_grad_generator_as_in_the_report():
    # torch: list(gen()) == [False] under @torch.no_grad()
    x = mg.tensor([1.0], requires_grad=True)

    @mg.no_grad()
    def gen():
        yield (x * 2).requires_grad

    assert list(gen()) == [False]


@pytest.mark.parametrize(("deco", "inside"), _GENERATOR_MODES[:4])
def test_decorated_generator_throw_and_close_run_in_the_mode(deco, inside):
    seen = []

    @deco()
    def gen():
        try:
            yield 1
        except ValueError:
            seen.append(("caught", mg.is_grad_enabled()))
            yield 2
        finally:
            seen.append(("finally", mg.is_grad_enabled()))

    for outer in (True, False):
        seen.clear()
        with mg.set_grad_enabled(outer):
            g = gen()
            next(g)
            assert g.throw(ValueError("in")) == 2
            assert mg.is_grad_enabled() is outer
            g.close()
            assert mg.is_grad_enabled() is outer
        assert seen == [("caught", inside), ("finally", inside)]
        g = gen()
        next(g)
        with pytest.raises(KeyError):  # not caught inside: it comes out, the caller's mode back
            g.throw(KeyError("out"))
        assert mg.is_grad_enabled()


def test_inference_mode_false_turns_recording_on_as_pytorchs():
    # torch 2.13: under torch.no_grad(), `with torch.inference_mode(False)` and a generator decorated
    # with it both see torch.is_grad_enabled() == True (its guard sets grad mode to `not mode`)
    @mg.inference_mode(False)
    def gen():
        yield mg.is_grad_enabled()

    for outer in (True, False):
        with mg.set_grad_enabled(outer):
            assert list(gen()) == [True]
            with mg.inference_mode(False):
                assert records()
            assert mg.is_grad_enabled() is outer


# inference_mode as a decorator: each call (and each resumption of a generator) switches both
# inference mode and grad mode and puts back what *that* call found, as PyTorch's (its decorator
# enters a fresh clone of the context per call).  Expected values: torch 2.13 on the same programs.
def test_an_inference_mode_generator_runs_in_inference_mode():
    x = mg.tensor([1.0], requires_grad=True)

    @mg.inference_mode()
    def gen():
        yield mg.is_inference_mode_enabled(), (x * 2).requires_grad
        yield mg.is_inference_mode_enabled(), (x * 2).requires_grad

    seen = [(inside, mg.is_inference_mode_enabled()) for inside in gen()]
    assert seen == [((True, False), False), ((True, False), False)]


def test_an_inference_mode_false_generator_records_inside_inference_mode():
    # torch: [(True, False)] -- recording on, inference mode off, inside the generator
    x = mg.tensor([1.0], requires_grad=True)

    @mg.inference_mode(False)
    def gen():
        yield (x * 2).requires_grad, mg.is_inference_mode_enabled()

    with mg.inference_mode():
        assert list(gen()) == [(True, False)]
        assert mg.is_inference_mode_enabled() and not records()


def test_jvp_pushes_no_tangent_through_an_inference_mode_generator():
    # torch.func.jvp: the value made in inference mode is a constant, so the tangent is cos(a) only
    @mg.inference_mode()
    def gen(a):
        yield a * 3

    def f(a):
        return next(gen(a)) + a.sin()

    a = mg.tensor([0.5, -1.2])
    _, tangent = mg.func.jvp(f, (a,), (mg.ones(2),))
    np.testing.assert_allclose(tangent.numpy(), np.cos(a.numpy()), rtol=1e-6)


@pytest.mark.parametrize("deco", [lambda: mg.inference_mode(), lambda: mg.no_grad(),
                                  lambda: mg.set_grad_enabled(False)])
def test_a_recursive_decorated_function_gives_the_callers_mode_back(deco):
    # torch: after f(2) returns, grad mode is on and inference mode off again
    @deco()
    def f(n):
        if n:
            f(n - 1)
        return records()

    assert f(2) is False
    assert mg.is_grad_enabled() and records() and not mg.is_inference_mode_enabled()


def test_one_inference_mode_decorated_function_in_two_threads():
    # Thread "on" enters with grad mode on; while it is inside, thread "off" calls the same function
    # under no_grad and returns.  Each must find its own mode again when its call returns.
    on_inside, leave_on, no_wait = threading.Event(), threading.Event(), threading.Event()
    no_wait.set()
    after = {}

    @mg.inference_mode()
    def f(signal, wait):
        signal.set()
        wait.wait(5)

    def on():
        f(on_inside, leave_on)
        after["on"] = (mg.is_grad_enabled(), records(), mg.is_inference_mode_enabled())

    def off():
        with mg.no_grad():
            f(threading.Event(), no_wait)
            after["off"] = (mg.is_grad_enabled(), mg.is_inference_mode_enabled())

    t_on = threading.Thread(target=on)
    t_on.start()
    on_inside.wait(5)
    t_off = threading.Thread(target=off)
    t_off.start()
    t_off.join(5)
    leave_on.set()
    t_on.join(5)
    assert after == {"on": (True, True, False), "off": (False, False)}
