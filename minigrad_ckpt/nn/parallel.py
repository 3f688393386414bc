"""``DistributedDataParallel``: the same model on every rank, gradients averaged.

Each rank runs forward and backward on its own share of the batch; during
backward the gradients are averaged across ranks so that every rank takes the
same optimizer step.  How (see ``docs/distributed.md``):

* **Buckets.**  The parameters, in reverse registration order (roughly the
  order backward finishes them), are grouped into buckets of about
  ``bucket_cap_mb`` each.  A bucket's small gradients are copied into one
  flat buffer and reduced by one all-reduce instead of one per parameter;
  a gradient of 1 MiB or more is reduced in place in ``.grad``, by an
  all-reduce of its own started at the same moment (copying it would cost
  more than the extra collective).
* **The ready hook.**  Every parameter has a post-accumulate-grad hook: the
  engine calls it the moment that parameter's ``.grad`` is final, *during*
  backward.  When a bucket's last gradient is ready, its ``Iallreduce`` starts
  (non-blocking) while backward computes the earlier layers' gradients.
  Buckets are started in index order on every rank -- never in ready order --
  so the ranks' collectives always match.
* **The end.**  A callback queued on the running backward starts the buckets
  that are left (a parameter that got no gradient counts as zeros), waits for
  all of them and writes the averages into ``.grad`` before ``backward()``
  returns.

``no_sync()`` skips the averaging for gradient accumulation; with
``forward_sync_buffers`` (BatchNorm statistics) rank 0's buffers are broadcast
before each forward that follows one with grad and gradient sync (PyTorch's
rule).  ``join()`` (PyTorch's ``Join``) lets ranks with fewer batches finish:
a rank that ran out shadows the others' collectives until every rank has, so
uneven inputs never hang.
"""

from __future__ import annotations

import contextlib
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

from ..backward import current_backward, queue_callback
from ..distributed.algorithms.join import Joinable
from ..func.module_call import stands_in
from ..grad_mode import is_grad_enabled, no_grad
from ..submodule_paths import install as _install_submodules
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
from .data_parallel import DataParallel
from .module import Module
from .scatter_gather import gather, scatter, scatter_kwargs
from .uninitialized import is_lazy

__all__ = ["DistributedDataParallel", "DataParallel", "gather", "scatter", "scatter_kwargs"]


#: A gradient at least this large is all-reduced where it lies, in ``.grad`` (one collective of
#: its own), not copied into its bucket's flat buffer first: the copy of DDP's 7 MiB of weight
#: gradients cost 1 ms a step, one more collective tens of microseconds.
_IN_PLACE_BYTES = 2**20


class _Bucket:
    """Parameters whose gradients are all-reduced together, started at one moment.

    The small ones (``packed``) are copied into one flat ``buffer`` and reduced
    by one collective; each large one is reduced in place by one of its own.
    Every rank issues the same collectives in the same order: what is packed
    depends on the parameters' sizes only."""

    __slots__ = ("index", "params", "packed", "large", "offsets", "buffer", "pending", "works", "alone",
                 "first_slot", "averaged", "hooked")

    def __init__(self, index: int, params: list[Any], xp: Any, dtype: Any) -> None:
        self.index = index
        self.params = params
        self.packed = [p for p in params if p.size * p.dtype.itemsize < _IN_PLACE_BYTES]
        self.large = [p for p in params if p.size * p.dtype.itemsize >= _IN_PLACE_BYTES]
        self.offsets = []
        n = 0
        for p in self.packed:
            self.offsets.append(n)
            n += p.size
        self.buffer = xp.empty((n,), dtype=dtype)
        self.pending = len(params)
        self.works: list[Any] = []              # the started collectives
        self.alone: list[tuple[Any, Any]] = []  # (parameter, the array reduced for it alone)
        self.first_slot = 0  # its first array's slot in the shared-memory sums, when those are used
        self.averaged = False  # whether its collectives wrote the mean (shared memory), not the sum
        self.hooked: Any = None  # with a communication hook: the Future of its reduced flat gradients

    @property
    def nbytes(self) -> int:
        return sum(int(p.size) for p in self.params) * self.buffer.dtype.itemsize

    def arrays(self) -> list[Any]:
        """What the bucket's collectives reduce, in launch order: zeros (a rank that shadows)."""
        xp = self.params[0]._device.xp
        out = [self.buffer] if self.packed else []
        return out + [xp.zeros((p.size,), dtype=self.buffer.dtype) for p in self.large]

    def sizes(self) -> list[tuple[int, Any]]:
        """``(size, dtype)`` of what its collectives reduce, in launch order."""
        return [(int(a.size), a.dtype) for a in ([self.buffer] if self.packed else [])] + [
            (int(p.size), self.buffer.dtype) for p in self.large]


# the join() blocks in progress in this process: a GradScaler's update() inside one is noted there
_OPEN_JOINS: list[_Join] = []


def note_grad_scaler(scaler: Any) -> None:
    """Called by ``GradScaler.update()``: the ``join()`` blocks in progress sync its state at their
    end, as they sync ``scaler=`` (see ``DistributedDataParallel.join``)."""
    for state in _OPEN_JOINS:
        if all(s is not scaler for s in state.scalers):
            state.scalers.append(scaler)


_DEFAULT_BUCKET_MB = 25  # PyTorch's default bucket_cap_mb
_FIRST_BUCKET_MB = 1     # and its first bucket's cap with that default (dist._DEFAULT_FIRST_BUCKET_BYTES)


