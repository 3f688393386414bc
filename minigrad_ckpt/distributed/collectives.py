"""The collectives, under PyTorch's names, arguments and meanings (``torch.distributed``).

Each works in place on tensors' arrays -- MPI's buffer interface for NumPy arrays, NCCL
(through CuPy) for CuPy arrays, nothing pickled -- except the ``*_object`` ones, which
pickle small Python objects.  None is recorded on the tape: a collective's result is
data, as in PyTorch.  ``group=`` is ``None`` or the world group (subgroups are not
offered).  ``async_op=True`` gives back a completed :class:`Work`: the collective has
finished when the call returns, so ``work.wait()`` returns at once, and ``work.get_future()``
is a completed :class:`Future` of the tensors it wrote (``work.result()``), whose ``then``
callbacks run at once.

The engine's own short forms stay: ``all_gather(t)`` returns the list of every rank's
tensor, and ``op`` may be a string (``"sum"``, ``"mean"``, ``"product"``, ``"max"``,
``"min"``) as well as a :class:`ReduceOp`.
"""

from __future__ import annotations

from typing import Any

from ..grad_mode import no_grad
from ..tensor import Tensor
from ._group import ProcessGroup, ReduceOp, Work
from .world import _seconds, world_group


def _array_of(tensor: Any, what: str) -> Any:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{what} takes a Tensor, got {type(tensor).__name__}")
    return tensor._data


def _write(tensor: Tensor, arr: Any) -> None:
    """Put ``arr`` into ``tensor``'s memory (a collective's output is data, not recorded)."""
    with no_grad():
        tensor.copy_(Tensor.constant(arr, tensor._device))


def _reduce_op(op: Any, arr: Any, what: str) -> ReduceOp:
    try:
        op = ReduceOp(op)
    except ValueError:  # PyTorch's binding refuses a non-ReduceOp with TypeError
        names = ", ".join(sorted({o.value for o in ReduceOp}))
        raise TypeError(f"{what}: op must be a ReduceOp or one of {names}; got {op!r}") from None
    if op is ReduceOp.MEAN and arr.dtype.kind not in "fc":  # PyTorch's error for ReduceOp.AVG
        raise RuntimeError(f"{what}(op=ReduceOp.AVG): result type Float can't be cast to the desired output "
                           f"type {arr.dtype} (the mean needs a floating tensor)")
    bitwise = op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)
    if arr.dtype.kind == "c" and (bitwise or op in (ReduceOp.PRODUCT, ReduceOp.MAX, ReduceOp.MIN)):
        # PyTorch's refusal: complex numbers have no order, and it reduces them as pairs of reals
        raise ValueError(f"{what} does not support ReduceOp.{op.name} on complex tensors")
    if bitwise and arr.dtype.kind not in "iub":
        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
    return op


def _root(given: int | None, group_given: int | None, g: ProcessGroup, name: str) -> int:
    """The root rank of a rooted collective: ``src``/``dst`` or ``group_src``/``group_dst`` (the
    same numbers here: the group is the world), 0 when neither is given."""
    if given is not None and group_given is not None:
        raise ValueError(f"Can't specify both {name} and group_{name}")
    root = group_given if given is None else given
    root = 0 if root is None else root
    if not 0 <= root < g.size:  # PyTorch's backends refuse it with RuntimeError, as a script may catch
        raise RuntimeError(f"invalid root rank: {root} ({name} must be a rank in [0, {g.size}))")
    return root


def _same_dtypes(*tensors: Any) -> None:
    """PyTorch's check of a collective's tensors (in its order: a list's entries where they stand):
    one dtype among them all, else its ValueError -- before any rank communicates."""
    first = None
    for t in tensors:
        if isinstance(t, Tensor):
            first = t.dtype if first is None else first
            if t.dtype != first:
                raise ValueError(f"Invalid usage of tensors with different dtypesFound {first} and  {t.dtype}")


