"""A strict stand-in device, for testing device code without a GPU.

Importing this module registers two devices:

``"strict"``      arrays live behind a wall (:class:`StrictArray`): NumPy
                  computes, but every way engine code could touch them
                  *implicitly* fails loudly -- ``np.asarray(a)``, ``float(a)``,
                  ``bool(a)``, ``int(a)``, ``a.item()``, iterating, mixing them
                  with NumPy arrays in an operator or a function, and calling
                  anything the backend's namespace does not list.  Reductions
                  return 0-d arrays, never host scalars.  These are CuPy's
                  rules (and stricter): code that passes here has no hidden
                  host round trips on a GPU.  Out-of-range integer-array
                  indices wrap around, silently, as CuPy's do (``a[idx]``,
                  ``a[idx] = v``, ``take``, ``take_along_axis``,
                  ``put_along_axis``, ``scatter_add``): code that relied on
                  NumPy's IndexError gives a wrong answer here, as on a GPU.
                  ``linalg`` ``inv``, ``solve`` and ``cholesky`` of a matrix they
                  cannot factor answer NaN, as CuPy's do, unless run under
                  ``xp.linalg_errstate(linalg="raise")`` (``cupyx.errstate``'s):
                  ``xp.linalg`` runs them so, as the GPU's namespace does.
``"strict-f32"``  the same, and any float64 array is an error: a float32
                  model on it proves there is no hidden float64 anywhere.

Explicit transfers stay allowed: ``xp.asarray(numpy_array)`` (host to
device), ``xp.to_host(a)`` and ``xp.scalar(a)`` (device to host).

    import minigrad_ckpt as mg
    import minigrad_ckpt.testing.strict  # registers the devices

    x = mg.randn(3, 4, device="strict", requires_grad=True)
    (x * x).sum().backward()
"""

from __future__ import annotations

import contextlib
import operator
import weakref
from collections.abc import Iterator
from typing import Any

import numpy

from ..backend import (
    LOGICAL_FUNCTIONS,
    RAISING_LINALG_FUNCTIONS,
    SCATTER_ADD_DTYPES,
    ArrayNamespace,
    Device,
    _lookup,
    linalg_failures_raised,
    register_device_type,
    scatter_add_by_parts,
    solve_broadcasting,
    truth_of_complex,
)

__all__ = ["StrictArray", "StrictScalar", "StrictNamespace", "StrictDeviceError"]


class StrictDeviceError(TypeError):
    """Engine code touched a strict-device array in a way a GPU array would not allow."""


_HOST_SCALARS = (bool, int, float, numpy.generic)


def _refusal(what: str) -> Any:
    """A method of :class:`StrictArray` that refuses ``what``, an implicit read of device memory."""
    def refuse(self: StrictArray, *args: Any) -> Any:
        raise StrictDeviceError(f"{what} of a strict-device array reads device memory implicitly; "
                                f"use xp.scalar(a) or xp.to_host(a)")
    return refuse


class StrictArray:
    """A NumPy array that refuses implicit host conversion and mixing with host arrays."""

    # (CuPy's arrays take weak references: checkpointing's counts use them)
    __slots__ = ("_a", "_ns", "_owner", "__weakref__")
    __array_ufunc__ = None  # NumPy must not compute on it behind the namespace's back
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, a: numpy.ndarray | numpy.generic, ns: StrictNamespace) -> None:
        self._a = a
        self._ns = ns
        self._owner = ns._owner_of(a, self) if isinstance(a, numpy.ndarray) else None

    # ---- forbidden: implicit host conversion ----
    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise StrictDeviceError("implicit conversion of a strict-device array to a NumPy array; "
                                "use xp.to_host(a) for an explicit copy")

    __float__ = _refusal("float()")
    __int__ = _refusal("int()")
    __index__ = _refusal("using as an index")
    __bool__ = _refusal("bool()")
    __complex__ = _refusal("complex()")
    item = _refusal(".item()")
    tolist = _refusal(".tolist()")
    __iter__ = _refusal("iterating")

    def __repr__(self) -> str:
        return f"StrictArray(shape={self._a.shape}, dtype={self._a.dtype})"

    # ---- metadata ----
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    nbytes = property(lambda self: self._a.nbytes)
    itemsize = property(lambda self: self._a.itemsize)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    device = "strict"

    @property
    def base(self) -> StrictArray | None:
        # the array owning the memory, as CuPy's (the ledger counts buffers by it); None: this one
        return self._owner

    @property
    def T(self) -> StrictArray:
        return self._ns._wrap(self._a.T)

    def __len__(self) -> int:
        return len(self._a)

    # ---- indexing ----
    def __getitem__(self, index: Any) -> StrictArray:
        return self._ns._wrap(self._a[_cupy_index(self._a.shape, self._ns._unwrap(index, "indexing"))])

    def __setitem__(self, index: Any, value: Any) -> None:
        self._a[_cupy_index(self._a.shape, self._ns._unwrap(index, "indexing"))] = \
            self._ns._unwrap(value, "assignment")


