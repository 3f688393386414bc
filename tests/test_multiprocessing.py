"""mg.multiprocessing: PyTorch's torch.multiprocessing -- Python's multiprocessing and spawn.

Before it, `import torch.multiprocessing as mp` (the first lines of pytorch/examples' DDP
tutorial scripts, torchrun's included, and of scripts that set a sharing strategy) was a
ModuleNotFoundError under the rename.
"""

from __future__ import annotations

import os
import pickle
import time

import pytest

import minigrad_ckpt as mg
import minigrad_ckpt.multiprocessing as mp


def _write(i, folder, values):
    with open(os.path.join(folder, f"{i}.txt"), "w") as f:
        f.write(f"{i} {(values * (i + 1)).sum().item()} {os.getpid()}")


def _second_one_fails(i, folder):
    if i == 1:
        raise ValueError(f"bad input in process {i}")
    time.sleep(30)   # the parent ends it when process 1 fails
    _write(i, folder, mg.ones(1))


def _exits(i, code):
    if i == 0:
        os._exit(code)


def _claims_a_rank(i, world):
    from minigrad_ckpt.distributed import world as w

    class LauncherWorld:   # what a process spawned without mpiexec is: rank 0 of 1
        rank, size = 0, 1

    w._check_launcher_world(LauncherWorld(), i, world)


def test_spawn_runs_fn_with_its_index_in_each_process(tmp_path):
    values = mg.tensor([1.0, 2.0, 3.0])
    assert mp.spawn(_write, args=(str(tmp_path), values), nprocs=2) is None     # PyTorch's default: "spawn"
    lines = sorted((tmp_path / f"{i}.txt").read_text().split() for i in range(2))
    assert [(a, b) for a, b, _ in lines] == [("0", "6.0"), ("1", "12.0")]      # the tensor arrives as a copy
    assert len({pid for *_, pid in lines} | {str(os.getpid())}) == 3


def test_a_failing_process_ends_the_others_and_raises_its_traceback(tmp_path):
    t0 = time.monotonic()
    with pytest.raises(mp.ProcessRaisedException, match="(?s)Process 1 terminated with the following error.*"
                                                         "ValueError: bad input in process 1") as info:
        mp.start_processes(_second_one_fails, args=(str(tmp_path),), nprocs=2, start_method="fork")
    assert info.value.error_index == 1 and time.monotonic() - t0 < 20
    assert not (tmp_path / "0.txt").exists()


def test_an_exit_without_an_exception_is_reported_with_its_code():
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3") as info:
        mp.start_processes(_exits, args=(3,), nprocs=2, start_method="fork")
    assert info.value.exit_code == 3 and info.value.signal_name is None


def test_join_false_hands_back_the_processes(tmp_path):
    context = mp.start_processes(_write, args=(str(tmp_path), mg.ones(2)), nprocs=3, join=False, start_method="fork")
    assert len(context.pids()) == 3 and all(isinstance(p, int) for p in context.pids())
    deadline = time.monotonic() + 30
    while not context.join(timeout=1):
        assert time.monotonic() < deadline
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0.txt", "1.txt", "2.txt"]


def test_spawn_with_another_start_method_warns_as_pytorch(tmp_path):
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        mp.spawn(_write, args=(str(tmp_path), mg.ones(1)), nprocs=1, start_method="fork")
    assert (tmp_path / "0.txt").exists()


def test_a_spawned_process_claiming_a_rank_is_told_how_to_start_the_world():
    with pytest.raises(mp.ProcessRaisedException, match="(?s)world_size=2.*one-process world of its own.*mpiexec"):
        mp.start_processes(_claims_a_rank, args=(2,), nprocs=2, start_method="fork")


def test_the_standard_library_and_the_sharing_strategies():
    import multiprocessing

    assert mp.Process is multiprocessing.Process and mp.cpu_count() >= 1 and mp.get_context("fork")
    assert mg.multiprocessing is mp
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    before = mp.get_sharing_strategy()
    try:
        mp.set_sharing_strategy("file_system")
        assert mp.get_sharing_strategy() == "file_system"
        with pytest.raises(AssertionError):
            mp.set_sharing_strategy("shared_memory")
    finally:
        mp.set_sharing_strategy(before)


def _fails_while_another_ignores_sigterm(i):
    import signal

    if i == 0:
        time.sleep(0.5)
        raise RuntimeError("process 0 failed")
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # stuck where Python cannot handle the signal
    time.sleep(60)


def test_a_failure_reports_pytorchs_error_pid_and_survives_pickling():
    # before: the id was `pid` (PyTorch's ProcessException has `error_pid`: AttributeError in a handler)
    context = mp.start_processes(_exits, args=(5,), nprocs=2, join=False, start_method="fork")
    with pytest.raises(mp.ProcessExitedException) as info:
        while not context.join(timeout=10):
            pass
    error = info.value
    assert error.error_pid == context.pids()[0] and error.error_index == 0 and error.exit_code == 5
    again = pickle.loads(pickle.dumps(error))
    assert (type(again), again.error_pid, again.error_index, again.exit_code) == (
        mp.ProcessExitedException, error.error_pid, 0, 5)