class DistributedDataParallel(Module):
    """Wrap ``module`` for data-parallel training (every rank must construct it).

    Construction is collective: it checks that every rank has the same
    parameter names, shapes and dtypes (an error naming the first difference
    is raised on every rank) and then broadcasts parameters and buffers from
    rank 0, so all replicas start equal whatever each rank's seed was.

    ``bucket_cap_mb`` is the size of a gradient bucket in MiB (a parameter
    larger than that gets a bucket of its own); left at its default (25), the
    first bucket -- the last layers, whose gradients are ready first -- holds
    at most 1 MiB, as in PyTorch, so its all-reduce starts early in backward.  Calling the wrapper runs
    ``module``; ``wrapper.module`` is the wrapped model.  ``backward()`` through
    its output averages the gradients across ranks before it returns.  A
    parameter that gets no gradient in a backward is reduced as zeros (its
    ``.grad`` becomes the average of the ranks' gradients, zeros if none used
    it), so no graph search for unused parameters is needed; with
    ``find_unused_parameters=True`` one more collective finds the parameters no
    rank used, whose ``.grad`` is left untouched, as PyTorch's (where PyTorch
    without the option raises at the next forward, the engine averages zeros).

    The arguments are PyTorch's, in its order.  ``device_ids`` names the one GPU
    of a GPU module (``None`` for a CPU module); ``process_group`` is ``None`` or the
    world group; ``init_sync=False`` skips the check that every rank built the same
    model and the broadcast of rank 0's weights.  ``dim``, ``output_device``,
    ``check_reduction``, ``gradient_as_bucket_view``,
    ``bucket_cap_mb_list`` and ``batched_grad_copy`` change how PyTorch's reducer
    works, not what it computes, and are accepted; ``static_graph=True`` leaves the
    ``.grad`` of a parameter no rank used untouched, as ``find_unused_parameters`` does (PyTorch's
    static graph skips them); ``forward_sync_buffers`` and the
    deprecated ``broadcast_buffers`` mean what they mean in PyTorch 2.13 (see
    ``_buffer_sync``); the options that change what is reduced (``mixed_precision``, ``param_to_hook_all_reduce``,
    ``delay_all_reduce_named_params``, ``device_mesh``,
    ``skip_all_reduce_unused_params``) are refused.
    ``backward(create_graph=True)`` is refused (the averaged gradients would
    not be differentiable).  PyTorch's two public switches are attributes here too:
    ``require_backward_grad_sync = False`` is what ``no_sync()`` sets (a forward with it
    off only accumulates), ``require_forward_param_sync = False`` skips the buffers'
    broadcast before the next forward -- each forward sets it, as PyTorch's does, to
    whether it ran with grad and gradient sync.  When every rank runs on one machine (CPU tensors,
    MPI), the gradients are summed through a shared-memory window instead of
    MPI's all-reduce -- about half the time, bitwise the same for two ranks
    (``minigrad_ckpt/distributed/_node_sum.py``; ``docs/distributed.md``).
    """

    _progress_thread = True  # poll open all-reduces from a thread (benchmarks/distributed.py compares)
    _shared_memory = True    # ranks of one machine sum through shared memory (benchmarks/distributed.py compares)

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None, dim: int = 0,
                 broadcast_buffers: bool | None = None, init_sync: bool = True, process_group: Any = None,
                 bucket_cap_mb: float | None = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params: Any = None, param_to_hook_all_reduce: Any = None,
                 mixed_precision: Any = None, device_mesh: Any = None,
                 skip_all_reduce_unused_params: bool = False, bucket_cap_mb_list: Any = None,
                 batched_grad_copy: bool = False, forward_sync_buffers: bool | None = None) -> None:
        super().__init__()
        from .. import distributed as dist

        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel wraps a Module, got {type(module).__name__}")
        _refuse_options_not_offered(delay_all_reduce_named_params=delay_all_reduce_named_params,
                                    param_to_hook_all_reduce=param_to_hook_all_reduce,
                                    mixed_precision=mixed_precision, device_mesh=device_mesh,
                                    skip_all_reduce_unused_params=skip_all_reduce_unused_params or None)
        _check_device_ids(module, device_ids, output_device)
        first_cap_mb = _FIRST_BUCKET_MB if bucket_cap_mb is None else bucket_cap_mb  # PyTorch's rule
        bucket_cap_mb = _DEFAULT_BUCKET_MB if bucket_cap_mb is None else bucket_cap_mb
        if not bucket_cap_mb > 0:
            raise ValueError(f"bucket_cap_mb must be > 0, got {bucket_cap_mb}")
        self.module = module
        group = dist.world.world_group(process_group, "DistributedDataParallel")
        object.__setattr__(self, "_group", group)
        forward_sync, init_sync_buffers = _buffer_sync(broadcast_buffers, forward_sync_buffers)
        object.__setattr__(self, "forward_sync_buffers", forward_sync)
        object.__setattr__(self, "bucket_cap_mb", bucket_cap_mb)
        # PyTorch's hints, kept for reading back; the reduction needs none of them (see the class docstring)
        for name, value in (("dim", dim), ("find_unused_parameters", find_unused_parameters),
                            ("gradient_as_bucket_view", gradient_as_bucket_view), ("static_graph", static_graph),
                            ("bucket_cap_mb_list", bucket_cap_mb_list), ("batched_grad_copy", batched_grad_copy)):
            object.__setattr__(self, name, value)
        if init_sync:  # (first: a rank whose flags differ is named on every rank)
            self._verify_same_model(group)
        else:
            _refuse_uninitialized([n for n, t in _named_tensors(module) if is_lazy(t)], None)
        params = [p for _, p in module.named_parameters() if p.requires_grad]
        if not params:  # PyTorch's refusal: there would be nothing to average
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        if init_sync:
            self._sync_from_rank0(group, init_sync_buffers)
        object.__setattr__(self, "_buckets", self._make_buckets(params, bucket_cap_mb, first_cap_mb))
        where = {}
        for b in self._buckets:
            for p in b.params:
                where[id(p)] = b
        object.__setattr__(self, "_where", where)
        object.__setattr__(self, "_wrapped_as", [(p, p._data.dtype, p._device) for p in params])
        object.__setattr__(self, "_node_sum", self._make_node_sum(group))
        self._start_bookkeeping(group)
        handles = [p.register_post_accumulate_grad_hook(self._on_grad_ready) for p in params]
        object.__setattr__(self, "_hook_handles", handles)

    def _start_bookkeeping(self, group: Any) -> None:
        """The state the forwards and backwards keep between calls: the switches, the bucket
        cursor, the locks and the join() and comm-hook settings."""
        # PyTorch's public switches, which scripts set directly (nanoGPT's gradient accumulation sets
        # require_backward_grad_sync rather than entering no_sync()): read at each forward
        object.__setattr__(self, "require_backward_grad_sync", True)
        object.__setattr__(self, "require_forward_param_sync", True)
        # A backward averages only after a forward through the wrapper with grad and gradient sync
        # (PyTorch's prepare_for_backward), until it has: a backward through ``ddp.module`` -- or inside
        # no_sync(), or before the first forward -- stays local, and a no_sync() forward after a synced
        # one does not take back the averaging that one asked for.
        object.__setattr__(self, "_armed", False)
        object.__setattr__(self, "_active", False)     # a backward with reduction is running
        object.__setattr__(self, "_next", 0)           # the next bucket to start
        object.__setattr__(self, "wait_seconds", 0.0)  # time the last backward waited for all-reduces
        object.__setattr__(self, "_poller", None)
        object.__setattr__(self, "_reduced_in_place", set())  # memory of the .grads reduced where they lie
        object.__setattr__(self, "_used", set())  # ids of the parameters given a gradient since the last averaging
        object.__setattr__(self, "_stop", threading.Event())
        object.__setattr__(self, "_mpi_lock", threading.Lock())  # one thread in MPI on our requests at a time
        object.__setattr__(self, "_join", None)           # the join() block in progress, if any
        # the rank whose buffers the forwards broadcast: rank 0, and the highest rank (the highest with
        # data, all of them) once a join() block was entered -- PyTorch's DDP keeps its Join config
        object.__setattr__(self, "_buffer_source", 0)
        object.__setattr__(self, "_divisor", group.size)  # what the summed gradients are divided by
        object.__setattr__(self, "_comm_hook", None)  # (state, hook) of register_comm_hook

    # --------------------------------------------------------- construction
    def _verify_same_model(self, group: Any) -> None:
        mine = [(kind, n, None if is_lazy(t) else tuple(t.shape), str(t.dtype), kind == "parameter" and
                 bool(t.requires_grad)) for n, t, kind in _named_tensors(self.module, kinds=True)]
        every = group.allgather_object(mine)  # every rank sees every rank's signature: all raise alike
        for rank, sig in enumerate(every):  # (a lazy layer on one rank only is refused on every rank too)
            _refuse_uninitialized([entry[1] for entry in sig if entry[2] is None], rank)
        ref = every[0]
        for rank, sig in enumerate(every[1:], start=1):
            problem = _first_difference(ref, sig, rank)
            if problem is not None:
                raise RuntimeError(f"DistributedDataParallel: the model differs between ranks: {problem} "
                                   f"(every rank must build the same model, in the same order)")

    def _sync_from_rank0(self, group: Any, buffers: bool) -> None:
        for t in list(self.module.parameters()) + (list(self.module.buffers()) if buffers else []):
            t.prepare_write()  # MPI writes into the array
            group.broadcast(t._data, 0)
            t.increment_version()

    @staticmethod
    def _make_buckets(params: list[Any], cap_mb: float, first_cap_mb: float) -> list[_Bucket]:
        buckets: list[_Bucket] = []
        current: list[Any] = []
        size = 0
        for p in reversed(params):  # backward finishes the last-registered layers first
            nbytes = p.size * p.dtype.itemsize
            cap = (cap_mb if buckets else first_cap_mb) * 2**20
            same_kind = not current or (current[0].dtype == p.dtype and current[0].device == p.device)
            if current and (size + nbytes > cap or not same_kind):
                buckets.append(_Bucket(len(buckets), current, current[0]._device.xp, current[0].dtype))
                current, size = [], 0
            current.append(p)
            size += nbytes
        if current:
            buckets.append(_Bucket(len(buckets), current, current[0]._device.xp, current[0].dtype))
        return buckets

    def _make_node_sum(self, group: Any) -> Any:
        """Shared-memory slots for the buckets' sums when every rank runs on this machine (CPU
        tensors, MPI): a sum there costs about half of MPI's all-reduce (see ``_node_sum``)."""
        if not (self._shared_memory and group.backend == "mpi" and group.node_comm is not None and self._buckets):
            return None
        if any(b.buffer.dtype.kind not in "fc" or type(b.buffer).__module__ != "numpy" for b in self._buckets):
            return None
        from ..distributed._node_sum import NodeSum

        specs: list[tuple[int, Any]] = []
        for b in self._buckets:
            b.first_slot = len(specs)
            specs += b.sizes()
        return NodeSum.create(group, specs)  # None where shared memory lacks the room: MPI then

    @property
    def bucket_sizes(self) -> list[int]:
        """How many parameters each bucket holds, in launch order."""
        return [len(b.params) for b in self._buckets]

    @property
    def broadcast_buffers(self) -> bool:
        """PyTorch's older name of ``forward_sync_buffers`` (deprecated there since 2.13)."""
        return self.forward_sync_buffers

    @broadcast_buffers.setter
    def broadcast_buffers(self, value: bool) -> None:
        object.__setattr__(self, "forward_sync_buffers", value)

    # -------------------------------------------------------------- forward
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        # Inside mg.func.functional_call(ddp, params, ...) (mg.func.grad of a loss of the weights)
        # the parameters are the caller's tensors: their gradients are this rank's own, returned by
        # the transform, and never reach the buckets -- a forward without averaging, as PyTorch's.
        local = stands_in(self) and self._some_parameter_stood_in_for()
        if is_grad_enabled() and self.require_backward_grad_sync and not local:
            self._refuse_parameters_changed_since_wrapping()
        buffers = self.forward_sync_buffers and self.require_forward_param_sync and self._group.size > 1
        source = self._buffer_source
        if self._join is not None:
            # a forward without grad (an evaluation inside the block) has no backward to shadow:
            # announced as syncing, the ranks that ran out would wait in all-reduces nobody starts
            sync = self.require_backward_grad_sync and is_grad_enabled() and not local
            self._join.announce(self, active=True, sync=sync, buffers=buffers)
            source = self._join.source  # rank 0 may have run out: its buffers are stale (PyTorch's rule)
        if buffers:
            self._broadcast_buffers(source)
        sync = is_grad_enabled() and bool(self.require_backward_grad_sync)
        if sync and not local:
            object.__setattr__(self, "_armed", True)
        out = self.module(*args, **kwargs)
        # PyTorch's rule: the next forward broadcasts the buffers only after one with grad and gradient
        # sync -- through no_sync accumulation or a run of no_grad forwards, before the first only
        object.__setattr__(self, "require_forward_param_sync", sync)
        if sync and not local:
            # A hook on each output starts the bookkeeping as backward enters
            # it, so even a rank whose loss reaches no parameter joins the
            # all-reduces (as zeros) instead of leaving the others waiting.
            for t in _tensors_in(out):
                if t.requires_grad and t.grad_fn is not None:
                    t.register_hook(self._on_backward_start)
        return out

    def _some_parameter_stood_in_for(self) -> bool:
        """Whether a wrapped parameter is out of its place now -- a functional_call put the caller's
        tensor there.  A functional_call of a model holding this one that swaps only other tensors
        (a head beside it) leaves the wrapped parameters in place: that forward reaches them, and
        its backward averages, as PyTorch's (its reducer's hooks sit on them)."""
        current, stack = set(), [self.module]
        while stack:
            m = stack.pop()
            stack.extend(c for c in m._modules.values() if c is not None)
            current.update(id(p) for p in m._parameters.values() if p is not None)
        return any(id(p) not in current for p, _, _ in self._wrapped_as)

    def _refuse_parameters_changed_since_wrapping(self) -> None:
        """PyTorch's rule: never change the model's parameters after wrapping it.  The buckets were
        laid out for the parameters, dtypes and devices of that moment; a ``ddp.double()`` after it
        averaged float64 gradients in the float32 buckets (rounded to float32, silently), and a
        parameter added or replaced after it was never averaged (the ranks drifted apart).  Raised
        before the forward, on every rank alike, so no rank waits in a collective.  (Every forward,
        so cheaply: the fields compared directly and the modules' own parameter tables walked, not
        ``named_parameters``, whose generator of names was most of the check's time in the review's
        measurement; the names are looked up only to raise.)"""
        for p, dtype, device in self._wrapped_as:
            if p._data.dtype != dtype or p._device is not device:
                raise RuntimeError(
                    f"DistributedDataParallel: parameter '{self._name_of(p)}' is {p.dtype} on {p.device} now, "
                    f"{dtype} on {device} when the model was wrapped; convert the model (.to(...), .double()) "
                    f"before wrapping it: the gradient buckets are laid out at construction")
        where, stack = self._where, [self.module]
        while stack:  # (the modules' own tables, walked without named_modules' generator of names)
            m = stack.pop()
            stack.extend(c for c in m._modules.values() if c is not None)
            for p in m._parameters.values():
                if p is not None and p._requires_grad and id(p) not in where:
                    raise RuntimeError(
                        f"DistributedDataParallel: parameter '{self._name_of(p)}' was added, replaced or unfrozen "
                        f"after the model was wrapped, so its gradient would never be averaged; build the whole "
                        f"model before wrapping it")

    def _name_of(self, p: Tensor) -> str:
        return next((n for n, q in self.module.named_parameters() if q is p), "a parameter")

    def _broadcast_buffers(self, source: int) -> None:
        for b in self.module.buffers():
            b.prepare_write()
            self._group.broadcast(b._data, source)
            b.increment_version()

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside, forward/backward passes only accumulate local gradients; the
        first backward after a forward outside it averages the accumulated sum."""
        old = self.require_backward_grad_sync
        object.__setattr__(self, "require_backward_grad_sync", False)
        try:
            yield
        finally:
            object.__setattr__(self, "require_backward_grad_sync", old)

    # ------------------------------------------------------------- backward
    def _start(self) -> None:
        call = current_backward()
        if call is not None and call.create_graph:
            raise RuntimeError(
                "DistributedDataParallel does not support backward(create_graph=True): the averaged "
                "gradients would not be differentiable.  Compute higher-order gradients on the wrapped "
                "module (wrapper.module) without DDP, or average them yourself with "
                "mg.distributed.all_reduce")
        object.__setattr__(self, "_active", True)
        object.__setattr__(self, "_next", 0)
        for b in self._buckets:
            b.pending = len(b.params)
            b.works = []
        self._reduced_in_place.clear()
        queue_callback(self._finish)

    def _on_backward_start(self, grad: Tensor) -> None:
        # Only a backward() accumulates into .grad: autograd.grad (and mg.func's transforms) through
        # the output runs this hook too, but has nothing to average, and the forward stays armed
        # for a backward() through it later, as PyTorch's reducer does.
        if self._armed and not self._active and current_backward() is not None:
            self._start()

    def _on_grad_ready(self, p: Tensor) -> None:
        self._used.add(id(p))  # since the last averaging, no_sync's backwards too (PyTorch's local_used_map)
        if not self._armed:
            return
        if not self._active:
            self._start()
        b = self._where[id(p)]
        b.pending -= 1
        if b.pending == 0:
            self._launch_ready()

    def _launch_ready(self) -> None:
        buckets = self._buckets
        while self._next < len(buckets) and buckets[self._next].pending == 0:
            self._launch(buckets[self._next])
        if (self._poller is None and self._progress_thread and self._group.backend == "mpi" and self._group.size > 1
                and not self._summing_in_shared_memory() and self._comm_hook is None):
            self._start_poller()

    def _start_poller(self) -> None:
        # MPI moves a non-blocking collective forward only inside MPI calls.
        # While backward computes (NumPy releases the GIL in its kernels), this
        # thread keeps calling Test so the all-reduces progress meanwhile.
        self._stop.clear()
        buckets = self._buckets

        def poll() -> None:
            while not self._stop.wait(0.0005):
                with self._mpi_lock:
                    for work in [w for b in buckets for w in b.works]:
                        if not work.test():
                            break

        t = threading.Thread(target=poll, name="ddp-allreduce-progress", daemon=True)
        object.__setattr__(self, "_poller", t)
        t.start()

    def _stop_poller(self) -> None:
        if self._poller is not None:
            self._stop.set()
            self._poller.join()
            object.__setattr__(self, "_poller", None)

    def _launch(self, b: _Bucket) -> None:
        b.works, b.alone = [], []
        if self._comm_hook is not None:
            b.hooked = self._call_comm_hook(b)
            object.__setattr__(self, "_next", b.index + 1)
            return
        if b.packed:
            buf = b.buffer
            for p, off in zip(b.packed, b.offsets):
                g = p._grad
                if g is None:  # no gradient in this backward: it takes part as zeros
                    buf[off:off + p.size] = 0
                else:
                    buf[off:off + p.size] = g._data.reshape(-1)
            self._start_reduce(b, buf)
        for p in b.large:
            hooks = p._post_hooks  # a user's hook after ours runs while the collective writes .grad
            watched = bool(hooks) and hooks[-1] != self._on_grad_ready
            arr = self._reducible_grad(p, b.buffer.dtype, self._reduced_in_place, watched)
            b.alone.append((p, arr))
            self._start_reduce(b, arr)
        object.__setattr__(self, "_next", b.index + 1)

    def _summing_in_shared_memory(self) -> bool:
        # not inside join(): a rank that shadows the others reduces through MPI, so all do then
        return self._node_sum is not None and self._join is None

    def _start_reduce(self, b: _Bucket, arr: Any) -> None:
        b.averaged = self._summing_in_shared_memory()
        if b.averaged:  # the sums come back divided: one pass over them, not two
            b.works.append(self._node_sum.start(b.first_slot + len(b.works), arr, divisor=self._divisor))
            return
        with self._mpi_lock:
            b.works.append(self._group.iall_reduce(arr))

    @staticmethod
    def _reducible_grad(p: Tensor, dtype: Any, taken: set[int], watched: bool = False) -> Any:
        """``p``'s gradient as a flat contiguous array to reduce in place: its own memory when it
        can be (the engine hands ``.grad`` over when no other gradient shares it), a copy when
        not.  Also a copy when another parameter's ``.grad`` in this backward shares that memory
        (set by hand: two in-place reductions of one buffer would add it twice; ``taken`` holds
        the memory reduced in place so far), or when ``watched``: a post-accumulate hook of the
        user's runs after DDP's, and must see (and may change) this rank's own gradient, not a
        sum in progress -- the copy is taken before it runs, as the bucket's copies always were."""
        g = p._grad
        xp = p._device.xp
        if g is None:
            return xp.zeros((p.size,), dtype=dtype)
        owner = id(xp.memory_owner(g._data))
        if not watched and g._data.dtype == dtype and g._data.flags.c_contiguous and owner not in taken:
            taken.add(owner)
            g.prepare_write()  # the collective writes into .grad behind the engine's back
            return g._data.reshape(-1)
        return g._data.astype(dtype, order="C").reshape(-1)  # astype copies, always

    def _finish(self) -> None:
        try:
            for b in self._buckets[self._next:]:  # what is left: unused parameters are zeros
                b.pending = 0
                self._launch(b)
            start = time.perf_counter()
            self._stop_poller()
            for b in self._buckets:
                for work in b.works:
                    work.wait()
            object.__setattr__(self, "wait_seconds", time.perf_counter() - start)
            used = self._used_by_some_rank() if self._finds_unused else None
            for b in self._buckets:
                if b.hooked is not None:
                    self._write_hook_result(b, used)
                    continue
                for p, off in zip(b.packed, b.offsets):
                    if used is None or id(p) in used:
                        self._write_mean(p, b.buffer[off:off + p.size], b.averaged)
                for p, arr in b.alone:
                    if used is None or id(p) in used:
                        self._write_mean(p, arr, b.averaged)
                b.works, b.alone = [], []  # the copies may be large: not kept until the next backward
        finally:
            self._stop_poller()
            self._used.clear()
            object.__setattr__(self, "_active", False)
            object.__setattr__(self, "_armed", False)  # (the next averaging waits for the next synced forward)

    @property
    def _finds_unused(self) -> bool:
        """Whether a parameter no rank used keeps its ``.grad``: ``find_unused_parameters=True``, and
        ``static_graph=True`` too -- PyTorch's static graph skips the parameters unused in it, where
        without either the engine averages zeros into them (and PyTorch raises)."""
        return bool(self.find_unused_parameters or self.static_graph)

    def _used_by_some_rank(self, shadowing: bool = False) -> set[int]:
        """``find_unused_parameters=True``: the ids of the parameters some rank gave a gradient since
        the last averaging -- in this backward or a ``no_sync`` one before it (one collective of a
        flag per parameter).  PyTorch leaves the ``.grad`` of a
        parameter no rank used untouched -- ``None`` stays ``None``, so an optimizer skips it --
        where without the option the engine averages zeros into it."""
        from ..distributed import ReduceOp

        params = [p for b in self._buckets for p in b.params]
        if not params:
            return set()
        xp = params[0]._device.xp
        flags = xp.asarray([0 if shadowing or id(p) not in self._used else 1 for p in params], dtype="int32")
        with self._mpi_lock:
            self._group.all_reduce(flags, ReduceOp.MAX)
        return {id(p) for p, f in zip(params, flags.tolist()) if f}

    def _write_mean(self, p: Tensor, total: Any, averaged: bool = False) -> None:
        # the mean written straight into .grad: one pass, not a division and a copy (the sum
        # is the same bits on every rank, so is the mean); in place when .grad was reduced.
        # ``averaged``: ``total`` is the mean already (nothing to do where it is .grad's memory)
        total = total.reshape(p.shape)
        xp = p._device.xp
        if p._grad is None:
            p._grad = Tensor.constant(total.copy() if averaged else total / self._divisor, p._device)
            return
        out = p._grad._data
        if not averaged:
            xp.divide(total, self._divisor, out=out)
        elif xp.memory_owner(out) is not xp.memory_owner(total):
            out[...] = total
        p._grad.increment_version()

    # ---------------------------------------------------- communication hook
    def register_comm_hook(self, state: Any, hook: Any) -> None:
        """Reduce each gradient bucket with ``hook(state, bucket)`` instead of the mean (PyTorch's):
        ``bucket`` is a :class:`~minigrad_ckpt.distributed.GradBucket` of this rank's flat gradients,
        and the hook returns a Future (``dist.all_reduce(..., async_op=True).get_future()``, chained
        with ``then``) of the reduced flat tensor, which is written into ``.grad`` as it is -- the
        hook divides (``ddp_comm_hooks.default_hooks.allreduce_hook`` is DDP's own mean).  Every rank
        registers the same hook once, before training; the buckets are handed to it in index order
        on every rank, and a rank that shadows the others in ``join()`` hands it zeros."""
        import inspect

        from ..distributed.grad_bucket import GradBucket

        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        bucket = inspect.signature(hook).parameters.get("bucket")
        if bucket is not None and bucket.annotation not in (inspect.Parameter.empty, GradBucket, "GradBucket",
                                                             "dist.GradBucket"):
            raise ValueError("Communication hook: bucket annotation should be dist.GradBucket.")
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        object.__setattr__(self, "_comm_hook", (state, hook))

    def _call_comm_hook(self, b: _Bucket, shadow: bool = False) -> Any:
        """The hook's Future for bucket ``b``: its gradients (zeros where none, or ``shadow``) flat."""
        from ..distributed.grad_bucket import GradBucket

        xp = b.params[0]._device.xp
        flat = xp.zeros((sum(int(p.size) for p in b.params),), dtype=b.buffer.dtype)
        offsets, n = [], 0
        for p in b.params:
            offsets.append(n)
            if p._grad is not None and not shadow:
                flat[n:n + p.size] = p._grad._data.reshape(-1)
            n += int(p.size)
        state, hook = self._comm_hook
        bucket = GradBucket(b.index, Tensor.constant(flat, b.params[0]._device), b.params, offsets,
                            b.index == len(self._buckets) - 1)
        future = hook(state, bucket)
        if not callable(getattr(future, "wait", None)):
            raise TypeError(f"a communication hook returns a Future (Work.get_future()), got {type(future).__name__}")
        return future

    def _write_hook_result(self, b: _Bucket, used: set[int] | None) -> None:
        """The hook's reduced flat gradients into ``.grad``, as they are (the hook divided)."""
        future, b.hooked = b.hooked, None
        value = future.wait()
        total = sum(int(p.size) for p in b.params)
        if not isinstance(value, Tensor) or value.numel() != total:
            raise RuntimeError(f"a communication hook's Future must hold a tensor of the bucket's {total} elements, "
                               f"got {value!r:.80}")
        flat = value._data.reshape(-1)
        n = 0
        for p in b.params:
            part = flat[n:n + p.size].reshape(p.shape).astype(b.buffer.dtype)  # astype copies, always
            n += int(p.size)
            if used is not None and id(p) not in used:
                continue
            if p._grad is None:
                p._grad = Tensor.constant(part, p._device)
            else:
                with no_grad():
                    p._grad.copy_(Tensor.constant(part, p._device))

    # ----------------------------------------------------------------- join
    @contextlib.contextmanager
    def join(self, divide_by_initial_world_size: bool = True, enable: bool = True,
             throw_on_early_termination: bool = False, optimizer: Any = None,
             executor: Any = None, scaler: Any = None) -> Iterator[None]:
        """Train on uneven inputs: ``with ddp.join(): for x, y in loader: ...`` (PyTorch's ``Join``).

        Inside the block each forward first counts, with one small all-reduce,
        the ranks that still have data.  A rank whose loop ended waits at the
        end of the block and *shadows* the others: it answers that count with
        0, joins their buffer broadcasts and gradient all-reduces with zeros,
        until no rank has data left -- so every rank leaves the block, none
        hangs.  The summed gradients are divided by the initial world size
        (``divide_by_initial_world_size=True``, PyTorch's default: a rank that
        ran out counts as a zero gradient) or by the number of ranks that
        still have data (``False``: the average over the real batches).

        Buffers are broadcast before each forward from the highest rank that
        still has data (PyTorch's rule: rank 0's are stale once it ran out).
        When the block ends the replicas are in sync again: the parameters,
        the buffers (unless ``broadcast_buffers=False``) and ``optimizer``'s
        state, if given (an extension: the ranks that joined early took fewer
        steps), are broadcast from the highest rank that ran to the end; so
        is ``executor``'s ``iteration`` (an extension; its scheduler follows,
        and its optimizer when ``optimizer`` is not given): every rank
        counts the steps of the replica it now holds, so a loop that saves on
        ``ex.iteration % k`` calls its collective saves on the same steps.  So
        is the state of every ``GradScaler`` (an extension): inside the block
        every rank with data takes the same skip-or-step decision (the
        gradients it checks are all-reduced), but a rank that ran out missed
        the later backoffs and growths, and would scale with another factor
        after it -- the averaged gradients, unscaled by each rank's own
        scale, would differ and the replicas drift apart (PyTorch's do).  The
        scalers synced are ``scaler``, if given, and those whose ``update()``
        ran in the block; where the ranks saw different numbers of them (a
        rank had no batch in the block) those are not synced, with a
        warning: pass ``scaler=``.
        A collective save (``SnapshotManager.save_snapshot``) inside the block
        while a rank has run out is refused on every rank with a
        ``DistributedError`` naming the cause: that rank, shadowing, cannot
        take part in it.  ``throw_on_early_termination=True`` raises on every
        rank as soon as one ran out, instead of shadowing.  ``enable=False``
        makes the block a no-op.
        """
        if not enable or self._group.size == 1:
            yield
            return
        if self._join is not None:
            raise RuntimeError("DistributedDataParallel.join() blocks do not nest")
        object.__setattr__(self, "_buffer_source", self._group.size - 1)
        state = _Join(bool(divide_by_initial_world_size), bool(throw_on_early_termination))
        object.__setattr__(self, "_join", state)
        _OPEN_JOINS.append(state)
        try:
            yield
            while state.announce(self, active=False, sync=False):  # shadow the ranks that have data
                self._shadow_iteration(state)
            self._sync_after_join(state, optimizer, executor, scaler)
        finally:
            _OPEN_JOINS.remove(state)
            object.__setattr__(self, "_join", None)
            object.__setattr__(self, "_divisor", self._group.size)

    def _shadow_iteration(self, state: _Join) -> None:
        """What a forward/backward of the ranks with data does collectively, with nothing to add."""
        if state.buffers:  # as the ranks with data do (their switches, not this rank's, decide)
            self._broadcast_buffers(state.source)
        if state.syncing:
            for b in self._buckets:  # in index order, as every rank starts them
                if self._comm_hook is not None:  # the hook's collectives, on zeros (PyTorch's join hook)
                    self._call_comm_hook(b, shadow=True).wait()
                    continue
                for arr in b.arrays():
                    if arr is b.buffer:
                        arr[...] = 0
                    with self._mpi_lock:
                        work = self._group.iall_reduce(arr)
                    work.wait()
            if self._finds_unused:
                self._used_by_some_rank(shadowing=True)
        # as PyTorch's join hook: the next forward after the block broadcasts the buffers exactly
        # where the ranks with data do (theirs was synced or not)
        object.__setattr__(self, "require_forward_param_sync", state.syncing)

    def _sync_after_join(self, state: _Join, optimizer: Any, executor: Any, scaler: Any = None) -> None:
        seen = [s for s in state.scalers if s is not scaler]
        gathered = self._group.allgather_object((state.iterations, len(seen)))
        counts = [c for c, _ in gathered]
        # the highest rank that ran to the end (PyTorch's choice): its replica is the current one
        src = max(r for r, c in enumerate(counts) if c == max(counts))
        if len({n for _, n in gathered}) > 1:
            warnings.warn(f"DistributedDataParallel.join: the ranks updated different numbers of GradScalers in the "
                          f"block ({[n for _, n in gathered]}: a rank with no batch updated none), so their states "
                          f"were not synced and the replicas may scale differently from now on; pass the scaler "
                          f"as join(scaler=...)", UserWarning, stacklevel=stacklevel_outside_the_engine())
            seen = []
        scheduler = None
        if executor is not None:
            optimizer = executor.optimizer if optimizer is None else optimizer
            executor.iteration = self._group.bcast_object(int(executor.iteration), src)
            scheduler = executor.scheduler  # stepped once per step too: the early ranks' are behind
        # the buffers only where the forwards sync them: with broadcast_buffers=False each rank's
        # statistics are its own, in PyTorch and in a snapshot's rank files
        kept = list(self.module.buffers()) if self.forward_sync_buffers else []
        for t in list(self.module.parameters()) + kept:
            t.prepare_write()
            self._group.broadcast(t._data, src)
            t.increment_version()
        for stateful in (optimizer, scheduler, scaler, *seen):
            if stateful is not None:
                sd = self._group.bcast_object(stateful.state_dict() if self._group.rank == src else None, src)
                if self._group.rank != src:
                    stateful.load_state_dict(sd)

    @property
    def all_ranks_have_data(self) -> bool:
        """Whether every rank still had data at the last forward (an extension; always True
        outside a ``join()`` block).  The same on every rank with data: guard a collective
        save inside the block with it, so that none is attempted on an uneven epoch's tail,
        where a rank that ran out could not take part."""
        state = self._join
        return state is None or not 0 <= state.have < self._group.size

    def _refuse_collective_in_join(self, what: str) -> None:
        """Raise on every rank if ``what``, a collective, is called inside a ``join()`` block while
        a rank has run out: the ranks with data tell the shadowing ones, which are waiting in
        the join's count, instead of matching their own collective with it."""
        state = self._join
        if state is not None and not self.all_ranks_have_data:
            state.refuse(self, f"{what} inside DistributedDataParallel.join() while "
                               f"{self._group.size - state.have} rank(s) had run out of inputs: a rank that "
                               f"ran out only shadows DDP's own collectives, so it cannot take part; save "
                               f"after the block, or inside it only if ddp.all_ranks_have_data")

    def extra_repr(self) -> str:
        return f"world_size={self._group.size}, buckets={len(self._buckets)}, bucket_cap_mb={self.bucket_cap_mb}"