def _equal_batches_only(solve: Any) -> Any:
    """``solve`` refusing what CuPy 14's ``linalg.solve`` refuses: a ``B`` of several axes whose batch
    axes differ from ``A``'s (NumPy broadcasts them)."""
    def call(a: Any, b: Any) -> Any:
        if b.ndim > 1 and a.shape[:-1] != b.shape[:-1]:
            raise ValueError("a must have (..., M, M) shape and b must have (..., M, K) for multidimensional b "
                             f"(CuPy's linalg.solve broadcasts no batch axes: {a.shape} and {b.shape})")
        return solve(a, b)

    return call


def _silent_failure(fn: Any, ns: StrictNamespace) -> Any:
    """``fn`` (a linalg function) answering a matrix it cannot factor as CuPy's does by default,
    without an error: its results are NaN here (CuPy's are inf, NaN or a half-done factor), unless
    ``ns.linalg_errstate(linalg="raise")`` is in force -- then NumPy's ``LinAlgError`` stands."""
    def call(a: Any, *rest: Any) -> Any:
        try:
            return fn(a, *rest)
        except numpy.linalg.LinAlgError:
            if ns.linalg_raises:
                raise
        eye = ns.broadcast_to(ns.eye(a.shape[-1], dtype=a.dtype), a.shape)  # a matrix every one factors
        return fn(eye, *rest) * numpy.nan

    call.__name__ = fn.__name__
    return call


def _wrapped(indices: Any, n: int) -> Any:
    """Integer indices into an axis of ``n`` as CuPy's kernels read them: modulo ``n``
    (``i % n``, Python's sign rule), so 3 of 3 is 0 and -4 of 3 is 2, and nothing raises."""
    if n == 0 or indices.dtype.kind not in "iu" or indices.size == 0:
        return indices  # (no axis to wrap onto: NumPy's error stands, as CuPy raises there too)
    return numpy.mod(indices, n)


def _cupy_index(shape: tuple[int, ...], index: Any) -> Any:
    """``index`` with each integer *array* in it wrapped onto the axis it indexes, CuPy's
    rule for advanced indexing ("CuPy handles out-of-bounds indices differently by default
    from NumPy when using integer array indexing ... CuPy wraps around them").  Python
    integers and slices are basic indexing, checked on the host by CuPy as by NumPy."""
    items = index if type(index) is tuple else (index,)
    arrays = [numpy.asarray(it) if type(it) is list else it for it in items]
    if not any(isinstance(it, numpy.ndarray) and it.dtype.kind in "iu" for it in arrays):
        return index
    # (a 0-d bool array comes here as a NumPy bool scalar: a mask that takes no axis, not an integer)
    used = sum(it.ndim if isinstance(it, (numpy.ndarray, numpy.bool_)) and it.dtype.kind == "b" else 1
               for it in arrays if it is not None and it is not Ellipsis)
    out, dim = [], 0
    for it in arrays:
        if it is Ellipsis:
            dim += len(shape) - used
        elif isinstance(it, (numpy.ndarray, numpy.bool_)) and it.dtype.kind == "b":
            dim += it.ndim
        elif it is not None:
            if isinstance(it, numpy.ndarray) and dim < len(shape):
                it = _wrapped(it, shape[dim])
            dim += 1
        out.append(it)
    return tuple(out)