def _outputs(tensors: Any, like: Any, count: int, what: str, name: str) -> list[Tensor]:
    """Check a list of ``count`` output tensors shaped and typed as ``like`` (PyTorch's errors)."""
    if not isinstance(tensors, (list, tuple)):  # PyTorch's binding: a TypeError
        raise TypeError(f"{what}: {name} must be a list of tensors, got {type(tensors).__name__}")
    if len(tensors) != count:
        got = len(tensors)
        raise RuntimeError(f"{what}: invalid {name} (expected a list of {count} tensors, got {got})")
    for i, t in enumerate(tensors):
        arr = _array_of(t, what)
        if arr.shape != like.shape or arr.dtype != like.dtype:
            raise RuntimeError(f"{what}: invalid tensor at index {i} of {name} (expected shape {tuple(like.shape)} "
                               f"and dtype {like.dtype}, got {tuple(arr.shape)} and {arr.dtype})")
    return list(tensors)


def _finish(async_op: bool, result: Any, outputs: list[Tensor]) -> Any:
    """What a collective returns: ``result``, or with ``async_op=True`` a completed :class:`Work`
    whose ``result()`` and ``get_future()``'s value are the ``outputs`` it wrote, as PyTorch's."""
    return Work(None, outputs=outputs) if async_op else result


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Work | None:
    """Wait until every rank has reached this call."""
    world_group(group, "barrier").barrier()
    return _finish(async_op, None, [])


def monitored_barrier(group: Any = None, timeout: Any = None, wait_all_ranks: bool = False) -> None:
    """PyTorch's barrier for finding a rank that hangs: :func:`barrier` held to ``timeout`` (seconds or a
    ``timedelta``; the group's own without it) instead of the group's timeout.  A rank that does not
    arrive in time is a :class:`DistributedError` (a ``RuntimeError``, as PyTorch's) on the ranks that
    wait, and, as any collective's timeout, ends the job; MPI's barrier cannot tell which rank is
    missing, so ``wait_all_ranks`` changes nothing."""
    g = world_group(group, "monitored_barrier")
    seconds = g.timeout if timeout is None else _seconds(timeout)
    saved, g.timeout = g.timeout, seconds
    try:
        g.barrier()
    finally:
        g.timeout = saved


def all_reduce(tensor: Tensor, op: ReduceOp | str = ReduceOp.SUM, group: Any = None,
               async_op: bool = False) -> Tensor | Work:
    """Combine ``tensor`` across ranks, in place: afterwards every rank holds the same sum,
    mean (``ReduceOp.AVG``), product, max or min -- bitwise the same on every rank.
    Returns ``tensor`` (a :class:`Work` with ``async_op=True``)."""
    g = world_group(group, "all_reduce")
    arr = _array_of(tensor, "all_reduce")
    op = _reduce_op(op, arr, "all_reduce")
    g.agree(arr, "all_reduce")
    tensor.prepare_write()
    g.all_reduce(arr, op)
    tensor.increment_version()  # MPI wrote into the array
    return _finish(async_op, tensor, [tensor])


def broadcast(tensor: Tensor, src: int | None = None, group: Any = None, async_op: bool = False,
              group_src: int | None = None) -> Tensor | Work:
    """Overwrite ``tensor`` on every rank with rank ``src``'s values (rank 0 by default), in place."""
    g = world_group(group, "broadcast")
    root = _root(src, group_src, g, "src")
    arr = _array_of(tensor, "broadcast")
    tensor.prepare_write()
    g.broadcast(arr, root)
    tensor.increment_version()
    return _finish(async_op, tensor, [tensor])