def _buffer_sync(broadcast_buffers: Any, forward_sync_buffers: Any) -> tuple[bool, bool]:
    """PyTorch 2.13's two names: whether forwards (and the end of a ``join()``) broadcast the buffers,
    and whether construction does.  ``broadcast_buffers=False`` (deprecated) leaves the buffers
    rank-local from the start; ``forward_sync_buffers=False`` still starts them as rank 0's."""
    if broadcast_buffers is not None and forward_sync_buffers is not None:
        warnings.warn("Both `broadcast_buffers` and `forward_sync_buffers` were specified. `broadcast_buffers` is "
                      "deprecated and its value is ignored when `forward_sync_buffers` is provided.", FutureWarning,
                      stacklevel=stacklevel_outside_the_engine())
    elif broadcast_buffers is not None:
        warnings.warn("`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. IMPORTANT: unlike "
                      "`broadcast_buffers=False`, `forward_sync_buffers=False` still syncs buffers at init. If you "
                      "rely on buffers NOT being synced at init (e.g. rank-local buffers), keep using "
                      "`broadcast_buffers=False` until `init_sync_buffers` is available.", FutureWarning,
                      stacklevel=stacklevel_outside_the_engine())
    if forward_sync_buffers is not None:
        return bool(forward_sync_buffers), True
    forward = True if broadcast_buffers is None else bool(broadcast_buffers)
    return forward, forward


