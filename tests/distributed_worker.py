"""Scenarios run by tests/test_distributed.py, each under ``mpiexec -n 2`` (or alone).

    mpiexec -n 2 python tests/distributed_worker.py SCENARIO [ARGS...]

A scenario asserts on every rank; a failed assertion is an unhandled
exception, which aborts the whole job (the test sees a non-zero exit).  What
the test needs to read is printed as ``RESULT <rank> <json>`` lines.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import distributed as dist
from minigrad_ckpt import nn, optim
from minigrad_ckpt.nn.parallel import DistributedDataParallel as DDP


def result(value) -> None:
    sys.stdout.write(f"RESULT {dist.get_rank()} {json.dumps(value)}\n")
    sys.stdout.flush()


def digest(model) -> str:
    h = hashlib.sha256()
    for _, p in model.named_parameters():
        h.update(np.ascontiguousarray(p.numpy()).tobytes())
    return h.hexdigest()


def assert_same_on_all_ranks(model, what: str) -> None:
    every = dist.group().allgather_object(digest(model))
    assert len(set(every)) == 1, f"{what}: parameters differ between ranks: {every}"


def mlp():
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 4))


def cnn():
    # narrow images: both convolutions take channels-last columns, the second (3 wide) also
    # its input gradient as a flipped convolution; the ReLU writes in place (recorded on the tape)
    return nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
                         nn.Conv2d(3, 4, 3, padding=1), nn.Tanh(), nn.Flatten(), nn.Linear(4 * 3 * 3, 4))


class _Attention(nn.Module):
    """A causal transformer block between two Linears: layer norms, packed self-attention with
    its fused softmax, GELU, and a product by a number -- the ops that keep the least."""

    def __init__(self) -> None:
        super().__init__()
        self.inp, self.out = nn.Linear(8, 16), nn.Linear(16, 4)
        self.block = nn.TransformerBlock(4, 2, causal=True, activation="gelu_tanh")

    def forward(self, x):
        h = self.block(mg.reshape(self.inp(x), (x.shape[0], 4, 4)))
        return self.out(mg.reshape(h, (x.shape[0], 16)) * 0.5)


class _TiedSteps(nn.Module):
    """A recurrence over the 4 steps of a projection unbound along its step axis, one cell and one head
    for every step: each step's gradient goes into the projection's at its index, and the tied weights'
    partial sums are added in place before DDP's hooks take them (backward._add_at, _sum_into)."""

    def __init__(self) -> None:
        super().__init__()
        self.inp, self.cell, self.head = nn.Linear(8, 16), nn.Linear(4, 4), nn.Linear(4, 4)

    def forward(self, x):
        h, out = None, None
        for x_t in mg.reshape(self.inp(x), (x.shape[0], 4, 4)).unbind(1):
            h = mg.tanh(self.cell(x_t) if h is None else self.cell(x_t) + h)
            out = self.head(h) if out is None else out + self.head(h)
        return out


class _LSTMCellSteps(nn.Module):
    """Two LSTMCell steps over the 4 steps of a projection, one input feature each to the first cell
    (its outer-product path), then a head: the cells' one-node steps and their summed bias gradients."""

    def __init__(self) -> None:
        super().__init__()
        self.inp, self.head = nn.Linear(8, 4), nn.Linear(3, 4)
        self.first, self.second = nn.LSTMCell(1, 3), nn.LSTMCell(3, 3)

    def forward(self, x):
        state1 = state2 = None
        for x_t in mg.split(self.inp(x), 4, axis=1):
            state1 = self.first(x_t, state1)
            state2 = self.second(state1[0], state2)
        return self.head(state2[0])


def wide_regression():
    # images 18 wide: the second convolution (8 input channels) takes its input gradient by
    # widened rows; trained on the fused regression losses (see regression_loss below)
    return nn.Sequential(nn.Conv2d(2, 8, 3, padding=1), nn.Tanh(), nn.Conv2d(8, 4, 3, padding=1), nn.Flatten(),
                         nn.Linear(4 * 3 * 18, 4))


def make_model(kind: str):
    return {"mlp": mlp, "cnn": cnn, "attention": _Attention, "wide": wide_regression, "tied": _TiedSteps,
            "lstm": _LSTMCellSteps}[kind]()


def data(kind: str, step: int, batch: int):
    rng = np.random.default_rng(1000 + step)
    x = rng.standard_normal({"cnn": (batch, 2, 6, 6), "wide": (batch, 2, 3, 18)}.get(kind, (batch, 8)))
    y = rng.standard_normal((batch, 4)) if kind == "wide" else rng.integers(0, 4, size=batch)
    return x, y


def summed_loss(kind: str, out, y):
    """The batch's summed loss: cross-entropy for classes, three regression losses (each one op
    of input and target) for the wide model."""
    if kind != "wide":
        return nn.functional.cross_entropy(out, y, reduction="sum")
    F = nn.functional
    return (F.mse_loss(out, y, reduction="sum") + F.smooth_l1_loss(out, y, reduction="sum", beta=0.5)
            + F.l1_loss(out, y, reduction="sum"))


def make_opt(name: str, params):
    if name == "sgd":
        return optim.SGD(params, lr=0.1, momentum=0.9)
    return optim.Adam(params, lr=0.01)


def rel_err(a, b) -> float:
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


class Checkpointed(nn.Module):
    """``model`` run through ``checkpoint_sequential`` in 2 segments."""

    def __init__(self, seq):
        super().__init__()
        self.seq = seq

    def forward(self, x):
        from minigrad_ckpt.checkpoint import checkpoint_sequential

        return checkpoint_sequential(self.seq, 2, x)


def train(model, opt, kind, steps, batch, shard, no_sync_micro=1, check=None):
    """``steps`` steps on the global batches; this process takes the rows in ``shard``."""
    for step in range(steps):
        x, y = data(kind, step, batch)
        x, y = x[shard], y[shard]
        opt.zero_grad()
        micro = np.array_split(np.arange(len(y)), no_sync_micro)
        for i, rows in enumerate(micro):
            xin = mg.tensor(x[rows])
            ctx = model.no_sync() if (isinstance(model, DDP) and i < len(micro) - 1) else _null()
            with ctx:
                out = model(xin)
                loss = summed_loss(kind, out, mg.tensor(y[rows])) * (1.0 / batch * (
                    dist.get_world_size() if isinstance(model, DDP) else 1))
                loss.backward()
        opt.step()
        if check is not None:
            check(step)