def all_gather(tensor_list: Any, tensor: Tensor | None = None, group: Any = None,
               async_op: bool = False) -> list[Tensor] | Work | None:
    """Every rank's tensor, in rank order (same shape and dtype on all ranks).

    PyTorch's form ``all_gather(tensor_list, tensor)`` fills the ``world size`` tensors of
    ``tensor_list`` in place; the short form ``all_gather(tensor)`` returns a new list.
    """
    g = world_group(group, "all_gather")
    if tensor is None:  # the short form: all_gather(tensor)
        arr = _array_of(tensor_list, "all_gather")
        g.agree(arr, "all_gather")
        out = g.all_gather(arr)
        # out[i, ...] keeps a 0-d row an array (out[i] would be a NumPy scalar)
        return [Tensor.constant(out[i, ...], tensor_list._device) for i in range(out.shape[0])]
    arr = _array_of(tensor, "all_gather")
    _same_dtypes(*(tensor_list if isinstance(tensor_list, (list, tuple)) else []), tensor)
    outputs = _outputs(tensor_list, arr, g.size, "all_gather", "tensor_list")
    g.agree(arr, "all_gather")
    gathered = g.all_gather(arr)
    for i, t in enumerate(outputs):
        _write(t, gathered[i, ...])
    return _finish(async_op, None, outputs)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group: Any = None,
                           async_op: bool = False) -> Work | None:
    """Every rank's ``input_tensor`` into ``output_tensor``: concatenated along dim 0
    (shape ``(world * n, ...)``) or stacked (shape ``(world, n, ...)``)."""
    g = world_group(group, "all_gather_into_tensor")
    arr = _array_of(input_tensor, "all_gather_into_tensor")
    out = _array_of(output_tensor, "all_gather_into_tensor")
    stacked = (g.size, *arr.shape)
    concatenated = (g.size * arr.shape[0], *arr.shape[1:]) if arr.ndim else stacked[:1]
    if tuple(out.shape) not in (stacked, concatenated) or out.dtype != arr.dtype:
        raise RuntimeError(f"all_gather_into_tensor: output_tensor must have shape {concatenated} or {stacked} and "
                           f"dtype {arr.dtype}, got {tuple(out.shape)} and {out.dtype}")
    g.agree(arr, "all_gather_into_tensor")
    _write(output_tensor, g.all_gather(arr).reshape(out.shape))
    return _finish(async_op, None, [output_tensor])


def reduce(tensor: Tensor, dst: int | None = None, op: ReduceOp | str = ReduceOp.SUM, group: Any = None,
           async_op: bool = False, group_dst: int | None = None) -> Work | None:
    """Combine ``tensor`` across ranks into rank ``dst``'s ``tensor``; other ranks' are left as
    they were."""
    g = world_group(group, "reduce")
    root = _root(dst, group_dst, g, "dst")
    arr = _array_of(tensor, "reduce")
    op = _reduce_op(op, arr, "reduce")
    g.agree(arr, "reduce")
    buf = arr.copy()
    g.all_reduce(buf, op)
    if g.rank == root:
        _write(tensor, buf)
    return _finish(async_op, None, [tensor])


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: ReduceOp | str = ReduceOp.SUM, group: Any = None,
                          async_op: bool = False) -> Work | None:
    """Combine ``input`` across ranks and give rank ``r`` the ``r``-th of ``world`` equal parts of
    the result (``input`` of shape ``(world * n, ...)`` or ``(world, n, ...)``, ``output`` ``(n, ...)``)."""
    g = world_group(group, "reduce_scatter_tensor")
    arr = _array_of(input, "reduce_scatter_tensor")
    out = _array_of(output, "reduce_scatter_tensor")
    op = _reduce_op(op, arr, "reduce_scatter_tensor")
    if arr.size != g.size * out.size or arr.dtype != out.dtype:
        raise RuntimeError(f"reduce_scatter_tensor: input must hold world size ({g.size}) times output's "
                           f"{out.size} elements, of output's dtype {out.dtype}; got {arr.size} of {arr.dtype}")
    g.agree(arr, "reduce_scatter_tensor")
    buf = arr.copy()
    g.all_reduce(buf, op)
    _write(output, buf.reshape((g.size, *out.shape))[g.rank, ...])
    return _finish(async_op, None, [output])


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int | None = None, group: Any = None,
           async_op: bool = False, group_dst: int | None = None) -> Work | None:
    """Every rank's ``tensor`` into the ``world size`` tensors of ``gather_list`` on rank ``dst``
    (only there: other ranks pass ``None``)."""
    g = world_group(group, "gather")
    root = _root(dst, group_dst, g, "dst")
    arr = _array_of(tensor, "gather")
    _same_dtypes(tensor, *(gather_list or []))
    if g.rank == root:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        outputs = _outputs(gather_list, arr, g.size, "gather", "gather_list")
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    g.agree(arr, "gather")
    gathered = g.all_gather(arr)
    if g.rank == root:
        for i, t in enumerate(outputs):
            _write(t, gathered[i, ...])
    return _finish(async_op, None, outputs if g.rank == root else [])


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int | None = None, group: Any = None,
            async_op: bool = False, group_src: int | None = None) -> Work | None:
    """Rank ``src``'s ``scatter_list[r]`` into rank ``r``'s ``tensor`` (``scatter_list`` only on ``src``)."""
    g = world_group(group, "scatter")
    root = _root(src, group_src, g, "src")
    arr = _array_of(tensor, "scatter")
    _same_dtypes(tensor, *(scatter_list or []))
    buf = arr.reshape((1, *arr.shape)).repeat(g.size, axis=0)  # (world, ...) of arr's dtype and device
    if g.rank == root:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        for i, t in enumerate(_outputs(scatter_list, arr, g.size, "scatter", "scatter_list")):
            buf[i, ...] = t._data
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    g.broadcast(buf, root)
    _write(tensor, buf[g.rank, ...])
    return _finish(async_op, None, [tensor])


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: ReduceOp | str = ReduceOp.SUM, group: Any = None,
                   async_op: bool = False) -> Work | None:
    """Combine the ranks' ``input_list`` entry by entry and give rank ``r`` the combined
    ``input_list[r]`` (``world size`` tensors shaped as ``output``)."""
    g = world_group(group, "reduce_scatter")
    out = _array_of(output, "reduce_scatter")
    _same_dtypes(output, *(input_list if isinstance(input_list, (list, tuple)) else []))
    inputs = _outputs(input_list, out, g.size, "reduce_scatter", "input_list")
    op = _reduce_op(op, out, "reduce_scatter")
    buf = output._device.xp.stack([t._data for t in inputs])  # a new (world, ...) array: the inputs stay
    g.all_reduce(buf, op)
    _write(output, buf[g.rank, ...])
    return _finish(async_op, None, [output])