Joinable.register(DistributedDataParallel)  # what torch.distributed.algorithms.join.Join takes


def _refuse_options_not_offered(**options: Any) -> None:
    """PyTorch's options that change what DDP reduces or how: not offered, so refused rather than ignored."""
    for name, value in options.items():
        if value is not None:
            raise NotImplementedError(f"DistributedDataParallel({name}=...) is not offered here")


def _check_device_ids(module: Module, device_ids: Any, output_device: Any) -> None:
    """PyTorch's rule: ``device_ids`` names the one GPU of a single-GPU module, and is ``None`` (or
    empty) for a CPU module."""
    devices = {p.device for p in module.parameters()}
    if not device_ids:
        return
    if len(device_ids) != 1:
        raise ValueError("device_ids can only be None or contain a single element.")
    if len(devices) != 1 or next(iter(devices)).type != "cuda":
        raise ValueError(f"DistributedDataParallel device_ids and output_device arguments only work with "
                         f"single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                         f"{list(device_ids)}, output_device {output_device}, and module parameters {devices}.")
    (device,) = devices
    wanted = device_ids[0]
    index = wanted if isinstance(wanted, int) else getattr(wanted, "index", wanted)
    if index != device.index:
        raise ValueError(f"DistributedDataParallel: device_ids {list(device_ids)} name another GPU than the "
                         f"module's parameters, which are on {device}")


class _Join:
    """The bookkeeping of one ``join()`` block on one rank."""

    def __init__(self, divide_by_initial_world_size: bool, throw: bool) -> None:
        self.divide_by_initial_world_size = divide_by_initial_world_size
        self.throw = throw
        self.iterations = 0   # this rank's forwards in the block
        self.syncing = False  # whether the ranks with data average gradients this iteration
        self.have = -1        # how many ranks had data at the last count (-1: none yet)
        self.source = 0       # the highest rank with data at the last count: the buffers come from it
        self.buffers = False  # whether the ranks with data broadcast the buffers this iteration
        self.scalers: list[Any] = []  # the GradScalers updated in the block, in the order first seen

    def announce(self, ddp: DistributedDataParallel, active: bool, sync: bool, buffers: bool = False) -> bool:
        """The join all-gather: which ranks have data, which of them average gradients and broadcast
        buffers.  Sets the divisor and the buffers' source for this iteration; returns whether any
        rank still has data."""
        # control data over MPI on either backend (a host all-gather of three flags per rank)
        mine = ("join", bool(active), bool(active and sync), bool(active and buffers))
        flags = _checked_flags(ddp, ddp._group.allgather_object(mine), active)
        have, syncing = sum(f[1] for f in flags), sum(f[2] for f in flags)
        self.have = have
        with_data = [r for r, f in enumerate(flags) if f[1]]
        if with_data:
            self.source = with_data[-1]
            self.buffers = flags[self.source][3]
        if self.throw and have < ddp._group.size:
            raise RuntimeError(f"DistributedDataParallel.join: {ddp._group.size - have} rank(s) ran out of "
                               f"inputs (throw_on_early_termination=True)")
        self.syncing = syncing > 0
        if active:
            self.iterations += 1
            object.__setattr__(ddp, "_divisor", ddp._group.size if self.divide_by_initial_world_size else have)
        return have > 0

    def refuse(self, ddp: DistributedDataParallel, why: str) -> None:
        """Raise ``why`` here and, through their next count, on the ranks that ran out."""
        from ..distributed import DistributedError

        ddp._group.allgather_object(("refuse", why))  # answers the shadowing ranks' count
        raise DistributedError(why)


def _checked_flags(ddp: DistributedDataParallel, flags: list, active: bool) -> list:
    """The count's flags -- or the error a rank with data sent instead, or a clear one for a
    rank that called another collective where this rank expected the count."""
    from ..distributed import DistributedError

    for f in flags:
        if isinstance(f, tuple) and len(f) == 2 and f[0] == "refuse":
            raise DistributedError(f[1])
    other = [r for r, f in enumerate(flags) if not (isinstance(f, tuple) and len(f) == 4 and f[0] == "join")]
    if other:
        where = "its forward" if active else "shadowing, having run out of inputs"
        raise DistributedError(
            f"DistributedDataParallel.join: rank(s) {other} called a collective other than DDP's inside the "
            f"join() block while rank {ddp._group.rank} counted the ranks with data ({where}); every rank must "
            f"call the same collectives in the same order, and a rank that ran out shadows only DDP's own")
    return flags


def _tensors_in(out: Any) -> list[Tensor]:
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for x in out for t in _tensors_in(x)]
    if isinstance(out, dict):
        return [t for x in out.values() for t in _tensors_in(x)]
    return []