class _null:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def scenario_equivalence() -> None:
    mg.set_default_dtype("float64")
    rank, world = dist.get_rank(), dist.get_world_size()
    batch = 8
    shard = slice(rank * batch // world, (rank + 1) * batch // world)
    worst = {}
    # (not Adam for attention: its key bias has a zero gradient in exact arithmetic -- softmax
    # ignores a constant per row -- and Adam turns that gradient's round-off into steps of lr)
    for kind, optimizers in (("mlp", ("sgd", "adam")), ("cnn", ("sgd", "adam")), ("attention", ("sgd",)),
                             ("wide", ("sgd",)), ("tied", ("sgd",)),
                             ("lstm", ("adam",))):
        for opt_name in optimizers:
            mg.manual_seed(0)
            ref = make_model(kind)
            init = {k: v.numpy().copy() for k, v in ref.state_dict().items()}
            ref_opt = make_opt(opt_name, ref.parameters())
            train(ref, ref_opt, kind, 5, batch, slice(None))  # one process, the whole batch

            dist.manual_seed_per_rank(123)  # a different init on every rank: DDP broadcasts rank 0's
            local = make_model(kind)
            if rank == 0:
                local.load_state_dict({k: mg.tensor(v) for k, v in init.items()})
            model = DDP(local)
            assert_same_on_all_ranks(model, "after construction")
            opt = make_opt(opt_name, model.parameters())
            train(model, opt, kind, 5, batch, shard,
                  check=lambda step, m=model, label=f"{kind}/{opt_name}": assert_same_on_all_ranks(
                      m, f"{label} step {step}"))
            err = max(rel_err(p.numpy(), q.numpy()) for p, q in zip(model.module.parameters(), ref.parameters()))
            # round-off of sums split across ranks: <= 1e-15 here but for "wide", whose first
            # convolution's weights moved 1e-15 -> 1.7e-12 at step 5 on an AMD EPYC (OpenBLAS's
            # Haswell kernels), <= 1e-12 on the machine that wrote the test
            assert err <= 1e-11, f"{kind}/{opt_name}: relative difference {err} to one process"
            worst[f"{kind}/{opt_name}"] = err
    result(worst)


def scenario_variants() -> None:
    """Bucket sizes, no_sync, checkpoint_sequential: all the same as the plain DDP run."""
    mg.set_default_dtype("float64")
    rank, world = dist.get_rank(), dist.get_world_size()
    batch = 8
    shard = slice(rank * batch // world, (rank + 1) * batch // world)

    def run(bucket_cap_mb=25, ckpt=0, micro=1, kind="mlp"):
        mg.manual_seed(0)
        net = mlp() if kind == "mlp" else cnn()
        model = DDP(Checkpointed(net) if ckpt else net, bucket_cap_mb=bucket_cap_mb)
        opt = make_opt("adam", model.parameters())
        train(model, opt, kind, 3, batch, shard, no_sync_micro=micro)
        assert_same_on_all_ranks(model, f"bucket_cap_mb={bucket_cap_mb} ckpt={ckpt} micro={micro}")
        return model

    base = run()
    base_params = [p.numpy().copy() for p in base.parameters()]
    out = {"default_buckets": base.bucket_sizes}
    for cap, label in ((1e-6, "tiny"), (1e4, "one")):
        m = run(bucket_cap_mb=cap)
        out[f"{label}_buckets"] = m.bucket_sizes
        err = max(rel_err(p.numpy(), q) for p, q in zip(m.parameters(), base_params))
        assert err <= 1e-12, f"bucket_cap_mb={cap}: {err}"
        out[f"{label}_err"] = err
    m = run(micro=2)  # two micro-batches per step, the first under no_sync
    err = max(rel_err(p.numpy(), q) for p, q in zip(m.parameters(), base_params))
    assert err <= 1e-12, f"no_sync: {err}"
    out["no_sync_err"] = err
    m = run(ckpt=2)
    same = all(np.array_equal(p.numpy(), q) for p, q in zip(m.parameters(), base_params))
    assert same, "DDP + checkpoint_sequential is not bitwise equal to DDP"
    out["checkpoint_bitwise"] = same

    # An unused parameter is reduced as zeros: the ranks stay identical.
    class WithUnused(nn.Module):
        def __init__(self):
            super().__init__()
            self.used = nn.Linear(8, 4)
            self.unused = nn.Linear(8, 4)

        def forward(self, x):
            # rank 1 also uses the second layer: its gradient is averaged with rank 0's zeros
            return self.used(x) + (self.unused(x) if dist.get_rank() == 1 else 0.0)

    mg.manual_seed(0)
    model = DDP(WithUnused())
    x = mg.tensor(np.ones((2, 8)))
    model(x).sum().backward()
    g = model.module.unused.weight.grad.numpy()
    every = dist.group().allgather_object(g.tobytes())
    assert every[0] == every[1], "unused parameter's gradient differs between ranks"
    out["unused_grad_max"] = float(np.abs(g).max())

    # create_graph=True under DDP is a clear error.
    try:
        model(x).sum().backward(create_graph=True)
    except RuntimeError as exc:
        out["create_graph_error"] = str(exc)
    result(out)


def scenario_mismatch() -> None:
    dist.manual_seed_per_rank(0)
    width = 16 if dist.get_rank() == 0 else 17
    model = nn.Sequential(nn.Linear(8, width), nn.Tanh(), nn.Linear(width, 4))
    try:
        DDP(model)
    except RuntimeError as exc:
        result({"error": str(exc)})
        return
    result({"error": None})


def scenario_raise() -> None:
    mg.manual_seed(0)
    model = DDP(mlp())
    x = mg.tensor(np.ones((2, 8), dtype="float32"))
    model(x).sum().backward()
    if dist.get_rank() == 1:
        raise ValueError("rank 1 fails mid-step")
    model(x).sum().backward()  # rank 0 waits in the all-reduce rank 1 never joins
    dist.barrier()


class DropoutNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Dropout(0.3), nn.Linear(32, 4))

    def forward(self, x):
        return self.net(x)


def scenario_resume(out_dir: str, steps: str, stop_at: str, mode: str) -> None:
    """Train ``steps`` steps with dropout and a snapshot every 2 steps; ``mode``:
    ``fresh`` (from scratch), ``resume`` (from the newest snapshot).  With
    ``stop_at`` > 0 the job dies (os._exit) right after that step."""
    from minigrad_ckpt.executor import Executor
    from minigrad_ckpt.snapshot import SnapshotManager

    mg.set_default_dtype("float64")
    steps, stop_at = int(steps), int(stop_at)
    rank, world = dist.get_rank(), dist.get_world_size()
    dist.manual_seed_per_rank(7)
    model = DDP(DropoutNet())
    opt = optim.Adam(model.parameters(), lr=0.01)
    ex = Executor(model, opt)
    manager = SnapshotManager(os.path.join(out_dir, "snapshots"), max_snapshots=2)
    start = 0
    if mode == "resume":
        snap = manager.load_latest()
        snap.restore_into(ex)
        start = ex.iteration
    batch = 8
    shard = slice(rank * batch // world, (rank + 1) * batch // world)
    for step in range(start, steps):
        x, y = data("mlp", step, batch)
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(mg.tensor(x[shard])), mg.tensor(y[shard]))
        loss.backward()
        opt.step()
        ex.iteration = step + 1
        if ex.iteration % 2 == 0:
            manager.save_snapshot(ex)
        if ex.iteration == stop_at:
            sys.stdout.flush()
            os._exit(3)  # killed: no clean shutdown
    assert_same_on_all_ranks(model, "end of run")
    result({"digest": digest(model), "rng": mg.get_rng_state()})


def scenario_snapshot_failure(out_dir: str) -> None:
    """rank 1 cannot prepare its part of the save: every rank raises, nobody hangs."""
    from minigrad_ckpt.executor import Executor
    from minigrad_ckpt.snapshot import SnapshotManager

    mg.manual_seed(0)
    model = DDP(mlp())
    ex = Executor(model)
    manager = SnapshotManager(os.path.join(out_dir, "snapshots"))
    errors = {}
    if dist.get_rank() == 1:
        model.module[0].weight.data[0, 0] += 1.0  # replicas drifted apart
    try:
        manager.save_snapshot(ex, 1)
    except dist.DistributedError as exc:
        errors["drift"] = str(exc)
    dist.barrier()
    model.module[0].weight.data[...] = 0.0  # equal again
    import minigrad_ckpt.snapshot.snapshot as snapmod

    original = snapmod.Snapshot.save
    if dist.get_rank() == 0:
        def failing_save(self, path):
            raise OSError("disk full")
        snapmod.Snapshot.save = failing_save
    try:
        manager.save_snapshot(ex, 2)
    except dist.DistributedError as exc:
        errors["write"] = str(exc)
    try:  # rank 0's write fails in the background: it removes every rank's file
        handle = manager.save_snapshot(ex, 4, blocking=False)
        try:
            handle.wait()
        except OSError as exc:
            errors["async"] = str(exc)
    finally:
        snapmod.Snapshot.save = original
    dist.barrier()
    own_write = manager._write_rank_state
    if dist.get_rank() == 1:
        def failing_rank_state(*args):
            raise OSError("cannot write the rank file")
        manager._write_rank_state = failing_rank_state
    try:  # rank 1 cannot write its file: rank 0 deletes the one it wrote
        manager.save_snapshot(ex, 5)
    except dist.DistributedError as exc:
        errors["rank_file"] = str(exc)
    finally:
        manager._write_rank_state = own_write
    dist.barrier()
    errors["left_after_failures"] = sorted(os.listdir(manager.directory))
    path = manager.save_snapshot(ex, 3)  # and the group still works
    errors["ok"] = os.path.basename(str(path))
    errors["left"] = sorted(os.listdir(manager.directory))
    result(errors)


def scenario_single() -> None:
    """Without mpiexec: a world of one, collectives are identities."""
    dist.init_process_group() if not dist.is_initialized() else None
    t = mg.tensor([1.0, 2.0])
    dist.all_reduce(t, "mean")
    gathered = dist.all_gather(t)
    model = DDP(mlp())
    model(mg.tensor(np.ones((2, 8), dtype="float32"))).sum().backward()
    result({"rank": dist.get_rank(), "world": dist.get_world_size(), "t": t.numpy().tolist(),
            "gathered": len(gathered), "grads": all(p.grad is not None for p in model.parameters())})


def scenario_collectives() -> None:
    rank = dist.get_rank()
    out = {}
    t = mg.tensor([1.0 + rank, 10.0 * (rank + 1)], dtype="float64")
    for op in ("sum", "mean", "max", "min"):
        x = mg.tensor(t.numpy().copy())
        dist.all_reduce(x, op)
        out[op] = x.numpy().tolist()
    b = mg.tensor(np.full((2, 3), float(rank)))
    dist.broadcast(b, src=1)
    out["broadcast"] = b.numpy().tolist()
    nc = mg.tensor(np.arange(12.0).reshape(3, 4) * (rank + 1))[:, 1]  # not contiguous
    dist.all_reduce(nc)
    out["strided"] = nc.numpy().tolist()
    g = dist.all_gather(mg.tensor(np.array([rank, rank], dtype="int64")))
    out["gather"] = [x.numpy().tolist() for x in g]
    dist.barrier()
    result(out)


def scenario_nccl() -> None:
    """The 'nccl' backend on CUDA tensors (one rank per GPU)."""
    mg.set_default_device("cuda")
    dist.init_process_group()  # backend=None picks NCCL for a CUDA default device
    g = dist.group()
    assert g.backend == "nccl", g.backend
    # the communicator's GPU is this rank's current one: what "cuda" means from now on
    assert mg.cuda.current_device() == g.local_rank % mg.cuda.device_count()
    assert str(mg.device("cuda")) == f"cuda:{mg.cuda.current_device()}"
    rank, world = dist.get_rank(), dist.get_world_size()
    out = {"world": world}
    t = mg.tensor([1.0 + rank, 2.0], dtype="float32", device="cuda")
    dist.all_reduce(t)
    out["sum"] = t.tolist()
    m = mg.tensor([1.0 + rank, 2.0], dtype="float32", device="cuda")
    dist.all_reduce(m, "max")
    out["max"] = m.tolist()
    b = mg.tensor([float(rank)] * 3, device="cuda")
    dist.broadcast(b, src=world - 1)
    out["broadcast"] = b.tolist()
    out["gather"] = [x.tolist() for x in dist.all_gather(mg.tensor([rank], dtype="int64", device="cuda"))]
    assert type(t._data).__module__.startswith("cupy")  # stayed on the device
    # DDP on the GPU: the averaged gradient equals the full-batch gradient.
    mg.manual_seed(0)
    ref = mlp().to("cuda")
    mg.manual_seed(0)
    model = DDP(mlp().to("cuda"), bucket_cap_mb=1e-4)
    x, y = data("mlp", 0, 4 * world)
    shard = slice(rank * 4, (rank + 1) * 4)
    nn.functional.cross_entropy(ref(mg.tensor(x.astype("float32"), device="cuda")), mg.tensor(y, device="cuda")
                                ).backward()
    nn.functional.cross_entropy(model(mg.tensor(x[shard].astype("float32"), device="cuda")),
                                mg.tensor(y[shard], device="cuda")).backward()
    out["grad_err"] = max(float(abs(p.grad.numpy() - q.grad.numpy()).max())
                          for p, q in zip(model.parameters(), ref.parameters()))
    dist.barrier()
    result(out)


class WideNet(nn.Module):
    """Parameters of 1 MiB and more (their gradients are reduced in place in ``.grad``) beside
    small ones: ``t`` is used transposed and ``unused`` never gets a gradient (it takes part
    as zeros)."""

    def __init__(self, dtype: str):
        super().__init__()
        width = 2**20 // (np.dtype(dtype).itemsize * 64)  # a 64 x width matrix is exactly 1 MiB
        self.inp = nn.Linear(8, 64).to(dtype)
        self.wide = nn.Linear(64, width).to(dtype)
        self.t = nn.Parameter(mg.tensor(np.random.default_rng(3).standard_normal((64, width)) / 64, dtype=dtype))
        self.unused = nn.Parameter(mg.zeros((width, 64), dtype=dtype))
        self.out = nn.Linear(64, 4).to(dtype)

    def forward(self, x):
        h = mg.tanh(self.inp(x.to(self.inp.weight.dtype)))  # the shared data is float64
        return self.out(mg.tanh(self.wide(h) @ self.t.T))


def _a_hook_after_ddps_sees_its_own_gradient(dtype: str, rank: int) -> bool:
    """A post-accumulate hook registered after DDP's on a 1 MiB last weight -- a bucket of its
    own, started by DDP's hook just before this one runs, a gradient DDP would reduce in place --
    sees this rank's own gradient, not a sum in progress, and its write into ``.grad`` cannot
    make the replicas differ.  The ranks sleep differently in the hook, so that an in-place
    reduction would be well under way."""
    import time

    width = 2**20 // (np.dtype(dtype).itemsize * 64)

    def make():
        mg.manual_seed(0)
        return nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, width, bias=False)).to(dtype)

    plain, model = make(), DDP(make())
    seen = []

    def hook(p):
        time.sleep(0.03 if rank else 0.002)
        seen.append(p.grad.numpy().copy())
        p.grad.mul_(0.5)

    last = model.module[2].weight
    last.register_post_accumulate_grad_hook(hook)
    x, y = data("mlp", 7, 8)
    x, y = mg.tensor(x[rank * 4:rank * 4 + 4]).to(dtype), mg.tensor(y[rank * 4:rank * 4 + 4])
    nn.functional.cross_entropy(model(x), y).backward()
    nn.functional.cross_entropy(plain(x), y).backward()
    every = dist.group().allgather_object(hashlib.sha256(last.grad.numpy().tobytes()).hexdigest())
    return len(set(every)) == 1 and np.array_equal(seen[0], plain[2].weight.grad.numpy())