def _splits(sizes: Any, rows: int, world: int, what: str, name: str) -> list[int]:
    """Rows per rank: ``sizes`` as given (summing to ``rows``), or ``rows`` split evenly."""
    if sizes is None or len(sizes) == 0:
        if rows % world:
            raise ValueError(f"{what}: {rows} rows of dim 0 do not split evenly over {world} ranks; pass {name}")
        return [rows // world] * world
    sizes = [int(n) for n in sizes]
    if len(sizes) != world or sum(sizes) != rows or min(sizes) < 0:  # PyTorch's RuntimeError
        raise RuntimeError(f"{what}: {name} must be {world} sizes summing to dim 0's {rows}, got {sizes}")
    return sizes


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: Any = None, input_split_sizes: Any = None,
                      group: Any = None, async_op: bool = False) -> Work | None:
    """Rank ``r`` sends its ``input_split_sizes[j]`` rows (dim 0, in order) to rank ``j``, and writes
    what rank ``i`` sent it into ``output``'s ``output_split_sizes[i]`` rows (even splits without sizes)."""
    g = world_group(group, "all_to_all_single")
    arr, out = _array_of(input, "all_to_all_single"), _array_of(output, "all_to_all_single")
    _same_dtypes(output, input)
    if arr.ndim == 0 or out.ndim == 0 or arr.shape[1:] != out.shape[1:]:
        raise ValueError(f"all_to_all_single: output and input must have the same shape past dim 0, got "
                         f"{tuple(out.shape)} and {tuple(arr.shape)}")
    row = int(arr[:1].size) if arr.shape[0] else int(out[:1].size)  # elements per row of dim 0
    sent = _splits(input_split_sizes, arr.shape[0], g.size, "all_to_all_single", "input_split_sizes")
    got = _splits(output_split_sizes, out.shape[0], g.size, "all_to_all_single", "output_split_sizes")
    buf = output._device.xp.empty(out.shape, dtype=out.dtype)
    g.all_to_all(output._device.xp.ascontiguousarray(arr).reshape(-1), [n * row for n in sent], buf.reshape(-1),
                 [n * row for n in got])
    _write(output, buf)
    return _finish(async_op, None, [output])