def _named_tensors(module: Module, kinds: bool = False) -> Iterator[tuple]:
    """``(name, tensor)`` of the module's parameters, then its buffers (``(name, tensor, kind)``)."""
    for kind, named in (("parameter", module.named_parameters()), ("buffer", module.named_buffers())):
        for name, t in named:
            yield (name, t, kind) if kinds else (name, t)


def _refuse_uninitialized(lazy: list[str], rank: int | None) -> None:
    """PyTorch's refusal of a lazy layer before its first input: its weights have no shape yet, so
    no bucket can be laid out for them (and the layer's first call would make new arrays the buckets
    never see).  Raised before the first collective, or on every rank from the gathered signatures."""
    if lazy:
        where = "" if rank is None else f" on rank {rank}"
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DistributedDataParallel`. Run a dummy "
            f"forward pass to correctly initialize the modules (uninitialized{where}: {', '.join(lazy[:4])}"
            f"{', ...' if len(lazy) > 4 else ''})")


def _first_difference(ref: list, sig: list, rank: int) -> str | None:
    for a, b in zip(ref, sig):
        if a == b:
            continue
        kind, name = a[0], a[1]
        if a[:2] != b[:2]:
            return f"{kind} {a[1]!r} on rank 0 is {b[0]} {b[1]!r} on rank {rank}"
        labels = ("", "", "shape", "dtype", "requires_grad")
        for i in (2, 3, 4):
            if a[i] != b[i]:
                return f"{kind} {name!r} has {labels[i]} {a[i]} on rank 0 but {b[i]} on rank {rank}"
    if len(ref) != len(sig):
        longer, which = (ref, 0) if len(ref) > len(sig) else (sig, rank)
        extra = longer[min(len(ref), len(sig))]
        return f"{extra[0]} {extra[1]!r} exists on rank {which} only"
    return None


# PyTorch's torch.nn.parallel is a package: ``from torch.nn.parallel.distributed import
# DistributedDataParallel`` (guided-diffusion's train_util) imports after the rename too
_install_submodules(globals(), {"distributed": ("DistributedDataParallel",), "data_parallel": ("DataParallel",),
                                "scatter_gather": ("scatter", "gather", "scatter_kwargs")})