def _adam_in_pieces_trains_as_one_process(dtype: str, rank: int) -> tuple[float, bool]:
    """Adam with weight decay over the 1 MiB weights, which it steps a piece at a time
    (``Optimizer.piecewise_rule``): each rank's replica equals the others' and the one-process run on
    the whole batch.  Returns the error against that run and whether any step was taken in pieces."""
    from minigrad_ckpt.optim import optimizer as optimizer_module

    taken, real = [], optimizer_module.update_in_chunks

    def counting(rule, written, read):
        taken.append(real(rule, written, read))
        return taken[-1]

    optimizer_module.update_in_chunks = counting
    try:
        mg.manual_seed(0)
        ref = WideNet(dtype)
        train(ref, optim.Adam(ref.parameters(), lr=0.01, weight_decay=0.01), "mlp", 3, 8, slice(None))
        mg.manual_seed(0)
        model = DDP(WideNet(dtype))
        train(model, optim.Adam(model.parameters(), lr=0.01, weight_decay=0.01), "mlp", 3, 8,
              slice(rank * 4, rank * 4 + 4))
    finally:
        optimizer_module.update_in_chunks = real
    assert_same_on_all_ranks(model, "Adam in pieces")
    err = max(rel_err(p.numpy(), q.numpy()) for p, q in zip(model.module.parameters(), ref.parameters()))
    return err, any(taken)


def scenario_large_gradients(dtype: str) -> None:
    """Gradients of 1 MiB and more are all-reduced in place: the same training as one process on
    the whole batch, with no_sync accumulation and with uneven inputs under join()."""
    mg.set_default_dtype(dtype)
    rank = dist.get_rank()
    tol = 1e-12 if dtype == "float64" else 2e-5
    out = {}
    for micro in (1, 2):
        mg.manual_seed(0)
        ref = WideNet(dtype)
        ref_opt = optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
        train(ref, ref_opt, "mlp", 3, 8, slice(None), no_sync_micro=micro)
        mg.manual_seed(0)
        model = DDP(WideNet(dtype))
        opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        train(model, opt, "mlp", 3, 8, slice(rank * 4, rank * 4 + 4), no_sync_micro=micro)
        assert_same_on_all_ranks(model, f"{micro} micro-batches")
        out[f"err_{micro}"] = max(rel_err(p.numpy(), q.numpy()) for p, q in zip(model.module.parameters(),
                                                                                ref.parameters()))
        large = [b.large for b in model._buckets]
        out["large"] = sorted(p.size * p.dtype.itemsize for ps in large for p in ps)
        wide = model.module.wide.weight
        owner = wide.grad.numpy()
        while owner.base is not None:
            owner = owner.base
        out["in_place"] = id(owner) in model._reduced_in_place  # its .grad was reduced where it lies
        assert out[f"err_{micro}"] <= tol, out
    out["hook_saw_its_own_gradient"] = _a_hook_after_ddps_sees_its_own_gradient(dtype, rank)
    out["adam_err"], out["adam_in_pieces"] = _adam_in_pieces_trains_as_one_process(dtype, rank)
    # (Adam divides by the gradient's own scale: a float32 rounding difference of a near-zero gradient
    # entry between the averaged halves and the whole batch moves its parameter by up to lr)
    assert out["adam_err"] <= (tol if dtype == "float64" else 1e-3), out
    mg.manual_seed(0)
    model = DDP(WideNet(dtype))
    opt = optim.SGD(model.parameters(), lr=0.1)
    with model.join():  # rank 1 has one batch more: rank 0 shadows it with zeros
        for k in range(2 + rank):
            x, y = data("mlp", 10 * rank + k, 4)
            opt.zero_grad()
            nn.functional.cross_entropy(model(mg.tensor(x)), mg.tensor(y)).backward()
            opt.step()
    assert_same_on_all_ranks(model, "after join")
    out["joined"] = True
    result(out)


def scenario_join(divide: str) -> None:
    """Uneven inputs: rank r has 3 + 2r batches. Inside ddp.join() every rank finishes; the
    parameters equal a one-process simulation of the same averaging; replicas end in sync."""
    mg.set_default_dtype("float64")
    rank, world = dist.get_rank(), dist.get_world_size()
    by_initial = divide == "initial"
    counts = [3 + 2 * r for r in range(world)]
    mg.manual_seed(0)
    ref = mlp()
    ref_opt = optim.Adam(ref.parameters(), lr=0.01)
    mg.manual_seed(0)
    model = DDP(mlp(), bucket_cap_mb=1e-3)
    opt = optim.Adam(model.parameters(), lr=0.01)

    def batch(r, k):
        x, y = data("mlp", 100 * r + k, 4)
        return mg.tensor(x), mg.tensor(y)

    for k in range(max(counts)):  # the reference: every rank's gradient, summed, divided as asked
        active = [r for r in range(world) if k < counts[r]]
        grads = []
        for r in active:
            ref_opt.zero_grad()
            nn.functional.cross_entropy(ref(batch(r, k)[0]), batch(r, k)[1]).backward()
            grads.append([p.grad.numpy().copy() for p in ref.parameters()])
        total = [sum(g[i] for g in grads) for i in range(len(grads[0]))]
        for p, g in zip(ref.parameters(), total):
            p.grad = mg.tensor(g / (world if by_initial else len(active)))
        ref_opt.step()
    with model.join(divide_by_initial_world_size=by_initial, optimizer=opt):
        for k in range(counts[rank]):
            x, y = batch(rank, k)
            opt.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
    assert_same_on_all_ranks(model, "after join")
    err = max(rel_err(p.numpy(), q.numpy()) for p, q in zip(model.parameters(), ref.parameters()))
    moments = dist.group().allgather_object([v.numpy().tobytes() for st in opt.state_dict()["state"].values()
                                             for v in st.values() if isinstance(v, mg.Tensor)])
    result({"err": err, "same_optimizer_state": all(m == moments[0] for m in moments)})