class StrictScalar(StrictArray):
    """A 0-d strict array where NumPy on the CPU hands back a scalar (a ufunc's 0-d result).

    It computes as that scalar does, and its class is not the namespace's array type, as
    a NumPy scalar's is not ``ndarray``: the engine turns it into an array where it turns
    the CPU's scalar into one (``xp.as_array``), and an operator between such values is
    NumPy's scalar math -- which rounds a complex product unlike the array loop -- on both
    devices alike.  So the strict device's numbers stay the CPU's, bit for bit.
    """

    __slots__ = ()


def _binary(fn: Any, reflected: bool = False) -> Any:
    def op(self: StrictArray, other: Any) -> Any:
        if not isinstance(other, StrictArray) and getattr(other, "__array_ufunc__", 0) is None:
            # CuPy's rule (_should_use_rop): it asks the operand itself, ``y.__array_ufunc__``, which a
            # Tensor answers None (see functional/numpy_ufuncs.py): the Tensor's reflected operator answers
            return NotImplemented
        o = self._ns._unwrap(other, f"operator {fn.__name__}")
        return self._ns._wrap(fn(o, self._a) if reflected else fn(self._a, o))
    return op


def _inplace(fn: Any) -> Any:
    def op(self: StrictArray, other: Any) -> StrictArray:
        self._a = fn(self._a, self._ns._unwrap(other, f"operator {fn.__name__}"))
        self._ns._check(self._a)
        return self
    return op


for _name, _fn in [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv), ("mod", operator.mod),
                   ("pow", operator.pow), ("matmul", operator.matmul), ("and", operator.and_),
                   ("or", operator.or_), ("xor", operator.xor), ("lshift", operator.lshift),
                   ("rshift", operator.rshift)]:
    setattr(StrictArray, f"__{_name}__", _binary(_fn))
    setattr(StrictArray, f"__r{_name}__", _binary(_fn, reflected=True))
    setattr(StrictArray, f"__i{_name}__", _inplace({"add": operator.iadd, "sub": operator.isub,
                                                      "mul": operator.imul, "truediv": operator.itruediv,
                                                      "floordiv": operator.ifloordiv, "mod": operator.imod,
                                                      "pow": operator.ipow, "matmul": operator.imatmul,
                                                      "and": operator.iand, "or": operator.ior,
                                                      "xor": operator.ixor, "lshift": operator.ilshift,
                                                      "rshift": operator.irshift}[_name]))
for _name, _fn in [("eq", operator.eq), ("ne", operator.ne), ("lt", operator.lt), ("le", operator.le),
                   ("gt", operator.gt), ("ge", operator.ge)]:
    setattr(StrictArray, f"__{_name}__", _binary(_fn))
for _name, _fn in [("neg", operator.neg), ("pos", operator.pos), ("abs", operator.abs), ("invert", operator.invert)]:
    setattr(StrictArray, f"__{_name}__", (lambda f: lambda self: self._ns._wrap(f(self._a)))(_fn))

# Array methods engine code may use (the same ones NumPy and CuPy share).
_METHODS = ("reshape", "transpose", "swapaxes", "astype", "copy", "sum", "mean", "max", "min", "prod", "var",
            "std", "argmax", "argmin", "cumsum", "any", "all", "ravel", "squeeze", "view", "clip", "dot",
            "nonzero", "repeat", "round", "fill")


def _method(name: str) -> Any:
    def call(self: StrictArray, *args: Any, **kwargs: Any) -> Any:
        a = self._ns._unwrap(args, f".{name}()")
        k = self._ns._unwrap(kwargs, f".{name}()")
        return self._ns._wrap(getattr(self._a, name)(*a, **k))
    call.__name__ = name
    return call


for _name in _METHODS:
    setattr(StrictArray, _name, _method(_name))
del _name, _fn