def all_to_all(output_tensor_list: list[Tensor], input_tensor_list: list[Tensor], group: Any = None,
               async_op: bool = False) -> Work | None:
    """Rank ``r``'s ``input_tensor_list[j]`` into rank ``j``'s ``output_tensor_list[r]`` (one dtype;
    the shapes of a pair must hold the same number of elements)."""
    g = world_group(group, "all_to_all")
    for name, tensors in (("output_tensor_list", output_tensor_list), ("input_tensor_list", input_tensor_list)):
        if not isinstance(tensors, (list, tuple)) or len(tensors) != g.size:
            raise RuntimeError(f"all_to_all: {name} must hold one tensor per rank ({g.size})")
    _same_dtypes(*input_tensor_list, *output_tensor_list)
    ins = [_array_of(t, "all_to_all") for t in input_tensor_list]
    outs = [_array_of(t, "all_to_all") for t in output_tensor_list]
    xp = output_tensor_list[0]._device.xp
    send = xp.concatenate([a.reshape(-1) for a in ins]) if ins else xp.empty(0)
    recv = xp.empty((sum(int(a.size) for a in outs),), dtype=send.dtype)
    g.all_to_all(send, [int(a.size) for a in ins], recv, [int(a.size) for a in outs])
    start = 0
    for t, a in zip(output_tensor_list, outs):
        _write(t, recv[start:start + a.size].reshape(a.shape))
        start += int(a.size)
    return _finish(async_op, None, list(output_tensor_list))


# ------------------------------------------------------------------ Python objects (pickled)
def all_gather_object(object_list: list[Any], obj: Any, group: Any = None) -> None:
    """Every rank's ``obj`` into ``object_list`` (of world size), in rank order."""
    for i, o in enumerate(world_group(group, "all_gather_object").allgather_object(obj)):
        object_list[i] = o


def broadcast_object_list(object_list: list[Any], src: int | None = None, group: Any = None, device: Any = None,
                          group_src: int | None = None) -> None:
    """Rank ``src``'s ``object_list`` into every rank's (same length on every rank), in place."""
    g = world_group(group, "broadcast_object_list")
    got = g.bcast_object(list(object_list), _root(src, group_src, g, "src"))
    if len(got) != len(object_list):
        raise ValueError(f"broadcast_object_list: rank {g.rank}'s list has {len(object_list)} entries, the source's "
                         f"{len(got)} (every rank passes a list of the same length)")
    object_list[:] = got


def gather_object(obj: Any, object_gather_list: list[Any] | None = None, dst: int | None = None, group: Any = None,
                  group_dst: int | None = None) -> None:
    """Every rank's ``obj`` into ``object_gather_list`` (of world size) on rank ``dst`` only."""
    g = world_group(group, "gather_object")
    root = _root(dst, group_dst, g, "dst")
    if g.rank == root and object_gather_list is None:
        raise ValueError("Argument ``object_gather_list`` must be specified on destination rank.")
    every = g.allgather_object(obj)
    if g.rank == root:
        for i, o in enumerate(every):
            object_gather_list[i] = o


def scatter_object_list(scatter_object_output_list: list[Any], scatter_object_input_list: list[Any] | None = None,
                        src: int | None = None, group: Any = None, group_src: int | None = None) -> None:
    """Rank ``src``'s ``scatter_object_input_list[r]`` into rank ``r``'s
    ``scatter_object_output_list[0]``."""
    g = world_group(group, "scatter_object_list")
    root = _root(src, group_src, g, "src")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:  # PyTorch's
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    if g.rank == root and (scatter_object_input_list is None or len(scatter_object_input_list) != g.size):
        raise ValueError(f"scatter_object_list: the source rank's scatter_object_input_list must hold one object "
                         f"per rank ({g.size})")
    every = g.bcast_object(list(scatter_object_input_list) if g.rank == root else None, root)
    scatter_object_output_list[0] = every[g.rank]