def scenario_buffers() -> None:
    """BatchNorm running statistics under DDP: ``tests/data/make_torch_ddp_buffers.py``'s
    ``record`` (which wrote PyTorch's) on the engine -- inside and after ``Join([ddp])`` with
    uneven inputs, through ``no_sync`` accumulation and forwards without grad."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
    from make_torch_ddp_buffers import record

    from minigrad_ckpt.distributed.algorithms.join import Join

    result(record(mg, DDP, Join, dist.get_rank()))


def scenario_comm_hooks() -> None:
    """DDP communication hooks: ``tests/data/make_torch_ddp_comm_hooks.py``'s ``record`` (which wrote
    PyTorch's answers) on the engine; and the refusals of ``register_comm_hook``."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
    from make_torch_ddp_comm_hooks import record

    from minigrad_ckpt.distributed.algorithms.ddp_comm_hooks import default_hooks
    from minigrad_ckpt.distributed.algorithms.join import Join

    out = record(mg, DDP, Join, default_hooks, dist, dist.get_rank())
    ddp = DDP(nn.Linear(2, 1))
    ddp.register_comm_hook(None, default_hooks.allreduce_hook)

    def annotated(state, bucket: int):
        return None

    out["refused"] = [_refusal(lambda: ddp.register_comm_hook(None, default_hooks.allreduce_hook)),
                      _refusal(lambda: DDP(nn.Linear(2, 1)).register_comm_hook(None, 3)),
                      _refusal(lambda: DDP(nn.Linear(2, 1)).register_comm_hook(None, annotated))]
    out["group"] = [dist.group.WORLD.size(), dist.group.WORLD.rank(), dist.new_group().size()]
    result(out)


def scenario_elastic(out_dir: str, mode: str, epochs: str, stop_at: str) -> None:
    """A shuffled DistributedSampler through a DataLoader with 2 worker processes, DDP with dropout
    and Adam, the loader registered with the executor, an asynchronous snapshot every 3 steps.
    ``mode``: ``fresh`` or ``resume`` (newest snapshot, any world size). With ``stop_at`` > 0 the
    job dies right after submitting the asynchronous save of that step. Every rank logs the sample
    ids of each step to ``log-<mode>-<world>-<rank>.jsonl``."""
    from minigrad_ckpt.snapshot import SnapshotManager
    from minigrad_ckpt.utils.data import DataLoader, DistributedSampler, TensorDataset

    mg.set_default_dtype("float64")
    if not dist.is_initialized():
        dist.init_process_group("mpi", timeout=60)
    rank, world = dist.get_rank(), dist.get_world_size()
    epochs, stop_at = int(epochs), int(stop_at)
    n = 50
    rng = np.random.default_rng(0)
    ds = TensorDataset(mg.tensor(rng.standard_normal((n, 8))), mg.tensor(rng.integers(0, 4, n)), mg.arange(n))
    sampler = DistributedSampler(ds, seed=0)
    loader = DataLoader(ds, batch_size=3, sampler=sampler, num_workers=2)
    dist.manual_seed_per_rank(7)
    model = DDP(DropoutNet())
    opt = optim.Adam(model.parameters(), lr=0.01)
    ex = mg.Executor(model, opt)
    ex.register_state("loader", loader)
    manager = SnapshotManager(os.path.join(out_dir, "snapshots"))
    start = 0
    if mode == "resume":
        manager.load_latest().restore_into(ex)
        start = sampler.epoch  # set_epoch(start) below keeps the restored position
    log = open(os.path.join(out_dir, f"log-{mode}-{world}-{rank}.jsonl"), "a")
    for epoch in range(start, epochs):
        sampler.set_epoch(epoch)
        with model.join(optimizer=opt, executor=ex):  # a resumed epoch may deal the ranks uneven batches
            for x, y, ids in loader:
                opt.zero_grad()
                nn.functional.cross_entropy(model(x), y).backward()
                opt.step()
                ex.step()
                log.write(json.dumps({"it": ex.iteration, "epoch": epoch, "ids": ids.tolist()}) + "\n")
                log.flush()
                if ex.iteration % 3 == 0 and model.all_ranks_have_data:  # a resumed run saves too
                    handle = manager.save_snapshot(ex, blocking=False)
                    if mode == "fresh" and ex.iteration == stop_at:
                        os._exit(3)  # killed with the save in flight
                    assert handle.path.name.startswith("snapshot-")
    manager.wait()
    assert_same_on_all_ranks(model, "end of run")
    assert len(set(dist.group().allgather_object(ex.iteration))) == 1
    result({"digest": digest(model), "start_epoch": start, "world": world})


def scenario_join_executor(out_dir: str) -> None:
    """Rank r has 3 + r batches, an executor counts the steps and saves snapshots.
    ``join(optimizer=opt, executor=ex)`` leaves every rank at the iteration of one that ran to
    the end; a save inside the block at a step where a rank has run out raises the same clear
    error on every rank (the shadowing one included); a save after a block without ``executor``
    (the iterations differ) is refused on every rank rather than written."""
    from minigrad_ckpt.snapshot import SnapshotManager

    rank = dist.get_rank()
    mg.manual_seed(0)
    model = DDP(mlp())
    opt = optim.Adam(model.parameters(), lr=0.01)
    sched = optim.lr_scheduler.LambdaLR(opt, lambda step: 1 / (1 + step))  # stepped with each step
    ex = mg.Executor(model, opt, sched)
    manager = SnapshotManager(os.path.join(out_dir, "snapshots"), max_snapshots=10)

    def train(save_inside: str, **join_args) -> str | None:
        try:
            with model.join(optimizer=opt, **join_args):
                for k in range(3 + rank):
                    opt.zero_grad()
                    model(mg.tensor(data("mlp", 10 * rank + k, 2)[0], dtype="float32")).sum().backward()
                    opt.step()
                    sched.step()
                    ex.step()
                    if save_inside == "always" or (save_inside == "guarded" and model.all_ranks_have_data):
                        manager.save_snapshot(ex)
        except dist.DistributedError as exc:
            return str(exc)
        return None

    assert train("never", executor=ex) is None
    iterations = dist.group().allgather_object(ex.iteration)
    schedulers = dist.group().allgather_object([sched.last_epoch, *sched.get_last_lr()])
    assert train("guarded", executor=ex) is None and model.all_ranks_have_data
    error_inside = train("always", executor=ex)
    dist.barrier()  # the group still works (the replicas are not synced: the block ended in an error)
    assert train("never") is None  # no executor: rank 0 counts 3 steps, the last rank 2 + world
    try:
        manager.save_snapshot(ex)
        error_after = None
    except dist.DistributedError as exc:
        error_after = str(exc)
    with model.join(optimizer=opt):  # an evaluation forward without grad before each step
        for k in range(1 + rank):
            x = mg.tensor(data("mlp", 10 * rank + k, 2)[0], dtype="float32")
            with mg.no_grad():
                model(x)
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
    assert_same_on_all_ranks(model, "after a join() block with forwards without grad")
    result({"iterations": iterations, "schedulers": schedulers, "error_inside": error_inside,
            "error_after": error_after, "saved": sorted(os.listdir(os.path.join(out_dir, "snapshots")))})


def scenario_join_grad_scaler() -> None:
    """A GradScaler under uneven inputs, for each (how, first) of ``_SCALER_JOINS``.  Rank r has
    first + 2r batches, and the batch after rank 0 ran out overflows (inf loss) on the last rank
    only -- the ranks with data all-reduce it, so all of them skip that step and back off; rank 0,
    shadowing, does not.  ``how``: ``none`` (the block is not told of the scaler: it syncs those
    whose update() ran in it), ``ddp`` (``ddp.join(scaler=...)``) or ``Join`` (PyTorch's spelling,
    ``Join([ddp], scaler=...)``).  Reports, per case, every rank's scale and growth tracker after
    the block, its skipped steps, the warnings, and whether the parameters agree after two more
    even steps."""
    mg.set_default_dtype("float64")
    result({f"{how} {first}": _join_with_a_grad_scaler(how, first) for how, first in _SCALER_JOINS})


_SCALER_JOINS = (("none", 3), ("ddp", 3), ("Join", 3), ("none", 0), ("ddp", 0))