class StrictNamespace(ArrayNamespace):
    """The namespace of the strict device: NumPy's functions behind the wall.

    Built from the same whitelist as the real backends
    (:data:`minigrad_ckpt.backend.LIBRARY_FUNCTIONS`), so engine code that
    reaches for anything else fails here first.
    """

    wraps_bad_indices = True  # as CuPy's (:func:`_cupy_index`)

    def __init__(self, float32_only: bool = False) -> None:
        self.float32_only = float32_only
        self._owners: weakref.WeakValueDictionary[int, StrictArray] = weakref.WeakValueDictionary()
        super().__init__(numpy, "strict-f32" if float32_only else "strict", array_type=StrictArray)
        self.errstate = numpy.errstate  # a context manager, not an array function
        self.take, self.take_along_axis, self.put_along_axis = self._take, self._take_along_axis, self._put_along_axis
        self.linalg_raises = False  # cupyx.errstate's linalg setting: "ignore" unless asked (CuPy's default)
        for name in RAISING_LINALG_FUNCTIONS:  # as the GPU's namespace asks
            setattr(self.linalg, name, linalg_failures_raised(getattr(self.linalg, name), self.linalg_errstate))
        self.linalg.solve = solve_broadcasting(_equal_batches_only(self.linalg.solve), self.broadcast_to)

    @contextlib.contextmanager
    def linalg_errstate(self, linalg: str) -> Iterator[None]:
        """``cupyx.errstate(linalg=...)`` of this device: ``"raise"`` makes its linalg functions
        refuse a matrix they cannot factor, as NumPy's do; otherwise they answer NaN, as CuPy's."""
        before, self.linalg_raises = self.linalg_raises, linalg == "raise"
        try:
            yield
        finally:
            self.linalg_raises = before

    # ---- the wall ----
    def _check(self, a: numpy.ndarray) -> None:
        if self.float32_only and a.dtype in (numpy.float64, numpy.complex128):
            raise StrictDeviceError(f"a {a.dtype} array appeared on the float32-only strict device "
                                    "(a hidden upcast: check constants and dtypes)")

    def _owner_of(self, a: numpy.ndarray, wrapper: StrictArray) -> StrictArray | None:
        """The strict array that owns ``a``'s memory (None: ``wrapper`` itself), one object for all
        arrays of that memory as CuPy's end of the ``base`` chain is, and a device array as that is:
        the engine copies it and writes into it (``memory_owner``).  Each array holds its owner, so
        the owner lives while any array of its memory does, as the memory itself."""
        root = a
        while True:
            base = root.base
            if base is not None and not isinstance(base, numpy.ndarray):
                base = getattr(base, "base", None)  # as_strided's holder, whose base is the array
            if not isinstance(base, numpy.ndarray):
                break
            root = base
        owner = self._owners.get(id(root))
        if owner is None or owner._a is not root:
            owner = wrapper if root is a else StrictArray(root, self)
            self._owners[id(root)] = owner
        return None if owner is wrapper else owner

    def _wrap(self, v: Any) -> Any:
        if isinstance(v, numpy.ndarray):
            self._check(v)
            return StrictArray(v, self)
        if isinstance(v, numpy.generic):  # never hand out host scalars: 0-d arrays, like CuPy
            self._check(v)
            return StrictScalar(v, self)
        if isinstance(v, tuple):
            return tuple(self._wrap(x) for x in v)
        if isinstance(v, list):
            return [self._wrap(x) for x in v]
        return v

    def _unwrap(self, v: Any, where: str, allow_host: bool = False) -> Any:
        if isinstance(v, StrictArray):
            if v._ns is not self:
                raise StrictDeviceError(f"{where}: arrays of two different strict devices")
            return v._a
        if isinstance(v, numpy.ndarray) and not allow_host:
            raise StrictDeviceError(f"{where}: a host (NumPy) array mixed with strict-device arrays; "
                                    f"transfer it explicitly with xp.asarray")
        if isinstance(v, tuple):
            return tuple(self._unwrap(x, where, allow_host) for x in v)
        if isinstance(v, list):
            return [self._unwrap(x, where, allow_host) for x in v]
        if isinstance(v, dict):
            return {k: self._unwrap(x, where, allow_host) for k, x in v.items()}
        return v

    def _function(self, name: str) -> Any:
        fn = _lookup(numpy, name)
        host_ok = name == "asarray"  # the explicit host-to-device transfer

        def call(*args: Any, **kwargs: Any) -> Any:
            a = self._unwrap(args, f"xp.{name}", allow_host=host_ok)
            k = self._unwrap(kwargs, f"xp.{name}", allow_host=host_ok)
            return self._wrap(fn(*a, **k))
        call.__name__ = name
        if name.startswith("linalg.") and name[7:] in RAISING_LINALG_FUNCTIONS:
            return _silent_failure(call, self)
        # CuPy's logical ufuncs take no complex input: the GPU's namespace reads it as != 0 first
        return truth_of_complex(call) if name in LOGICAL_FUNCTIONS else call

    # ---- adapter: explicit transfers and what NumPy does on raw arrays ----
    def to_host(self, a: Any) -> numpy.ndarray:
        if not isinstance(a, StrictArray):
            raise StrictDeviceError(f"to_host expects a strict-device array, got {type(a).__name__}")
        return numpy.array(a._a)

    def scatter_add(self, target: Any, index: Any, values: Any) -> None:
        scatter_add_by_parts(self._scatter, self, target, index, values)

    def _scatter(self, target: Any, index: Any, values: Any) -> None:
        """NumPy's ``add.at`` with CuPy's limits: ``cupyx.scatter_add`` takes no complex, bool
        or narrow integer target, and wraps out-of-range indices."""
        if target.dtype.name not in SCATTER_ADD_DTYPES:
            raise StrictDeviceError(f"scatter_add into a {target.dtype} array: CuPy's takes none")
        a = self._unwrap(target, "scatter_add")
        numpy.add.at(a, _cupy_index(a.shape, self._unwrap(index, "scatter_add")),
                     self._unwrap(values, "scatter_add", allow_host=isinstance(values, numpy.generic)))

    # CuPy's gathers and scatters along an axis index as ``a[idx]`` does: wrapping
    def _take(self, a: Any, indices: Any, axis: Any = None, **kwargs: Any) -> Any:
        a, i = self._unwrap(a, "xp.take"), numpy.asarray(self._unwrap(indices, "xp.take"))
        n = a.size if axis is None else a.shape[axis]
        return self._wrap(numpy.take(a, _wrapped(i, n), axis=axis, **self._unwrap(kwargs, "xp.take")))

    def _take_along_axis(self, a: Any, indices: Any, axis: Any = -1) -> Any:
        a, i = self._unwrap(a, "xp.take_along_axis"), self._unwrap(indices, "xp.take_along_axis")
        n = a.size if axis is None else a.shape[axis]
        return self._wrap(numpy.take_along_axis(a, _wrapped(i, n), axis=axis))

    def _put_along_axis(self, a: Any, indices: Any, values: Any, axis: Any) -> None:
        a, i = self._unwrap(a, "xp.put_along_axis"), self._unwrap(indices, "xp.put_along_axis")
        n = a.size if axis is None else a.shape[axis]
        numpy.put_along_axis(a, _wrapped(i, n), self._unwrap(values, "xp.put_along_axis"), axis=axis)

    def holds(self, a: Any) -> bool:
        return isinstance(a, StrictArray) and a._ns is self

    def owns_memory(self, a: Any) -> bool:
        return a._owner is None

    def memory_owner(self, a: Any) -> Any:
        return a if a._owner is None else a._owner

    def address(self, a: Any) -> int:
        return super().address(a._a)

    def as_strided(self, a: Any, shape: tuple[int, ...], strides: tuple[int, ...], writeable: bool = False) -> Any:
        return self._wrap(numpy.lib.stride_tricks.as_strided(self._unwrap(a, "as_strided"), shape, strides,
                                                             writeable=writeable))

    def to_device(self, a: Any, device: Any) -> Any:
        from ..backend import get_device

        dev = get_device(device)
        host = self.to_host(a)
        return dev.xp.asarray(host) if dev.xp.name != "numpy" else host


_namespaces = {False: StrictNamespace(False), True: StrictNamespace(True)}
register_device_type("strict", lambda index: Device.made("strict", index, _namespaces[False]))
register_device_type("strict-f32", lambda index: Device.made("strict-f32", index, _namespaces[True]))