def test_join_ends_a_process_that_ignores_sigterm_after_the_grace_period():
    # before: join(grace_period=...) was a TypeError, and without it a child ignoring SIGTERM hung the
    # parent forever; PyTorch waits the grace period, sends SIGTERM, waits again, then SIGKILLs
    t0 = time.monotonic()
    context = mp.start_processes(_fails_while_another_ignores_sigterm, nprocs=2, join=False, start_method="fork")
    with pytest.raises(mp.ProcessRaisedException, match="process 0 failed") as info:
        while not context.join(grace_period=0.5):
            pass
    assert info.value.error_index == 0 and time.monotonic() - t0 < 20
    assert [p.exitcode for p in context.processes][1] == -9           # SIGKILL, after SIGTERM was ignored


def _echo(inbox, outbox):
    outbox.put(inbox.get())


def test_a_non_leaf_that_requires_grad_is_refused_at_the_process_boundary():
    # before: it went through every channel and arrived as a fresh leaf that requires grad, so a
    # child's backward through it silently reached nothing; PyTorch's reductions refuse it
    history = mg.arange(1.0, 7.0).requires_grad_(True) * 2
    sender, _ = mp.Pipe()
    with mp.get_context("fork").Pool(1) as pool:
        for send in (mp.SimpleQueue().put, sender.send, lambda obj: pool.apply(len, (obj,))):
            with pytest.raises(RuntimeError, match="(?s)non-leaf tensor which requires_grad.*detach()"):
                send([1, {"t": history}])
    # plain pickling is not a process boundary: values as a fresh leaf, as PyTorch's
    assert pickle.loads(pickle.dumps(history)).requires_grad


def test_leaves_detached_values_and_parameters_still_cross_as_they_were():
    with mg.no_grad():
        no_history = mg.ones(2, requires_grad=True) * 2
    sent = [mg.arange(4.0, dtype=mg.float32).requires_grad_(True), mg.arange(3.0).requires_grad_(True).mul(3).detach(),
            no_history, mg.nn.Parameter(mg.zeros(2, dtype=mg.float32)), mg.tensor([], dtype=mg.int64)]
    inbox, outbox = mp.Queue(), mp.Queue()
    child = mp.get_context("fork").Process(target=_echo, args=(inbox, outbox), daemon=True)
    child.start()
    inbox.put(sent)
    got = outbox.get(timeout=60)
    child.join(60)
    assert child.exitcode == 0
    assert [(type(t), t.dtype, t.requires_grad, t.tolist()) for t in got] == [
        (type(t), t.dtype, t.requires_grad, t.tolist()) for t in sent]


class _OneBatchHasAHistory(mg.utils.data.Dataset):
    weight = mg.ones(3, requires_grad=True)

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return self.weight * i if i == 1 else mg.full((3,), float(i), dtype=mg.float32)


def test_a_worker_batch_with_a_history_is_an_error_at_its_place():
    loader = mg.utils.data.DataLoader(_OneBatchHasAHistory(), batch_size=None, num_workers=1, timeout=30)
    batches = iter(loader)
    assert next(batches).tolist() == [0.0] * 3
    with pytest.raises(RuntimeError, match="non-leaf tensor which requires_grad"):
        next(batches)
    last = next(batches)
    assert last.tolist() == [2.0] * 3 and last.dtype == mg.float32 and not last.requires_grad


def _raises_a_long_message(i):
    raise ValueError("long " + "x" * 200_000)


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_a_traceback_longer_than_a_pipe_holds_is_reported(start_method):
    # before: the child wrote its traceback into a pipe the parent read only after the child ended,
    # so a traceback over the pipe's buffer (64 KiB on Linux) blocked the child and the parent forever
    context = mp.start_processes(_raises_a_long_message, nprocs=2, join=False, start_method=start_method)
    deadline = time.monotonic() + 30
    try:
        with pytest.raises(mp.ProcessRaisedException, match="ValueError: long x{200000}\n$") as info:
            while not context.join(timeout=1):
                assert time.monotonic() < deadline, "start_processes hung on a long traceback"
    finally:
        for p in context.processes:
            p.kill()
            p.join()
    assert info.value.error_index in (0, 1)


def _sleeps(i):
    time.sleep(60)


def _starts_a_sleeper_then_waits(pids):
    context = mp.start_processes(_sleeps, nprocs=1, join=False, start_method="fork")
    pids.put(context.pids()[0])
    time.sleep(60)


@pytest.mark.skipif(not os.sys.platform.startswith("linux"), reason="prctl(2) is Linux's")
def test_a_child_ends_when_its_parent_is_killed():
    # before: a parent killed with SIGKILL left its children running (PyTorch's get SIGINT from prctl)
    import signal

    ctx = mp.get_context("fork")
    pids = ctx.Queue()
    parent = ctx.Process(target=_starts_a_sleeper_then_waits, args=(pids,))  # (a daemon may not have children)
    parent.start()
    try:
        child = pids.get(timeout=30)
    except BaseException:
        parent.kill()
        raise
    time.sleep(0.2)   # the child has asked for the signal by now (a request after the death ends it too)
    parent.kill()
    parent.join(30)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                return
            time.sleep(0.1)
        pytest.fail("the child outlived its killed parent")
    finally:
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