def _join_with_a_grad_scaler(how: str, first: int) -> dict:
    import warnings

    from minigrad_ckpt.distributed.algorithms.join import Join

    rank, world = dist.get_rank(), dist.get_world_size()
    mg.manual_seed(0)
    model = DDP(mlp())
    opt = optim.SGD(model.parameters(), lr=0.01)
    scaler = mg.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_interval=2)
    skipped = []

    def step(k, overflow=False):
        x, y = data("mlp", 100 * rank + k, 4)
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(mg.tensor(x)), mg.tensor(y))
        with np.errstate(invalid="ignore"):  # (inf * 0 in the overflowing backward)
            scaler.scale(loss * (float("inf") if overflow else 1.0)).backward()
        scaler.step(opt)
        before = scaler.get_scale()
        scaler.update()
        skipped.append(scaler.get_scale() < before)  # (a skipped step backs off)

    extra = {"ddp": {"scaler": scaler}, "Join": {"scaler": scaler}}.get(how, {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with Join([model], **extra) if how == "Join" else model.join(**extra):
            for k in range(first + 2 * rank):
                step(k, overflow=(k == first and rank == world - 1))
    scales = dist.group().allgather_object([scaler.get_scale(), scaler.state_dict()["_growth_tracker"]])
    for k in (10, 11):  # even inputs again
        step(k)
    every = dist.group().allgather_object(digest(model))
    return {"scales": scales, "skipped": skipped, "same_after": len(set(every)) == 1,
            "warnings": [str(w.message) for w in caught if "GradScaler" in str(w.message)]}


def scenario_join_throw() -> None:
    """join(throw_on_early_termination=True): every rank raises once one ran out, none hangs."""
    rank = dist.get_rank()
    mg.manual_seed(0)
    model = DDP(mlp())
    error = None
    try:
        with model.join(throw_on_early_termination=True):
            for k in range(2 + 3 * rank):
                model(mg.tensor(data("mlp", k, 2)[0], dtype="float32")).sum().backward()
    except RuntimeError as exc:
        error = str(exc)
    dist.barrier()  # the group still works
    result({"error": error})


def scenario_timeout(kind: str) -> None:
    """Rank 1 stops calling collectives: rank 0's next collective raises DistributedError after
    the timeout instead of hanging, and the job ends even though rank 0 catches it."""
    import datetime

    dist.destroy_process_group()
    timeout = datetime.timedelta(seconds=2) if kind == "timedelta" else 2
    dist.init_process_group("mpi", timeout=timeout)
    dist.barrier()
    _rank_1_stalls_while_rank_0(lambda: dist.all_reduce(mg.tensor([1.0])))
    if dist.get_rank() == 1:
        return
    try:
        dist.barrier()
    except dist.DistributedError as exc:
        print(f"then: {exc}", flush=True)


def scenario_node_sums() -> None:
    """Sums through shared memory (every rank on this machine): each slot's result is the
    ranks' values added in rank order, bitwise, divided when asked; slots of every size (none,
    fewer values than ranks, uneven parts), reused; DDP through it trains as through MPI."""
    from functools import reduce

    from minigrad_ckpt.distributed._node_sum import NodeSum

    group = dist.group()
    rank, k = group.rank, group.size
    assert group.node_comm is not None, "the ranks of one machine share it"
    specs = [(0, np.float64), (1, np.float32), (k + 1, np.float64), (1001, np.float32), (5, np.complex128)]
    sums = NodeSum(group, specs)

    def values(r: int, rnd: int, size: int, dtype) -> np.ndarray:
        rng = np.random.default_rng([r, rnd, size])
        v = rng.standard_normal(size) * 10.0 ** rng.uniform(-8, 8, size)
        return (v + 1j * rng.standard_normal(size) if np.dtype(dtype).kind == "c" else v).astype(dtype)

    for rnd, divisor in ((0, None), (1, k), (2, None)):  # slots reused, all started before any wait
        arrays = [values(rank, rnd, n, dt) for n, dt in specs]
        works = [sums.start(i, a, divisor=divisor) for i, a in enumerate(arrays)]
        for w in reversed(works):
            w.wait()
        for (n, dt), got in zip(specs, arrays):
            want = reduce(np.add, [values(r, rnd, n, dt) for r in range(k)])
            want = want if divisor is None else want / divisor
            assert got.dtype == np.dtype(dt) and np.array_equal(got, want), (rnd, n, dt)
    out = {"node": group.node_comm.Get_size()}
    # DDP sums through it by default; the same training through MPI's all-reduce
    for shared in (True, False):
        DDP._shared_memory = shared
        mg.manual_seed(0)
        model = DDP(make_model("mlp").double())
        assert (model._node_sum is not None) is shared
        opt = make_opt("sgd", model.parameters())
        train(model, opt, "mlp", 3, 4 * k, slice(rank * 4, rank * 4 + 4))
        assert_same_on_all_ranks(model, f"shared memory {shared}")
        out[str(shared)] = digest(model)
    DDP._shared_memory = True
    out["same_as_mpi"] = out["True"] == out["False"]
    # one rank's /dev/shm lacks the room: every rank goes through MPI (a page beyond it would be SIGBUS)
    from minigrad_ckpt.distributed import _node_sum

    room = _node_sum._room_for
    _node_sum._room_for = lambda nbytes, reserved=0: rank != k - 1
    try:
        assert NodeSum.create(group, specs) is None and DDP(make_model("mlp"))._node_sum is None
    finally:
        _node_sum._room_for = room
    assert room(1) and not room(2**62) and not room(1, reserved=2**62)  # earlier windows count
    # the pages cannot be reserved on rank 0 (a full /dev/shm): every rank goes through MPI, the window freed
    held = group.shared_window_bytes
    assert held > 0
    reserve = _node_sum._reserve_pages
    _node_sum._reserve_pages = lambda raw: False
    try:
        assert NodeSum.create(group, specs) is None and group.shared_window_bytes == held
    finally:
        _node_sum._reserve_pages = reserve
    # the group destroyed (its windows freed): an old wrapper's backward refuses, as MPI's path does
    old = DDP(make_model("mlp").double())
    works = [sums.start(0, np.zeros(0))]
    dist.destroy_process_group()
    for attempt in (lambda: old(mg.tensor(data("mlp", 0, 4)[0])).sum().backward(),
                    lambda: sums.start(1, np.zeros(1, np.float32)), works[0].wait):
        try:
            attempt()
        except RuntimeError as exc:
            assert "destroyed" in str(exc), exc
        else:
            raise AssertionError("used a destroyed group's shared memory")
    dist.init_process_group("mpi")
    result(out)


def scenario_destroy_alone() -> None:
    """Rank 1 exits without destroy_process_group(): rank 0's destroy does not wait for it
    forever (freeing a shared window would), it lets the windows go at exit."""
    import time

    model = DDP(make_model("mlp"))
    assert model._node_sum is not None
    model(mg.tensor(data("mlp", 0, 4)[0], dtype="float32")).sum().backward()
    if dist.get_rank() == 0:
        start = time.monotonic()
        dist.destroy_process_group()
        print(f"rank 0 destroyed the group in {time.monotonic() - start:.0f} s", flush=True)
    else:
        dist.world._group = None  # leaves without destroying it (MPI is finalized at exit)


def scenario_node_sum_timeout() -> None:
    """A rank that never joins a sum through shared memory: the others raise after the timeout."""
    from minigrad_ckpt.distributed._node_sum import NodeSum

    dist.destroy_process_group()
    dist.init_process_group("mpi", timeout=2)
    sums = NodeSum(dist.group(), [(10, np.float64)])
    _rank_1_stalls_while_rank_0(lambda: sums.start(0, np.ones(10)).wait())


def _rank_1_stalls_while_rank_0(collective) -> None:
    """Rank 1 stops calling collectives; rank 0 calls ``collective`` and prints the error it catches."""
    import time

    if dist.get_rank() == 1:
        time.sleep(60)  # stuck (the abort from rank 0 ends it)
        result({"rank1": "was not ended"})
        return
    start = time.monotonic()
    try:
        collective()
    except dist.DistributedError as exc:
        print(f"caught after {time.monotonic() - start:.1f} s: {exc}", flush=True)


def scenario_monitored_barrier() -> None:
    """Every rank passes a monitored barrier; then rank 1 stalls and rank 0's monitored barrier, held to
    its own 1 s (the group's timeout is 30 minutes), raises and ends the job."""
    import datetime

    dist.monitored_barrier(timeout=datetime.timedelta(seconds=20))
    print("passed", flush=True)
    _rank_1_stalls_while_rank_0(lambda: dist.monitored_barrier(timeout=1, wait_all_ranks=True))


def scenario_gather0d() -> None:
    rank = dist.get_rank()
    got = dist.all_gather(mg.tensor(float(rank) + 0.5))
    shapes = [g.shape for g in got]
    for g in got:
        g.add_(1.0)  # in place: a real 0-d tensor
    result({"shapes": [list(s) for s in shapes], "values": [float(g.numpy()) for g in got]})


def scenario_async_copy_on_write(out_dir: str) -> None:
    """An asynchronous collective save, then at once the writes a data-parallel step makes into
    the captured arrays (DDP's buffer broadcast, the gradient all-reduce and Adam's step, an
    explicit all_reduce and broadcast of a parameter) while rank 0's writer is held busy: the
    snapshot is bitwise the state of the call on every rank."""
    import threading

    from minigrad_ckpt.distributed.snapshot import rank_tensors
    from minigrad_ckpt.executor import Executor
    from minigrad_ckpt.snapshot import Snapshot, SnapshotManager

    mg.set_default_dtype("float64")
    rank, world = dist.get_rank(), dist.get_world_size()
    mg.manual_seed(3)
    model = DDP(nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 4)))
    opt = optim.Adam(model.parameters(), lr=0.01)
    ex = Executor(model, opt)
    manager = SnapshotManager(os.path.join(out_dir, "snapshots"))

    def step(i):
        x, y = data("mlp", i, 8)
        shard = slice(rank * 8 // world, (rank + 1) * 8 // world)
        opt.zero_grad()
        nn.functional.cross_entropy(model(mg.tensor(x[shard])), mg.tensor(y[shard])).backward()
        opt.step()
        ex.step()

    for i in range(2):
        step(i)
    # A copy, at the call, of what the snapshot stores: rank 0's state, but each rank's own
    # BatchNorm statistics (they differ between the ranks until the next forward broadcasts rank 0's)
    mine = {k: v.tobytes() for k, v in Snapshot.from_executor(ex).tensors.items()}
    want = dist.group().bcast_object(mine)
    want.update({k: mine[k] for k in rank_tensors(ex)})
    gate = threading.Event()
    if rank == 0:
        manager._writer.submit(lambda: gate.wait(60), -1)
    handle = manager.save_snapshot(ex, blocking=False)
    step(2)
    step(3)
    dist.all_reduce(model.module[0].weight)
    dist.broadcast(model.module[3].bias, 0)
    gate.set()
    handle.wait()
    dist.barrier()
    snap = manager.load_latest()
    got = {k: v.tobytes() for k, v in snap.tensors.items()}
    assert got.keys() == want.keys(), (sorted(got), sorted(want))
    differ = sorted(k for k in want if got[k] != want[k])
    assert not differ, differ
    result({"iteration": snap.metadata.iteration, "tensors": len(got)})


def scenario_orphans(out_dir: str, phase: str) -> None:
    """``crash``: a committed save, then rank 0 dies while writing the next snapshot (every rank's
    file of it is written: orphans).  ``resume``: the next successful save deletes the orphans and
    keeps the committed snapshots' rank files."""
    from minigrad_ckpt.executor import Executor
    from minigrad_ckpt.snapshot import SnapshotManager

    mg.set_default_dtype("float64")
    dist.manual_seed_per_rank(5)
    model = DDP(mlp())
    ex = Executor(model, optim.SGD(model.parameters(), lr=0.1))
    manager = SnapshotManager(os.path.join(out_dir, "snapshots"), max_snapshots=None)
    listing = lambda: sorted(f for f in os.listdir(manager.directory) if f.endswith(".mgrank"))  # noqa: E731
    if phase == "crash":
        manager.save_snapshot(ex, 1)
        dist.barrier()
        if dist.get_rank() == 0:
            import minigrad_ckpt.snapshot.snapshot as snapmod

            def die(self, path):
                sys.stdout.flush()
                os._exit(7)  # killed between the rank files and the commit

            snapmod.Snapshot.save = die
        manager.save_snapshot(ex, 2)
        return
    snap = manager.load_latest()
    before = listing()
    manager.save_snapshot(ex, 3)
    dist.barrier()
    result({"loaded": snap.metadata.iteration, "before": before, "after": listing(),
            "claims": sorted(f for f in os.listdir(manager.directory) if f.startswith(".saving-"))})


def _refusal(fn) -> str:
    try:
        fn()
    except Exception as exc:  # the type and the start of the message, for the test to compare
        return f"{type(exc).__name__}: {str(exc)[:60]}"
    return "no error"


class _UnusedBranch(nn.Module):
    """a used everywhere, b on rank 1 only, c never."""

    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(3, 2), nn.Linear(3, 2), nn.Linear(3, 2)

    def forward(self, x, rank):  # b is used where rank == 1
        return self.a(x) + self.b(x) if rank == 1 else self.a(x)


def scenario_torch_api() -> None:
    """A PyTorch script's spellings of the collectives and of DDP (tests/test_distributed_torch_api.py)."""
    world = int(os.environ.get("PMI_SIZE", "1"))
    dist.init_process_group("gloo", init_method="env://", rank=int(os.environ.get("PMI_RANK", "0")), world_size=world)
    rank, out = dist.get_rank(), {"backend": dist.get_backend(), "world": dist.group.WORLD is dist.new_group()}
    t = mg.tensor([1.0 + rank, 2.0])
    out["product_work"] = dist.all_reduce(t, op=dist.ReduceOp.PRODUCT, async_op=True).wait()
    out["product"] = t.tolist()
    avg = mg.tensor([float(rank)])
    dist.all_reduce(avg, dist.ReduceOp.AVG, dist.group.WORLD)
    out["avg"] = avg.tolist()
    gathered = [mg.zeros(2) for _ in range(world)]
    dist.all_gather(gathered, mg.tensor([rank, rank + 0.5]))
    out["all_gather"] = [g.tolist() for g in gathered]
    into = mg.zeros(2 * world)
    dist.all_gather_into_tensor(into, mg.tensor([rank, rank + 0.5]))
    out["all_gather_into_tensor"] = into.tolist()
    r = mg.tensor([1.0 + rank])
    dist.reduce(r, dst=world - 1)
    out["reduce"] = r.tolist()
    gl = [mg.zeros(1) for _ in range(world)] if rank == 0 else None
    dist.gather(mg.tensor([10.0 * rank]), gl, dst=0)
    out["gather"] = None if gl is None else [g.tolist() for g in gl]
    s = mg.zeros(2)
    dist.scatter(s, [mg.tensor([2.0 * i, 2.0 * i + 1]) for i in range(world)] if rank == world - 1 else None,
                 src=world - 1)
    out["scatter"] = s.tolist()
    rs = mg.zeros(2)
    dist.reduce_scatter_tensor(rs, mg.arange(2.0 * world) * (rank + 1))
    out["reduce_scatter_tensor"] = rs.tolist()
    objs = [None] * world
    dist.all_gather_object(objs, {"rank": rank})
    bl = [rank, "from"]
    dist.broadcast_object_list(bl, src=world - 1)
    go = [None] * world if rank == 0 else None
    dist.gather_object(3 * rank, go, dst=0)
    so = [None]
    dist.scatter_object_list(so, [f"to {i}" for i in range(world)] if rank == 0 else None, src=0)
    out.update(all_gather_object=objs, broadcast_object_list=bl, gather_object=go, scatter_object_list=so)
    out["grads"] = _ddp_grads_with_an_unused_branch(rank)
    out["buffer_sync"] = _ddp_buffer_switches(rank)
    out["join"] = _torch_join(rank)
    out["refused"] = [_refusal(lambda: DDP(nn.Linear(2, 2), device_ids=[0])),
                      _refusal(lambda: DDP(nn.Linear(2, 2), mixed_precision=object())),
                      _refusal(lambda: dist.new_group([0])) if world > 1 else "world of one",
                      _refusal(lambda: dist.all_reduce(mg.ones(2, dtype=mg.int64), op=dist.ReduceOp.AVG)),
                      _refusal(lambda: dist.all_gather([mg.zeros(3)] * world, mg.zeros(2))),
                      _refusal(lambda: dist.init_process_group("gloo"))]
    dist.barrier(async_op=True).wait()
    result(out)


def scenario_dtypes_and_futures() -> None:
    """Reductions of bool and complex tensors, a module with nothing to train, and the Futures of
    async collectives (tests/test_distributed_torch_api.py compares them with torch 2.13's answers)."""
    rank, world, out = dist.get_rank(), dist.get_world_size(), {}
    for op in ("SUM", "PRODUCT", "MAX", "MIN"):
        t = mg.tensor([True, False, True, False]) if rank == 0 else mg.tensor([True, True, False, False])
        dist.all_reduce(t[::2] if op == "MIN" else t, op=getattr(dist.ReduceOp, op))  # MIN: a strided view
        r = mg.tensor([True, False]) if rank == 0 else mg.tensor([False, False])
        dist.reduce(r, dst=0, op=getattr(dist.ReduceOp, op))
        out[f"bool {op}"] = [t.tolist(), r.tolist()]
        reduce_op = getattr(dist.ReduceOp, op)
        out[f"complex {op}"] = _refusal(lambda: dist.all_reduce(mg.tensor([1 + 2j]), op=reduce_op))  # noqa: B023
    for op in ("BAND", "BOR", "BXOR"):
        values = [6, 5, 0, 1] if rank == 0 else [3, 1, 0, 1]
        ints, truths = mg.tensor(values, dtype=mg.int32), mg.tensor(values).bool()
        dist.all_reduce(ints, op=getattr(dist.ReduceOp, op))
        dist.all_reduce(truths, op=getattr(dist.ReduceOp, op))
        floats = mg.ones(2)
        out[op] = [ints.tolist(), truths.tolist(), _refusal(lambda: dist.all_reduce(floats, op=op.lower()))]  # noqa: B023
    c = mg.tensor([1 + 2j, 3j]) * (rank + 1)
    dist.all_reduce(c, op=dist.ReduceOp.AVG)
    out["complex AVG"] = [str(v) for v in c.tolist()]
    frozen = nn.Linear(2, 1)
    frozen.requires_grad_(False)
    out["frozen"] = _refusal(lambda: DDP(frozen))
    t = mg.tensor([1.0 + rank])
    work = dist.all_reduce(t, async_op=True)
    future = work.get_future()
    chained = future.then(lambda f: f.value()[0] * 2)
    out["future"] = [future.done(), [x.tolist() for x in future.wait()], work.result()[0] is t,
                     chained.wait().tolist()]
    failing = future.then(lambda f: 1 / 0)
    out["then_raises"] = _refusal(failing.wait)
    gathered = [mg.zeros(1) for _ in range(world)]
    out["all_gather"] = [x.tolist() for x in dist.all_gather(gathered, t, async_op=True).get_future().value()]
    out["barrier"] = dist.barrier(async_op=True).get_future().wait()
    out["mixed_dtypes"] = _refusal(lambda: dist.all_gather([mg.zeros(2), mg.zeros(2, dtype=mg.float64)], mg.ones(2)))
    out["scatter_to_nothing"] = _refusal(lambda: dist.scatter_object_list([], [1, 2] if rank == 0 else None, src=0))
    result(out)


def scenario_point_to_point() -> None:
    """send/recv, isend/irecv, all_to_all(_single), reduce_scatter and the rank helpers: the same
    script as torch 2.13's under gloo (tests/test_distributed_torch_api.py holds its answers)."""
    rank, out = dist.get_rank(), {}
    peer = 1 - rank
    r = mg.zeros(3, dtype=mg.float64)
    receiving = dist.irecv(r, src=peer, tag=7)  # both ranks receive first: the receive must not block
    sending = dist.isend(mg.arange(3, dtype=mg.float64) + 10 * rank, dst=peer, tag=7)
    out["ring"] = [sending.wait(), receiving.wait(), r.tolist()]
    if rank == 0:
        dist.send(mg.tensor([[1, 2], [3, 4]]), dst=1)
    else:
        into = mg.zeros(2, 4, dtype=mg.int64)
        out["from"] = dist.recv(into[:, ::2])  # any sender; a strided view (torch wants contiguous)
        out["received"] = into.tolist()
    if rank == 0:
        dist.send(mg.ones(1), dst=1, tag=3)
    else:
        work = dist.irecv(mg.zeros(1), tag=3)
        out["source_rank"] = [work.source_rank(), work.exception(), work.synchronize()]
    out["not_a_receive"] = _refusal(dist.all_reduce(mg.ones(1), async_op=True).source_rank)
    out["to_self"] = _refusal(lambda: dist.send(mg.ones(1), dst=rank))
    out["to_nobody"] = _refusal(lambda: dist.send(mg.ones(1)))
    even = mg.zeros(4)
    dist.all_to_all_single(even, mg.arange(4.0) + 10 * rank)
    sent, got = ([1, 2], [1, 3]) if rank == 0 else ([3, 1], [2, 1])  # rows to / from ranks 0 and 1
    uneven = mg.zeros(sum(got), 2)
    dist.all_to_all_single(uneven, mg.arange(sum(sent) * 2.0).reshape(sum(sent), 2) + 100 * rank, got, sent)
    outputs = [mg.zeros(2) for _ in range(2)]
    dist.all_to_all(outputs, [mg.tensor([rank * 10.0 + j, -j]) for j in range(2)])
    out["all_to_all"] = [even.tolist(), uneven.tolist(), [t.tolist() for t in outputs]]
    scattered = mg.zeros(2)
    dist.reduce_scatter(scattered, [mg.ones(2) * (rank + 1), mg.ones(2) * (rank + 1) * 10])
    out["reduce_scatter"] = scattered.tolist()
    world = dist.group.WORLD
    out["ranks"] = [dist.get_process_group_ranks(world), dist.get_global_rank(world, 1), dist.get_group_rank(world, 1),
                    dist.is_torchelastic_launched()]
    result(out)


def _torch_join(rank: int) -> dict:
    """PyTorch's spelling of uneven inputs: ``with Join([ddp]):``, rank r with 1 + 2r batches."""
    from minigrad_ckpt.distributed.algorithms.join import Join

    mg.manual_seed(0)
    model = DDP(nn.Linear(3, 2).double())
    opt = optim.SGD(model.parameters(), lr=0.1)
    start = model.module.weight.numpy().copy()
    with Join([model], divide_by_initial_world_size=False):
        for k in range(1 + 2 * rank):
            opt.zero_grad()
            model(mg.ones(2, 3, dtype=mg.float64) * (rank + k)).sum().backward()
            opt.step()
    weights = dist.group().allgather_object(model.module.weight.numpy().tobytes())
    return {"same_weights": all(w == weights[0] for w in weights),
            "moved": sorted(set((model.module.weight.numpy() - start).round(12).ravel().tolist()))}


def _ddp_buffer_switches(rank: int) -> dict:
    """PyTorch 2.13's buffer switches: the deprecated ``broadcast_buffers=False`` leaves rank-local
    buffers unsynced from the start; ``forward_sync_buffers=False`` syncs them at construction only."""
    import warnings

    out = {}
    for name, kwargs in (("broadcast_buffers", {"broadcast_buffers": False}),
                         ("forward_sync_buffers", {"forward_sync_buffers": False}),
                         ("both", {"broadcast_buffers": True, "forward_sync_buffers": False})):
        bn = nn.BatchNorm1d(2).double()
        bn.running_mean.fill_(float(rank + 1))  # a rank-local statistic
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = DDP(bn, **kwargs)
        at_init = bn.running_mean.tolist()
        model(mg.tensor([[0.0, 2.0], [2.0, 4.0]], dtype=mg.float64) * (rank + 1))  # not synced before it
        out[name] = {"init": at_init, "after": bn.running_mean.tolist(), "attr": model.broadcast_buffers,
                     "warned": [w.category.__name__ for w in caught]}
    return out


def _ddp_grads_with_an_unused_branch(rank: int) -> dict:
    """Two backwards without zero_grad, with and without find_unused_parameters."""
    grads = {}
    for find_unused in (True, False):
        mg.manual_seed(0)
        model = DDP(_UnusedBranch().double(), None, None, 0, True, find_unused_parameters=find_unused)
        x = mg.ones(4, 3, dtype=mg.float64) * (rank + 1)
        for step in (1, 2):
            model(x, rank).sum().backward()
            grads[f"{find_unused} {step}"] = {n: None if p.grad is None else p.grad.flatten()[:2].tolist()
                                              for n, p in model.module.named_parameters()}
    mg.manual_seed(0)  # static_graph=True: PyTorch's static graph skips the parameters no rank used
    model = DDP(_UnusedBranch().double(), static_graph=True)
    x = mg.ones(4, 3, dtype=mg.float64) * (rank + 1)
    for step in (1, 2):
        model(x, rank).sum().backward()
        grads[f"static {step}"] = {n: None if p.grad is None else p.grad.flatten()[:2].tolist()
                                   for n, p in model.module.named_parameters()}
    mg.manual_seed(0)  # b used inside no_sync on rank 0 only, then by no rank: averaged all the same
    model = DDP(_UnusedBranch().double(), find_unused_parameters=True)
    x = mg.ones(4, 3, dtype=mg.float64) * (rank + 1)
    with model.no_sync():
        model(x, 1 - rank).sum().backward()
    model(x, -1).sum().backward()
    grads["no_sync"] = {n: None if p.grad is None else p.grad.flatten()[:2].tolist()
                        for n, p in model.module.named_parameters()}
    mg.manual_seed(0)  # the model's forward checkpointed: the replay's gradients count as used the same
    model = DDP(_Checkpointed(_UnusedBranch().double()), find_unused_parameters=True)
    model(mg.ones(4, 3, dtype=mg.float64) * (rank + 1), rank).sum().backward()
    grads["checkpointed"] = {n.removeprefix("inner."): None if p.grad is None else p.grad.flatten()[:2].tolist()
                             for n, p in model.module.named_parameters()}
    return grads


def scenario_averaging_follows_the_forward() -> None:
    """Which backwards DDP averages, as PyTorch's reducer decides: only one after a forward through
    the wrapper with grad and gradient sync.  A backward through ``ddp.module`` (before the first
    forward, after one, inside no_sync()) stays this rank's own -- and runs on one rank alone
    without waiting for the other; a no_sync() forward after a synced one leaves that one's
    averaging in place.  Rank r's input is r + 1: the mean of the two gradients is 1.5."""
    rank = dist.get_rank()
    lin = nn.Linear(1, 1, bias=False).double()
    ddp = DDP(lin)
    x = mg.tensor([[float(rank + 1)]], dtype=mg.float64)
    found = {}

    def grad_after(run):
        lin.weight.grad = None
        run()
        return lin.weight.grad.item()

    found["module before any forward"] = grad_after(lambda: lin(x).sum().backward())
    found["through the wrapper"] = grad_after(lambda: ddp(x).sum().backward())
    found["module after a forward"] = grad_after(lambda: lin(x).sum().backward())
    with ddp.no_sync():
        found["module inside no_sync"] = grad_after(lambda: lin(x).sum().backward())
    found["module, create_graph"] = grad_after(lambda: lin(x).sum().backward(create_graph=True))
    if rank == 0:  # one rank alone: nobody waits for the other
        found["module on rank 0 alone"] = grad_after(lambda: lin(x).sum().backward())

    def synced_then_no_sync():
        a = ddp(x).sum()
        with ddp.no_sync():
            b = ddp(x).sum()
        (a + b).backward()

    found["synced forward, then a no_sync one"] = grad_after(synced_then_no_sync)
    result(found)


def scenario_collectives_of_different_tensors() -> None:
    """Rank r hands in a tensor of another shape, then of another dtype, than rank 0: every rank
    refuses each collective (MPI had reduced the shorter with part of the longer); then one that
    agrees runs."""
    rank = dist.get_rank()
    refused = {}
    shapes = (mg.ones(3 + rank), mg.ones(3, dtype=mg.float32 if rank == 0 else mg.float64))
    for kind, t in zip(("shape", "dtype"), shapes):
        for name, call in (("all_reduce", dist.all_reduce), ("all_gather", dist.all_gather),
                           ("reduce", lambda t: dist.reduce(t, 0))):
            try:
                call(t)
                refused[f"{name} {kind}"] = None
            except RuntimeError as e:
                refused[f"{name} {kind}"] = str(e)
    t = mg.ones(3)
    dist.all_reduce(t)
    result({"refused": refused, "then": t.tolist()})


def scenario_profiled(out_dir: str) -> None:
    """A DDP step and the collectives under mg.profiler: the events each rank sees, and its trace."""
    from minigrad_ckpt.profiler import profile

    rank = dist.get_rank()
    mg.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1)))
    with profile() as prof:
        model(mg.randn(4, 8)).sum().backward()
        t = mg.ones(3)
        dist.all_reduce(t)
        dist.broadcast(t, src=1)
        dist.all_gather(t)
        dist.barrier()
    events = prof.events()
    parents = sorted({e.cpu_parent.name for e in events if e.name.endswith(":wait") and e.cpu_parent is not None})
    path = os.path.join(out_dir, f"trace{rank}.json")
    prof.export_chrome_trace(path)
    with open(path) as f:
        info = json.load(f).get("distributedInfo")
    with profile() as after:  # the wrappers come off and go on again cleanly
        dist.all_reduce(t)
    result({"names": sorted({e.name for e in events}), "wait_parents": parents, "info": info,
            "after": sorted({e.name for e in after.events()}), "sum": t.tolist(),
            "wrapped": getattr(dist._group.ProcessGroup.all_reduce, "_profiled", False)})


