"""PyTorch's default DDP communication hooks, for ``ddp.register_comm_hook(state, hook)``.

``allreduce_hook`` averages as DDP does without a hook; ``fp16_compress_hook`` sends the
gradients as float16 (divided by the world size first) and writes the float16 mean back in
the gradients' dtype; ``fp16_compress_wrapper(hook)`` does that around another hook.  ``state``
is the process group (``None``: the world).
``bf16_compress_hook`` is not offered: the engine has no bfloat16.
"""

from __future__ import annotations

from typing import Any

from ....backend import host_numpy
from ... import collectives
from ...grad_bucket import GradBucket
from ...world import world_group

__all__ = ["allreduce_hook", "fp16_compress_hook", "fp16_compress_wrapper"]

_FLOAT16 = host_numpy.dtype("float16")


def _allreduce_fut(process_group: Any, tensor: Any) -> Any:
    """``tensor`` divided by the world size and summed over the ranks, in place: a Future of it."""
    group = world_group(process_group, "allreduce_hook")
    tensor.div_(group.size)
    return collectives.all_reduce(tensor, group=group, async_op=True).get_future().then(lambda fut: fut.value()[0])


def allreduce_hook(process_group: Any, bucket: GradBucket) -> Any:
    """The mean of the bucket over the ranks: what DDP computes without a hook."""
    return _allreduce_fut(process_group, bucket.buffer())


def fp16_compress_hook(process_group: Any, bucket: GradBucket) -> Any:
    """The bucket cast to float16 and divided by the world size, all-reduced, and cast back into
    the bucket's buffer (the gradients' dtype): half the bytes sent, float16's rounding kept."""
    group = world_group(process_group, "fp16_compress_hook")
    buffer = bucket.buffer()
    compressed = buffer.to(_FLOAT16).div_(group.size)

    def decompress(fut: Any) -> Any:
        buffer.copy_(fut.value()[0])
        return buffer

    return collectives.all_reduce(compressed, group=group, async_op=True).get_future().then(decompress)


def fp16_compress_wrapper(hook: Any) -> Any:
    """``hook`` run on the bucket cast to float16; its result cast back into the bucket's dtype."""

    def fp16_compress_wrapper_hook(state: Any, bucket: GradBucket) -> Any:
        buffer = bucket.buffer()
        bucket.set_buffer(buffer.to(_FLOAT16))
        fut = hook(state, bucket)

        def decompress(fut: Any) -> Any:
            buffer.copy_(fut.value())
            return buffer

        return fut.then(decompress)

    return fp16_compress_wrapper_hook
