"""``nn.utils.rnn``: variable-length sequences, padded into one batch or packed, and back.

``pad_sequence([a, b, c])`` is what a ``collate_fn`` for text calls: each sequence is
padded at the end of its first dimension to the longest one's length and the results are
stacked.  A :class:`PackedSequence` holds the same sequences without the padding, time step
after time step::

    sequences (lengths 3, 2, 1):  a0 a1 a2      packed data:  a0 b0 c0 | a1 b1 | a2
                                  b0 b1         batch_sizes:  3, 2, 1  (how many are running at t)
                                  c0

so an ``RNN``/``LSTM``/``GRU`` given one runs each sequence for its own length only (its
``h_n`` is the state after the sequence's *own* last step, not after the padding).  Packing
needs the sequences longest first; ``enforce_sorted=False`` sorts them and remembers the
order (``sorted_indices``, ``unsorted_indices``), and every result is given back in the
caller's order, as PyTorch's.  Every direction is made of differentiable ops (slicing,
``concatenate``, ``F.pad``, ``stack``), so gradients reach each sequence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from ...backend import host_numpy
from ...functional.errors import InputMismatch
from ...functional.shape import concatenate, stack, swapaxes
from ...tensor import Tensor
from ..functional import pad

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pack_sequence", "unpack_sequence", "pad_sequence", "unpad_sequence"]


class _PackedSequenceFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedSequenceFields):
    """Sequences packed time step after time step, as PyTorch's ``PackedSequence``.

    ``data``: ``(sum of lengths, *)``, step 0 of every sequence, then step 1 of those still
    running, ...; ``batch_sizes``: an int64 tensor, how many sequences run at each step;
    ``sorted_indices``: the caller's batch index of each packed column (None when the batch
    came sorted); ``unsorted_indices``: its inverse.  Make one with :func:`pack_padded_sequence`
    or :func:`pack_sequence` rather than by hand -- or rebuild one around new data, as PyTorch's
    constructor allows: ``PackedSequence(f(p.data), p.batch_sizes, p.sorted_indices)`` works out
    ``unsorted_indices`` itself (without it, unpacking would give the batch in sorted order), and
    ``PackedSequence((data, batch_sizes))`` takes the pair as one argument.
    """

    __slots__ = ()

    def __new__(cls, data: Any, batch_sizes: Any = None, sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> PackedSequence:
        if batch_sizes is None:  # PyTorch's PackedSequence((data, batch_sizes), sorted_indices=...)
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        if isinstance(batch_sizes, Tensor) and batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                             "created manually. They should be instantiated by functions like pack_sequence "
                             "and pack_padded_sequences in nn.utils.rnn.")
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The data moved or cast by ``Tensor.to``, the indices moved with it; ``batch_sizes``
        stays on the host (PyTorch's)."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return PackedSequence(data, self.batch_sizes, *(None if i is None else i.to(data.device)
                                                        for i in (self.sorted_indices, self.unsorted_indices)))

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def cuda(self, *args: Any, **kwargs: Any) -> PackedSequence:
        return self.to(self.data.cuda(*args, **kwargs).device)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        """Whether the data was pinned (PyTorch's ``is_pinned``: ``Tensor.is_pinned`` of the data)."""
        return self.data.is_pinned()

    def pin_memory(self) -> PackedSequence:
        """The sequence with its data pinned: ``Tensor.pin_memory``'s answer (PyTorch's error where no
        accelerator is), the indices as they are."""
        return PackedSequence(self.data.pin_memory(), self.batch_sizes, self.sorted_indices, self.unsorted_indices)


def _dtype_named(name: str) -> Any:
    return host_numpy.dtype(name)


def _cast_method(name: str, dtype: str) -> Any:
    """PackedSequence's ``x.float()``, ``x.long()``, ...: the data cast, the indices as they are."""
    def method(self: PackedSequence) -> PackedSequence:
        return self.to(dtype=_dtype_named(dtype))
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"This packed sequence with its data in {dtype}, as PyTorch's ``PackedSequence.{name}()``."
    return method


for _name, _dtype in (("float", "float32"), ("double", "float64"), ("half", "float16"), ("long", "int64"),
                      ("int", "int32"), ("short", "int16"), ("char", "int8"), ("byte", "uint8")):
    setattr(PackedSequence, _name, _cast_method(_name, _dtype))


def _host_ints(values: Any) -> Any:
    """A 1-D int64 host array of ``values`` (a list, a tensor or an array)."""
    if isinstance(values, Tensor):
        values = values.detach().cpu().numpy()
    return host_numpy.asarray(values, dtype=host_numpy.int64).reshape(-1)


def _index_tensor(values: Any, like: Tensor) -> Tensor:
    """An int64 tensor on ``like``'s device (where PyTorch keeps ``sorted_indices``)."""
    return Tensor._from_data(host_numpy.asarray(values, dtype=host_numpy.int64), device=like.device)


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes ``permutation`` (``out[permutation[i]] = i``); None for None."""
    if permutation is None:
        return None
    p = _host_ints(permutation)
    inverse = host_numpy.empty_like(p)
    inverse[p] = host_numpy.arange(p.size, dtype=host_numpy.int64)
    return _index_tensor(inverse, permutation)


def _batch_sizes(lengths: Any) -> Any:
    """How many of the (longest-first) sequences of ``lengths`` run at each time step."""
    steps = host_numpy.arange(int(lengths[0]))
    return (lengths[None, :] > steps[:, None]).sum(axis=1).astype(host_numpy.int64)


def pack_padded_sequence(input: Tensor, lengths: Tensor | Sequence[int], batch_first: bool = False,  # noqa: A002
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) whose sequence ``b``
    is its first ``lengths[b]`` steps.  With ``enforce_sorted`` (the default) the lengths must
    be in decreasing order; ``enforce_sorted=False`` sorts the batch and records the order."""
    x = input if isinstance(input, Tensor) else Tensor._from_data(input)
    if x.numel() == 0:  # PyTorch's first check, before the lengths are read
        raise RuntimeError("Cannot pack empty tensors.")
    rank = lengths.dim() if isinstance(lengths, Tensor) else host_numpy.ndim(lengths)
    if rank != 1:  # flattening [[3, 2, 1]] would pack a batch PyTorch refuses
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {rank}D lengths")
    lengths_host = _host_ints(lengths)
    if lengths_host.size != x.shape[0 if batch_first else 1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths_host.size} "
                           f"(batch_size={x.shape[0 if batch_first else 1]})")
    sorted_indices = None
    if enforce_sorted:
        if (host_numpy.diff(lengths_host) > 0).any():
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
    else:
        order = host_numpy.argsort(-lengths_host, kind="stable")
        lengths_host = lengths_host[order]
        sorted_indices = _index_tensor(order, x)
        x = x[order] if batch_first else x[:, order]
    if lengths_host.size and lengths_host[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if batch_first:
        x = swapaxes(x, 0, 1)
    if int(lengths_host[0]) > x.shape[0]:
        raise RuntimeError(f"pack_padded_sequence: a length of {int(lengths_host[0])} in a padded batch of "
                           f"{x.shape[0]} steps")
    sizes = _batch_sizes(lengths_host)
    data = concatenate([x[t, :int(b)] for t, b in enumerate(sizes)], axis=0)
    return PackedSequence(data, Tensor._from_data(sizes), sorted_indices, invert_permutation(sorted_indices))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The inverse of :func:`pack_padded_sequence`: ``(padded, lengths)``, the batch in the
    caller's order (``unsorted_indices``), ``lengths`` an int64 tensor; ``total_length`` pads
    the time axis to that many steps (it may not be shorter than the longest sequence)."""
    data, sizes = sequence.data, _host_ints(sequence.batch_sizes)
    steps, batch = sizes.size, int(sizes[0])
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    offsets = host_numpy.concatenate([[0], host_numpy.cumsum(sizes)])
    trailing = [0, 0] * (data.ndim - 1)  # F.pad lists the last dimension first
    rows = [pad(data[int(offsets[t]):int(offsets[t + 1])], trailing + [0, batch - int(sizes[t])],
                value=padding_value) for t in range(sizes.size)]
    if steps > sizes.size:
        blank = pad(data[:0], trailing + [0, batch], value=padding_value)
        rows += [blank] * (steps - sizes.size)
    padded = stack(rows, axis=0)                                 # (T, B, *), longest first
    lengths = (sizes[None, :] > host_numpy.arange(batch)[:, None]).sum(axis=1).astype(host_numpy.int64)
    if sequence.unsorted_indices is not None:
        order = _host_ints(sequence.unsorted_indices)
        padded, lengths = padded[:, order], lengths[order]
    return (swapaxes(padded, 0, 1) if batch_first else padded), Tensor._from_data(lengths)


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack sequences of shapes ``(L_i, *)`` (longest first, unless ``enforce_sorted=False``)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The sequences a :class:`PackedSequence` holds, in the caller's order, each ``(L_i, *)``."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


def pad_sequence(sequences: Sequence[Tensor] | Tensor, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of shapes ``(L_i, *)`` into ``(max L, B, *)`` (``(B, max L, *)`` with
    ``batch_first=True``), filling with ``padding_value`` after (or, ``padding_side='left'``,
    before) each sequence, as PyTorch's ``pad_sequence``.  Any iterable of tensors (a tensor is
    taken as the sequence of its rows, as PyTorch takes it); the batch has the first sequence's
    dtype and device, as PyTorch's."""
    if padding_side not in ("right", "left"):
        raise InputMismatch(f"pad_sequence: padding_side must be 'right' or 'left', got {padding_side!r}")
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = list(sequences)  # a generator is read once, here
    if not sequences:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    if any(s.dim() == 0 for s in sequences):  # (an IndexError from the shape before)
        raise RuntimeError("pad_sequence: each sequence needs a first (time) dimension, got a 0-d tensor")
    longest = max(s.shape[0] for s in sequences)
    first = sequences[0]
    padded = []
    for s in sequences:
        # PyTorch copies every sequence into a batch made like the first: its dtype and device
        s = s.to(device=first.device, dtype=first.dtype)
        trailing = [0, 0] * (s.dim() - 1)  # F.pad lists the last dimension first
        extra = longest - s.shape[0]
        padded.append(pad(s, trailing + ([0, extra] if padding_side == "right" else [extra, 0]),
                          value=padding_value))
    return stack(padded, axis=0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor | Sequence[int],
                   batch_first: bool = False) -> list[Tensor]:
    """The inverse of right-side ``pad_sequence``: sequence ``i`` is the first ``lengths[i]`` steps."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, :int(n)] for i, n in enumerate(_host_ints(lengths))]