class _Checkpointed(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x, rank):
        from minigrad_ckpt.checkpoint import checkpoint

        return checkpoint(self.inner, x, rank)


def scenario_nan_reductions() -> None:
    """MAX and MIN over floats where some ranks hold NaN (rank r: NaN in column r), and over
    signed zeros (rank r's element j is 0.0 for odd r + j, else -0.0), for
    tests/test_distributed_nan.py: each rank reports the hex bytes and values of its results."""
    rank, world = dist.get_rank(), dist.get_world_size()
    out = {}
    for dtype in ("float16", "float32", "float64"):
        for op in ("MAX", "MIN"):
            row = np.arange(world + 2, dtype=dtype) * (1 + rank) - rank
            row[rank] = np.nan
            t = mg.tensor(row)
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            r = mg.tensor(row)
            dist.reduce(r, dst=world - 1, op=getattr(dist.ReduceOp, op))
            s = mg.zeros(2, dtype=getattr(mg, dtype))
            dist.reduce_scatter_tensor(s, mg.tensor(np.tile(row[:2], world)), op=getattr(dist.ReduceOp, op))
            out[f"{dtype} {op}"] = {"all_reduce": t.numpy().tobytes().hex(), "values": [repr(v) for v in t.tolist()],
                                   "reduce": [repr(v) for v in r.tolist()],
                                   "reduce_scatter": [repr(v) for v in s.tolist()]}
            signed = mg.tensor(np.array([0.0 if (rank + j) % 2 else -0.0 for j in range(3)], dtype=dtype))
            dist.all_reduce(signed, op=getattr(dist.ReduceOp, op))
            out[f"{dtype} {op}"]["signed_zeros"] = signed.numpy().tobytes().hex()
    result(out)


