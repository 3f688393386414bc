"""The engine's random number generator: randomness as data.

The generator is a seed and a counter.  Every random draw (``mg.rand``,
``mg.randn``, a dropout mask, a weight initialisation) takes one *key* from
it -- ``next_key()`` advances the counter by one -- and turns that key into
numbers with a pure function (the kernel :func:`uniform_bits`, which every
array namespace offers as ``xp.uniform_bits``).

Why this design:

* A random op stores its key on its tape node.  Replaying the op (activation
  checkpointing) regenerates exactly the same mask without touching the
  generator, so the global RNG position after a step is the same with or
  without checkpointing.
* The state is two integers: trivially saved in a snapshot and restored.
* The bits come from 64-bit integer arithmetic that NumPy and CuPy compute
  identically, so a key gives the same dropout mask on the CPU and on a GPU.
"""

from __future__ import annotations

import contextlib
import numbers
import operator
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

from .backend import as_dtype, register_kernel

__all__ = ["manual_seed", "seed", "initial_seed", "next_key", "get_rng_state", "set_rng_state", "fork_rng",
           "Generator", "permutation", "thread_safe_generator"]

_MASK64 = (1 << 64) - 1


def _mix64(key: int) -> int:
    """SplitMix64 of one Python int (host side): decorrelates nearby keys."""
    z = (key * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


_GOLDEN = 0x9E3779B97F4A7C15  # SplitMix64's increment: index i is mixed from i * _GOLDEN + mix(key)

# On the CPU the values are mixed a block at a time: each of the mixing's passes then runs over
# 256 KiB that stay in the cache, where passes over the whole array stream 8 bytes a value through
# memory and allocate four arrays of its full size.  The MNIST example's dropout mask of 64 x 9216
# values (made in forward and again in backward), interleaved in one process: 0.84-0.90x the time
# with freed memory kept, 0.57x with glibc's default allocator, where full-size arrays page-fault.
# A GPU mixes one block of everything: a launch per block would cost it more than the cache saves.
_BLOCK = 1 << 15


def _block_size(xp: Any, n: int) -> int:
    return min(n, _BLOCK) if xp.name == "numpy" else n


def _golden_steps(xp: Any, size: int) -> Any:
    """``j * _GOLDEN`` for ``j < size`` (uint64, wrapping): what every block adds its offset to."""
    with xp.errstate(over="ignore"):
        steps = xp.arange(size, dtype=xp.uint64)
        steps *= xp.uint64(_GOLDEN)
        return steps


def _mixed(xp: Any, steps: Any, key: int, start: int) -> Any:
    """SplitMix64's output function of indices ``start + j`` of ``key``'s stream (``steps`` from
    :func:`_golden_steps`): ``(start + j) * _GOLDEN + mix(key)`` is ``steps[j]`` plus one offset.
    A new array (``steps`` is left as it is)."""
    with xp.errstate(over="ignore"):
        return _mix_in_place(xp, steps + xp.uint64(_offset(key, start)))


def _offset(key: int, start: int) -> int:
    # Python integers (a NumPy integer key or index would overflow), reduced to 64 bits
    return (int(start) * _GOLDEN + _mix64(int(key))) & _MASK64


def _mix_in_place(xp: Any, z: Any) -> Any:
    with xp.errstate(over="ignore"):  # in place: one temporary per shift, not two per line (0.9x the time)
        z ^= z >> xp.uint64(30)
        z *= xp.uint64(0xBF58476D1CE4E5B9)
        z ^= z >> xp.uint64(27)
        z *= xp.uint64(0x94D049BB133111EB)
        z ^= z >> xp.uint64(31)
        return z


def _blocks(xp: Any, key: int, n: int, size: int, offset: int = 0) -> Any:
    """``(start, stop, values)`` for each block of ``size`` of ``n`` indices of ``key``'s stream
    (``values``: those of indices ``offset + start`` to ``offset + stop``)."""
    steps = _golden_steps(xp, size)
    for start in range(0, n, size):
        stop = min(n, start + size)
        yield start, stop, _mixed(xp, steps[:stop - start], key, offset + start)


@register_kernel
def uniform_bits(xp: Any, key: int, n: int) -> Any:
    """``n`` pseudo-random uint64 values, a pure function of ``key`` (``xp.uniform_bits``).

    SplitMix64's output function applied to ``i * GOLDEN + mix(key)`` for index ``i``:
    the same integer arithmetic on every device, so a key gives the same bits on
    the CPU and on a GPU (and in blocks or in one piece: each value is its index's).
    """
    size = _block_size(xp, n)
    if size == n:  # one piece, its offset added in place: one array of n values and a shift's temporary
        z = _golden_steps(xp, n)
        with xp.errstate(over="ignore"):
            z += xp.uint64(_offset(key, 0))
        return _mix_in_place(xp, z)
    out = xp.empty(n, dtype=xp.uint64)
    for start, stop, values in _blocks(xp, key, n, size):
        out[start:stop] = values
    return out


def uniform_bits_in_blocks(xp: Any, key: int, n: int) -> Iterator[Any]:
    """The values of ``uniform_bits(key, n)``, a block at a time: bounded memory for any ``n``."""
    for _, _, values in _blocks(xp, key, n, min(max(n, 1), _BLOCK)):
        yield values


_SEED_LOW = -(1 << 63)  # PyTorch's seeds: an int64 or a uint64, a negative one taken modulo 2**64


def _checked_seed(seed: Any, who: str) -> int:
    """``seed`` as the generator keeps it (in ``[0, 2**64)``), refused as PyTorch's ``g.manual_seed``
    refuses it: an ``int`` only (a bool, a float, a NumPy integer is a TypeError -- ``mg.manual_seed``
    converts with ``int()`` first, as ``torch.manual_seed`` does), in ``[-2**63, 2**64)``."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TypeError(f"{who} expected an int seed, got {type(seed).__name__}")
    if not _SEED_LOW <= seed <= _MASK64:
        raise ValueError(f"{who}: seed {seed} is out of range: a seed is in [-2**63, 2**64 - 1], as PyTorch's")
    return seed & _MASK64


def _generator_device(device: Any) -> Any:
    """The device of ``Generator(device=...)``, checked as PyTorch checks it (an unknown or unavailable
    device is an error; "meta" is not one a generator can live on).  It only labels the generator:
    a key gives the same numbers on every device (docs/devices.md, Random numbers)."""
    from .backend import get_device  # (the backend knows the devices; it imports nothing of this module)
    found = get_device("cpu" if device is None else device)
    if found.type == "meta":
        raise RuntimeError("Generator: the meta device has no random numbers (PyTorch: 'META device type "
                           "not an accelerator.')")
    return found


class Generator:
    """A counter-based generator: ``key_i = mix(mix(seed) + i)``, PyTorch's ``torch.Generator``.

    ``Generator()``, ``Generator("cpu")``, ``Generator(device=...)`` as PyTorch's; an int as the first
    argument is the seed (an extension: PyTorch would read it as a GPU's index), so that
    ``Generator(7)`` is ``Generator().manual_seed(7)``.  Its state is two integers: ``get_state()``
    gives ``{"seed": ..., "counter": ...}`` and ``set_state`` takes it back (the same form as
    ``mg.get_rng_state()``'s, so a state moves between generators)."""

    __slots__ = ("_seed", "counter", "_lock", "device")

    def __init__(self, device: Any = None, *, seed: int | None = None) -> None:
        if isinstance(device, numbers.Integral) and not isinstance(device, bool):
            device, seed = None, device
        self.device = _generator_device(device)
        # (checked as manual_seed's: 2**64 silently wrapped to the seed 0 here)
        self._seed = 0 if seed is None else _checked_seed(operator.index(seed), "Generator")
        self.counter = 0
        self._lock = threading.Lock()

    def manual_seed(self, seed: int) -> Generator:
        """Restart from ``seed`` (PyTorch's ``g.manual_seed(seed)``, which returns the generator): an
        int in ``[-2**63, 2**64)``, a negative one taken modulo ``2**64``."""
        seed = _checked_seed(seed, "Generator.manual_seed")
        with self._lock:
            self._seed, self.counter = seed, 0
        return self

    def seed(self) -> int:
        """Restart from a non-deterministic 64-bit seed and return it (PyTorch's ``g.seed()``)."""
        fresh = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(fresh)
        return fresh

    def initial_seed(self) -> int:
        """The seed this generator started from (PyTorch's ``g.initial_seed()``)."""
        return self._seed

    def clone_state(self) -> Generator:
        """A new generator on the same device in this one's state (PyTorch's ``g.clone_state()``):
        it draws what this one would draw next, and the two move on independently."""
        twin = Generator(self.device)
        twin.set_state(self.get_state())
        return twin

    def next_key(self) -> int:
        """Draw one 64-bit key and advance the generator."""
        with self._lock:
            c = self.counter
            self.counter = c + 1
            _draws[0] += 1
            if _watches:
                _note_first_draw(self, c)
        return _mix64((_mix64(self._seed) + c) & _MASK64)

    def next_keys(self, count: int) -> Iterator[int]:
        """``count`` keys -- the ones ``count`` calls of :meth:`next_key` would give -- with the
        generator advanced past all of them at once and each key computed as it is read, so that
        reserving a billion keys (an endless sampler's) costs nothing until they are used."""
        with self._lock:
            c = self.counter
            self.counter = c + count
            _draws[0] += count
            if _watches:
                _note_first_draw(self, c)
        base = _mix64(self._seed)
        return (_mix64((base + c + i) & _MASK64) for i in range(count))

    def get_state(self) -> dict[str, int]:
        """The state as plain data, ``{"seed": ..., "counter": ...}`` (a copy: drawing on changes it not)."""
        return {"seed": self._seed, "counter": self.counter}

    def set_state(self, state: dict[str, Any]) -> Generator:
        """Go back to a state :meth:`get_state` gave (this generator's or another's); returns the
        generator, as PyTorch's ``g.set_state``."""
        try:
            seed, counter = int(state["seed"]), int(state["counter"])
        except (KeyError, IndexError, TypeError, ValueError) as exc:  # (a tensor, PyTorch's form: IndexError)
            raise ValueError(f"not an RNG state: {state!r:.200}") from exc
        if not (0 <= seed <= _MASK64 and counter >= 0):
            raise ValueError(f"RNG state out of range: {state!r}")
        with self._lock:
            self._seed, self.counter = seed, counter
        return self

    def __getstate__(self) -> dict[str, Any]:
        return {**self.get_state(), "device": str(self.device)}  # the lock is per process: a copy gets its own

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._lock = threading.Lock()
        self.device = _generator_device(state.get("device"))  # (a copy pickled before generators had one: the CPU)
        self.set_state({"seed": state["seed"], "counter": state["counter"]})

    def __repr__(self) -> str:
        where = "" if self.device.type == "cpu" else f", device='{self.device}'"
        return f"Generator(seed={self._seed}, counter={self.counter}{where})"


default_generator = Generator(0)

_draws = [0]  # keys drawn from any generator so far (reseeding is not a draw)


#: Open :func:`watching_draws` blocks: each maps a generator to its counter before its first draw there.
_watches: list[dict[Generator, int]] = []


def _note_first_draw(generator: Generator, counter: int) -> None:
    for started in _watches:
        started.setdefault(generator, counter)


@contextlib.contextmanager
def watching_draws() -> Iterator[dict[Generator, int]]:
    """Note, for every generator that draws inside the block -- the engine's or one a function
    was handed (``mg.bernoulli(p, generator=g)``) -- its counter before its first draw there: a
    run again from those counters draws the same keys (``mg.func.linearize``'s rerun does)."""
    started: dict[Generator, int] = {}
    _watches.append(started)
    try:
        yield started
    finally:
        _watches.remove(started)


def rewind(started: dict[Generator, int]) -> None:
    """Set each generator of a :func:`watching_draws` block back to where it stood before its
    first draw there: as if the block had drawn nothing (a refused draw, ``vmap``'s
    ``randomness="same"`` starting the next example where the first one started)."""
    for generator, counter in started.items():
        generator.set_state({"seed": generator.initial_seed(), "counter": counter})


def draws_made() -> int:
    """How many keys every generator together has drawn: a transform that refuses random ops
    (``vmap``'s ``randomness="error"``) compares it before and after the function."""
    return _draws[0]


def manual_seed(seed: Any) -> Generator:
    """Seed the engine's generator (``rand``, ``randn``, dropout, init) and return it, as
    ``torch.manual_seed``: ``seed`` goes through ``int()`` first (a NumPy integer, a 0-d tensor, a
    float -- truncated -- and a numeric string are taken, as PyTorch takes them), then must lie in
    ``[-2**63, 2**64)``: a negative seed is taken modulo ``2**64``, a larger one is a ValueError."""
    try:
        number = int(seed)
    except (TypeError, ValueError, OverflowError) as exc:  # (None, a list; NaN; an infinity)
        raise type(exc)(f"manual_seed: {exc}") from None
    return default_generator.manual_seed(number)


def seed() -> int:
    """Reseed the engine's generator with a non-deterministic 64-bit number and return it, as
    PyTorch's ``torch.seed()`` (``manual_seed(n)`` is the reproducible form)."""
    fresh = int.from_bytes(os.urandom(8), "little")
    manual_seed(fresh)
    return fresh


def initial_seed() -> int:
    """The seed the engine's generator started from (PyTorch's ``torch.initial_seed()``): the last
    ``manual_seed``'s, and in a DataLoader worker its own seed (base seed + worker id) -- what
    PyTorch's reproducibility recipe's ``worker_init_fn`` reads (``torch.initial_seed() % 2**32``).
    While a worker makes a batch the generator is set to that batch's stream, and this is its seed (a
    non-negative int64, as PyTorch's worker seeds are); a ``worker_init_fn`` that calls ``manual_seed``
    keeps its seed for the worker's batches instead, as in PyTorch."""
    return default_generator.initial_seed()


def next_key() -> int:
    """Draw one key from the engine's generator."""
    return default_generator.next_key()


def key_from(generator: Generator | None, name: str) -> int:
    """One key from PyTorch's ``generator=`` argument of a sampling function (``mg.randn(3,
    generator=g)``), or from the engine's generator for None."""
    if generator is None:
        return default_generator.next_key()
    if not isinstance(generator, Generator):
        raise TypeError(f"{name}: generator must be a mg.Generator, got {type(generator).__name__}")
    return generator.next_key()


def get_rng_state() -> dict[str, int]:
    """The generator's state as plain data: ``{"seed": ..., "counter": ...}``."""
    return default_generator.get_state()


def set_rng_state(state: dict[str, Any]) -> None:
    """Restore a state returned by :func:`get_rng_state`."""
    default_generator.set_state(state)


@contextlib.contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: str = "cuda") -> Iterator[None]:
    """PyTorch's ``torch.random.fork_rng``: the draws made inside the block do not move the engine's
    generator -- its state is restored on leaving (an exception too), so the code after the block
    draws what it would have drawn without it (an evaluation pass with dropout, a sampled
    preview, inside a training loop that must resume bit for bit).  Every device draws from the
    one generator, so ``devices`` and ``device_type`` choose nothing; ``enabled=False`` forks
    nothing.  An ``mg.Generator`` of your own is not forked, as in PyTorch."""
    del devices, _caller, _devices_kw, device_type
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator() -> Generator | None:
    """PyTorch 2.13's ``torch.random.thread_safe_generator()``: the generator a DataLoader *thread*
    worker's transforms should draw from, ``None`` elsewhere (the engine's generator then serves,
    ``generator=None``).  Workers here are processes, each with the engine's generator seeded for
    it, so this is always ``None`` -- code written for thread workers runs unchanged."""
    return None


# ---- turning a key into numbers (device-neutral, used by ops and creation) ----
def uniform(xp: Any, key: int, shape: tuple[int, ...], dtype: Any) -> Any:
    """Uniform numbers in [0, 1) of ``dtype``, a pure function of ``key``."""
    size = as_dtype(dtype).itemsize
    wide = size == 8
    u = _from_bits(xp, key, shape, xp.float64 if wide else xp.float32, lambda bits: _uniform_of(xp, bits, wide))
    if size == 2:  # float16: its 11-bit grid, rounded down -- a float32 draw rounded to nearest gave 1.0
        u = xp.floor(u * xp.float32(1 << 11)) * xp.float32(1.0 / (1 << 11))  # (outside [0, 1)) for the top 2**-12
    return u.astype(dtype, copy=False)


def _from_bits(xp: Any, key: int, shape: tuple[int, ...], dtype: Any, convert: Callable[..., Any],
               streams: int = 1) -> Any:
    """``convert(bits, ...)`` of ``key``'s first ``streams * n`` values, elementwise: value ``i``
    from the bits of indices ``i``, ``n + i``, ...  On the CPU block by block, so that no array of
    bits (8 bytes a value) is made at the result's full size; elsewhere in one piece."""
    n = 1
    for s in shape:
        n *= s
    size = _block_size(xp, n)
    if size == n:
        bits = xp.uniform_bits(key, streams * n)
        return convert(*(bits[j * n:(j + 1) * n] for j in range(streams))).reshape(shape)
    out = xp.empty(n, dtype=dtype)
    for parts in zip(*(_blocks(xp, key, n, size, offset=j * n) for j in range(streams))):
        start, stop = parts[0][:2]
        out[start:stop] = convert(*(values for _, _, values in parts))
    return out.reshape(shape)


def _uniform_of(xp: Any, bits: Any, wide: bool) -> Any:
    if wide:
        return (bits >> xp.uint64(11)).astype(xp.float64) * (1.0 / (1 << 53))
    # 24 bits fill a float32 mantissa exactly: every value is representable,
    # so the result is the same whatever the working precision.
    return (bits >> xp.uint64(40)).astype(xp.float32) * xp.float32(1.0 / (1 << 24))


def normal(xp: Any, key: int, shape: tuple[int, ...], dtype: Any) -> Any:
    """Standard normal numbers (Box-Muller), a pure function of ``key``: value ``i`` from the
    bits of indices ``i`` and ``n + i``."""
    if as_dtype(dtype).itemsize == 8:
        form = 11, xp.float64, 1.0 / (1 << 53)
    else:
        # float32 throughout (a float32-only device has no float64): 24-bit uniforms
        form = 40, xp.float32, xp.float32(1.0 / (1 << 24))
    z = _from_bits(xp, key, shape, form[1], lambda first, second: _box_muller(xp, first, second, *form), streams=2)
    return z.astype(dtype, copy=False)


def _box_muller(xp: Any, first: Any, second: Any, shift: int, ftype: Any, scale: Any) -> Any:
    u1 = ((first >> xp.uint64(shift)).astype(ftype) + ftype(0.5)) * scale  # in (0, 1)
    u2 = (second >> xp.uint64(shift)).astype(ftype) * scale
    return xp.sqrt(ftype(-2.0) * xp.log(u1)) * xp.cos(ftype(2.0 * 3.141592653589793) * u2)


def bernoulli_keep(xp: Any, key: int, shape: tuple[int, ...], p_drop: float) -> Any:
    """A boolean mask that is True with probability ``1 - p_drop``.

    Compares integers, not floats, so the mask is bit-identical on every device.
    """
    threshold = xp.uint64(min(int(p_drop * 2.0**64), _MASK64))
    return _from_bits(xp, key, shape, bool, lambda bits: bits >= threshold)  # (a byte a value at full size)


def permutation(xp: Any, key: int, n: int) -> Any:
    """A random permutation of ``0..n-1`` (int64), a pure function of ``key``.

    Sorting ``n`` random 64-bit integers (stably, so ties -- practically never
    -- still give one answer) shuffles uniformly and identically on every device.
    """
    return xp.argsort(xp.uniform_bits(key, int(n)), kind="stable").astype(xp.int64)