def scenario_ddp_autograd_grad() -> None:
    """autograd.grad and mg.func.grad through a DDP output (tests/test_distributed_ddp_autograd_grad.py):
    this rank's own gradients, no collective; then backward() through a forward averages as before."""
    rank, world = dist.get_rank(), dist.get_world_size()
    x = mg.tensor(np.random.RandomState(0).randn(2 * world, 3))
    mine = x[2 * rank:2 * rank + 2]
    plain = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).double()
    mg.manual_seed(0)
    model = DDP(nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).double())
    plain.load_state_dict(model.module.state_dict())
    params = list(model.parameters())
    local = mg.autograd.grad(plain(mine).pow(2).sum(), list(plain.parameters()))
    out = {}
    got = mg.autograd.grad(model(mine).pow(2).sum(), params)
    out["grad_is_local"] = all(bool((a == b).all()) for a, b in zip(got, local))
    out["grads_untouched"] = all(p.grad is None for p in params)
    y = model(mine).pow(2).sum()
    out["retained_grad"] = [g.tolist() for g in mg.autograd.grad(y, params[-1:], retain_graph=True)]
    y.backward()  # the same forward, backward() now: averaged
    plain.zero_grad()
    plain(x).pow(2).sum().backward()  # the whole batch's sum of squares, divided by the world size
    out["backward_err"] = max(float((p.grad - q.grad / world).abs().max()) for p, q in zip(params, plain.parameters()))
    result(out)


def _lazy_net():
    return nn.Sequential(nn.LazyConv2d(3, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.LazyLinear(4))


def _runtime_refusal(make) -> str:
    # (the whole message of a RuntimeError; _refusal above gives any exception's type and start)
    try:
        make()
    except RuntimeError as exc:
        return str(exc)
    return "no error"


def scenario_lazy_ddp(out_dir: str, mode: str) -> None:
    """Lazy layers and DDP.  ``fresh``: DDP of a lazy model before its first call is refused on every
    rank (also where only one rank ran its dummy batch, and with ``init_sync=False``); after the dummy
    batch, 4 steps equal one process on the whole batch, with a snapshot after step 2.  ``resume``:
    a fresh lazy model (other draws), its dummy batch, DDP, the snapshot, the last 2 steps."""
    from minigrad_ckpt.snapshot import SnapshotManager

    mg.set_default_dtype("float64")
    rank, world = dist.get_rank(), dist.get_world_size()
    refused = {}
    if mode == "fresh":
        refused["lazy"] = _runtime_refusal(lambda: DDP(_lazy_net()))
        refused["no_init_sync"] = _runtime_refusal(lambda: DDP(_lazy_net(), init_sync=False))
        one = _lazy_net()
        if rank == 1:
            one(mg.zeros(1, 2, 4, 4))
        refused["rank0_only"] = _runtime_refusal(lambda: DDP(one))
    dist.manual_seed_per_rank(5 if mode == "fresh" else 77)
    lazy = _lazy_net()
    lazy(mg.zeros(1, 2, 4, 4))  # the dummy batch: a different init on every rank, DDP broadcasts rank 0's
    model = DDP(lazy)
    opt = optim.Adam(model.parameters(), lr=0.01)
    ex = mg.Executor(model, opt)
    manager = SnapshotManager(os.path.join(out_dir, "snapshots"))
    if mode == "resume":
        manager.load_latest().restore_into(ex)
    start = {n: p.numpy().tolist() for n, p in lazy.named_parameters()}
    per = 4 // world
    while ex.iteration < 4:
        rng = np.random.default_rng(ex.iteration)
        x, y = rng.standard_normal((4, 2, 4, 4)), rng.integers(0, 4, 4)
        opt.zero_grad()
        nn.functional.cross_entropy(model(mg.tensor(x[rank * per:(rank + 1) * per])),
                                    mg.tensor(y[rank * per:(rank + 1) * per])).backward()
        opt.step()
        ex.step()
        if mode == "fresh" and ex.iteration == 2:
            manager.save_snapshot(ex)
            start = {n: p.numpy().tolist() for n, p in lazy.named_parameters()}  # what a resume starts from
    assert_same_on_all_ranks(model, "lazy model")
    result({"refused": refused, "start": start, "end": {n: p.numpy().tolist() for n, p in lazy.named_parameters()},
            "types": [type(m).__name__ for m in lazy]})


def scenario_pending_gradients(out_dir: str) -> None:
    """Collective saves between no_sync() micro-batches (each rank's own gradients), after the synced
    backward, after the step, and where only rank 1's micro-batch left a gradient: what each rank is
    warned of, and from which file (the user's line)."""
    import warnings

    from minigrad_ckpt.snapshot import SnapshotManager

    rank = dist.get_rank()
    mg.manual_seed(0)
    model = DDP(nn.Linear(3, 2))
    opt = optim.SGD(model.parameters(), lr=0.1)
    ex = mg.Executor(model, opt)
    manager = SnapshotManager(os.path.join(out_dir, "snapshots"), max_snapshots=10)
    said = {}

    def save(what: str, blocking: bool = True) -> None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            handle = manager.save_snapshot(ex, blocking=blocking)
            if not blocking:
                handle.result()
        said[what] = [(str(w.message), os.path.basename(w.filename)) for w in caught if "gradient" in str(w.message)]
        ex.step()

    x = mg.ones(2, 3) * (rank + 1)
    with model.no_sync():
        model(x).sum().backward()
    save("no_sync")
    save("no_sync_async", blocking=False)
    model(x).sum().backward()
    save("synced")
    opt.step()
    save("stepped")
    opt.zero_grad()
    with model.no_sync():
        (model(x).sum() * rank).backward()  # rank 0's gradients stay zeros
    save("rank1_only")
    result(said)


if __name__ == "__main__":
    name, *args = sys.argv[1:]
    if name not in ("single", "nccl", "elastic", "torch_api"):
        dist.init_process_group("mpi")
    globals()[f"scenario_{name}"](*args)
    if dist.is_initialized():
        dist.destroy_process_group()
