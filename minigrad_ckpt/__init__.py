"""minigrad_ckpt: a reverse-mode autograd engine on NumPy (CPU) and CuPy (GPU),
with activation checkpointing on the tape and msgpack training-state snapshots.

    import minigrad_ckpt as mg

    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    x.grad            # tensor([2., 4., 6.])

Read ``docs/tape.md`` for how it works and ``docs/reading-the-code.md`` for
the order in which to read the package.
"""

from __future__ import annotations

import math as _math
import sys as _sys
import warnings as _warnings
from importlib.util import find_spec as _find_spec
from typing import Any

from .version import __version__

from . import anomaly, backend, ops, random, tape  # noqa: F401
from .backend import Device, device, get_default_device, set_default_device
from .creation import (
    BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor, ShortTensor,
    arange, as_tensor, asarray, bartlett_window, blackman_window, empty, empty_like, full, full_like,
    get_default_dtype, hamming_window, hann_window, kaiser_window, linspace, logspace, normal, ones, ones_like, rand,
    rand_like, randint, randint_like, randn, randn_like, randperm, scalar_tensor, set_default_dtype, tensor, zeros,
    zeros_like,
)
from .creation import inclusive_range as range  # noqa: A004 (PyTorch's deprecated torch.range; the builtin stays below)
from .functional import public_names as _public_names
from .functional.torch_functions import get_device
from .functional.two_meanings import AmbiguousSpellingWarning
from .grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, is_recomputing, no_grad, set_grad_enabled,
)
from .random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
                     thread_safe_generator)
from .backward import backward, grad
from .anomaly import (
    AnomalyError, detect_anomaly, is_anomaly_check_inf_enabled, is_anomaly_check_nan_enabled, is_anomaly_enabled,
    set_detect_anomaly,
)
from .backward_steps import BackwardStep, backward_steps
from .tensor import Size, Tensor

# The one binding point (DeZero's ``setup_variable``): Tensor gets its methods and
# operators, the tape its differentiable namespace.  Nothing below tensor.py knows
# the layers above it; this call links them, before anything computes.
_public_names.bind()
# The public math (``mg.exp``, ``mg.sum``, ``mg.cat``, ...), as the table of public names declares it.
globals().update(_public_names.exports(__name__))

float16 = backend.host_numpy.dtype("float16")
float32 = backend.host_numpy.dtype("float32")
float64 = backend.host_numpy.dtype("float64")
int8 = backend.host_numpy.dtype("int8")
int16 = backend.host_numpy.dtype("int16")
int32 = backend.host_numpy.dtype("int32")
int64 = backend.host_numpy.dtype("int64")
uint8 = backend.host_numpy.dtype("uint8")
uint16 = backend.host_numpy.dtype("uint16")  # (PyTorch names them with little arithmetic; NumPy computes in them)
uint32 = backend.host_numpy.dtype("uint32")
uint64 = backend.host_numpy.dtype("uint64")
bool_ = backend.host_numpy.dtype("bool")
complex64 = backend.host_numpy.dtype("complex64")
complex128 = backend.host_numpy.dtype("complex128")
# PyTorch's dtype names (``mg.double``, ``mg.float``, ...): ``torch.float`` is float32, ``torch.int`` int32.
double, half, long, short = float64, float16, int64, int16
float, int, bool = float32, int32, bool_  # noqa: A001  (attributes of the package, as in torch)
cfloat, cdouble = complex64, complex128
# PyTorch's type of a dtype, for isinstance checks and annotations (``dtype: torch.dtype`` is evaluated
# when a function is defined): a dtype here is a NumPy dtype (the type of a shape, ``Size``, is tensor's)
dtype = backend.host_numpy.dtype
# PyTorch's dtypes NumPy lacks: named, so that a script naming them runs; computing in them is a TypeError
bfloat16, complex32 = backend.BFLOAT16, backend.COMPLEX32
chalf = complex32
# PyTorch's memory formats, for memory_format= (every tensor here is row-major: see backend.MemoryFormat);
# mg.memory_format is their type, as torch.memory_format (``memory_format: torch.memory_format = ...``)
contiguous_format, preserve_format = backend.contiguous_format, backend.preserve_format
memory_format = backend.MemoryFormat
channels_last, channels_last_3d = backend.channels_last, backend.channels_last_3d
# PyTorch's layouts, for layout= and x.layout: one, as every tensor here is dense (see backend.Layout);
# mg.layout is their type, for isinstance checks and annotations (``layout: torch.layout = torch.strided``)
layout, strided = backend.Layout, backend.strided


def from_numpy(array: Any) -> Tensor:
    """A CPU Tensor sharing memory with the NumPy array ``array`` (no copy), as ``torch.from_numpy``.

    Writing into either one changes both; use ``mg.tensor(array)`` for a copy.
    """
    if not isinstance(array, backend.host_numpy.ndarray):
        raise TypeError(f"from_numpy needs a numpy.ndarray, got {type(array).__name__}; use mg.tensor(...)")
    return Tensor.sharing(array, backend.cpu)


from . import __future__  # noqa: E402, F401  (PyTorch's torch.__future__: how nn.Module puts converted tensors)
from . import (  # noqa: E402  (need the names above)
    accelerator, amp, autograd, backends, checkpoint, cpu, cuda, distributed, distributions, fft, func, fx, hub, jit,
    linalg, memory, multiprocessing, nn, onnx, optim, profiler, return_types, snapshot, special, testing, utils,
    version, viz,
)
from .autograd import profiler as _autograd_profiler  # noqa: E402, F401  (mg.autograd.profiler, PyTorch's legacy API)
from .amp import autocast  # noqa: E402  (PyTorch's torch.autocast)
from .autocast_state import (  # noqa: E402  (PyTorch's top-level autocast state queries)
    autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache, get_autocast_cpu_dtype,
    get_autocast_dtype, get_autocast_gpu_dtype, is_autocast_cache_enabled, is_autocast_cpu_enabled, is_autocast_enabled,
    set_autocast_cache_enabled, set_autocast_cpu_dtype, set_autocast_cpu_enabled, set_autocast_dtype,
    set_autocast_enabled, set_autocast_gpu_dtype,
)
from .control_flow import cond, while_loop  # noqa: E402  (PyTorch's torch.cond and torch.while_loop, eager)
from .compiler import compile  # noqa: E402, A004  (PyTorch's torch.compile; kept out of ``import *``: a builtin)
from .executor import Executor  # noqa: E402
from .jit import _assert, _assert_async, _check  # noqa: E402, F401  (PyTorch's private asserts model code calls)
from .nn.functional.private_softmax_kernels import (  # noqa: E402, F401  (PyTorch's private kernels custom
    _log_softmax, _log_softmax_backward_data, _softmax, _softmax_backward_data,  # Functions call: edm's AttentionOp)
)
from .utils.dlpack import from_dlpack, to_dlpack  # noqa: E402  (PyTorch's torch.from_dlpack, torch.to_dlpack)
from .functional.foreach import FUNCTIONS as _FOREACH_FUNCTIONS  # noqa: E402
from .func import vmap  # noqa: E402  (PyTorch's torch.vmap, torch.func.vmap)
from .nn.functional import (  # noqa: E402  (PyTorch's top-level names of these nn functions, same signatures)
    bilinear, celu, celu_, conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, cosine_similarity,
    pairwise_distance, pdist, pixel_shuffle, pixel_unshuffle, prelu, relu_, rrelu, rrelu_, selu, selu_, threshold_,
)
from .nn.functional import adaptive_avg_pool1d, avg_pool1d, conv_transpose3d, rms_norm  # noqa: E402  (the same)
from .nn.functional.distance import cdist  # noqa: E402  (PyTorch has it at the top level only)
from .nn.functional.top_level import (  # noqa: E402  (PyTorch's top-level nn names of ATen's signatures)
    adaptive_max_pool1d, alpha_dropout, batch_norm, constant_pad_nd, dropout, embedding, group_norm, hardshrink,
    instance_norm, layer_norm, max_pool1d, max_pool2d, threshold,
)
from .nn.functional.top_level import (  # noqa: E402  (the same: ATen's signatures)
    alpha_dropout_, dropout_, feature_alpha_dropout, feature_alpha_dropout_, feature_dropout, feature_dropout_,
    max_pool1d_with_indices, max_pool3d,
)
from .nn.functional import channel_shuffle  # noqa: E402  (the same signature: F's)
from .nn.functional import channel_shuffle as native_channel_shuffle  # noqa: E402  (ATen's kernel of it)
from .nn.functional.top_level_losses import (  # noqa: E402  (ATen's losses: an int reduction, no legacy arguments)
    binary_cross_entropy_with_logits, cosine_embedding_loss, ctc_loss, hinge_embedding_loss, kl_div,
    margin_ranking_loss, poisson_nll_loss, triplet_margin_loss,
)
from .nn.cell_functions import gru_cell, lstm_cell, rnn_relu_cell, rnn_tanh_cell  # noqa: E402  (one-step cells)
from .snapshot.saveload import load, save  # noqa: E402
from .distributions.discrete import binomial  # noqa: E402  (torch.binomial: Binomial's draws)
from .strided_creation import empty_permuted, empty_strided, frombuffer  # noqa: E402  (creation in a given memory)

if _find_spec("einops") is not None:  # einops is optional: its backend for engine tensors, only where it is there
    try:
        from . import einops_backend  # noqa: F401  (defining the class is the registration einops looks for)
    except Exception as _exc:  # a broken einops (any error as it imports) must not take the engine down with it
        # A fixed 2, deliberately: the frames above this module's are importlib's, which warnings.warn
        # itself skips when it counts, so 2 is the line that imported the engine, whichever import it was.
        _warnings.warn(f"einops is installed but did not import ({_exc}): engine tensors stay unknown to it",
                       ImportWarning, stacklevel=2)

globals().update(_FOREACH_FUNCTIONS)  # PyTorch's torch._foreach_* (optimizers' multi-tensor paths)
from .printing import set_printoptions  # noqa: E402  (how tensors print; see printing.py)
from .settings import (  # noqa: E402  (PyTorch's process-wide settings; see settings.py)
    are_deterministic_algorithms_enabled, get_float32_matmul_precision, get_num_interop_threads, get_num_threads,
    is_deterministic_algorithms_warn_only_enabled, set_float32_matmul_precision, set_num_interop_threads,
    set_num_threads, set_warn_always, is_warn_always_enabled, use_deterministic_algorithms,
    get_deterministic_debug_mode, set_deterministic_debug_mode,
)

#: PyTorch's constants (``torch.pi``, ``torch.inf``, ...): Python numbers, as PyTorch's are
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan
newaxis = None  # x[:, mg.newaxis] adds a dim, as None does

#: nn functions PyTorch also offers at the top level (torch.conv2d, torch.selu, ...), with the same signatures
_NN_FUNCTIONS = ("bilinear", "celu", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                 "cosine_similarity", "hardshrink", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle",
                 "prelu", "rrelu", "selu", "threshold", "celu_", "relu_", "rrelu_", "selu_", "threshold_",
                 "adaptive_avg_pool1d", "avg_pool1d", "conv_transpose3d", "rms_norm",
                 # ATen's signatures (nn/functional/top_level.py): another argument order than nn.functional's
                 "adaptive_max_pool1d", "alpha_dropout", "batch_norm", "constant_pad_nd", "dropout", "embedding",
                 "group_norm", "instance_norm", "layer_norm", "max_pool1d", "max_pool2d",
                 "feature_alpha_dropout", "max_pool3d", "max_pool1d_with_indices", "channel_shuffle",
                 "native_channel_shuffle", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "ctc_loss",
                 "hinge_embedding_loss", "kl_div", "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss",
                 "gru_cell", "lstm_cell", "rnn_relu_cell", "rnn_tanh_cell", "feature_dropout", "dropout_",
                 "alpha_dropout_", "feature_dropout_", "feature_alpha_dropout_")

__all__ = [
    # tensors and creation
    "Tensor", "tensor", "zeros", "ones", "full", "empty", "arange", "linspace", "zeros_like", "ones_like",
    "full_like", "rand", "randn", "randint", "randperm", "from_dlpack", "from_numpy", "get_default_dtype",
    "set_default_dtype", "empty_like", "rand_like", "randn_like", "randint_like", "logspace", "scalar_tensor",
    "as_tensor", "asarray", "normal", "hann_window", "hamming_window", "blackman_window", "bartlett_window",
    "kaiser_window", "FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
    "CharTensor", "ByteTensor", "BoolTensor", "empty_strided", "empty_permuted", "frombuffer",
    "binomial",
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "bool_", "complex64", "complex128",
    "bfloat16", "complex32", "chalf",  # named only: computing in them is a TypeError (backend.DtypeNotOffered)
    "double", "half", "long", "short", "cfloat", "cdouble",  # mg.float, mg.int, mg.bool too, kept out of
    "dtype", "Size",                                          # ``import *`` (builtins)
    "contiguous_format", "preserve_format", "channels_last", "channels_last_3d", "memory_format",
    "layout", "strided",
    # devices and randomness
    "Device", "device", "get_device", "get_default_device", "set_default_device", "manual_seed",
    "initial_seed", "seed", "get_rng_state", "set_rng_state", "Generator", "default_generator",
    "thread_safe_generator",
    # autograd
    "backward", "backward_steps", "BackwardStep", "grad", "no_grad", "enable_grad", "set_grad_enabled",
    "is_grad_enabled", "is_recomputing", "inference_mode", "is_inference_mode_enabled",
    # anomaly mode
    "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "is_anomaly_check_inf_enabled", "AnomalyError",
    # the public math, section by section (functional/public_names.py), and the warning of a call
    # NumPy and PyTorch read differently (functional/two_meanings.py)
    *_public_names.exports(__name__), "AmbiguousSpellingWarning",
    # PyTorch's names
    "save", "load", "cdist", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision", "get_float32_matmul_precision",
    "set_num_threads", "get_num_threads", "vmap", "set_printoptions", "set_warn_always", "is_warn_always_enabled",
    "cond", "while_loop", "set_deterministic_debug_mode", "get_deterministic_debug_mode", "to_dlpack",
    *_NN_FUNCTIONS,
    # the rest of the system
    "Executor", "fft", "func", "linalg", "special", "nn", "optim", "utils", "distributed", "checkpoint", "snapshot",
    "testing", "memory", "viz", "cuda", "accelerator", "ops", "tape", "anomaly", "autograd", "backends",
    "distributions", "amp", "autocast", "fx", "hub", "jit", "onnx", "profiler", "return_types", "cpu", "version",
    "is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
    "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache", "autocast_increment_nesting",
    "autocast_decrement_nesting", "is_autocast_cpu_enabled", "set_autocast_cpu_enabled", "get_autocast_cpu_dtype",
    "set_autocast_cpu_dtype", "get_autocast_gpu_dtype", "set_autocast_gpu_dtype",
]

#: PyTorch's top-level functions of a tensor's storage and strides, absent for the reason the Tensor methods
#: of the same names are (``tensor._NO_STORAGE``)
_STORAGE_LEVEL_FUNCTIONS = ("as_strided", "as_strided_", "as_strided_scatter", "as_strided_copy", "resize_as_")
#: PyTorch's sparse constructors, layouts and products, absent as the sparse Tensor methods are
#: (``tensor._NO_SPARSE_LAYOUT``)
_SPARSE_LAYOUT_FUNCTIONS = (
    "sparse", "sparse_coo_tensor", "sparse_csr_tensor", "sparse_csc_tensor", "sparse_bsr_tensor", "sparse_bsc_tensor",
    "sparse_compressed_tensor", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "smm",
    "sspaddmm", "hspmm")
#: why ``mg._C`` is absent: PyTorch's private C++ binding has no counterpart in a NumPy/CuPy engine, and the
#: one name of it that ported code reaches for, in an ``except`` clause, is public here
_NO_C_BINDING = ("PyTorch's private C++ binding has no counterpart here (the engine is NumPy/CuPy); "
                 "torch._C._LinAlgError, which code catches (torchdiffeq's implicit solvers), is mg.linalg.LinAlgError")


def __getattr__(name: str) -> Any:
    """``mg.as_strided`` and its kin raise AttributeError with the reason (``hasattr`` answers False), as
    ``x.as_strided`` does: ported code (torchdiffeq's adjoint calls ``torch.as_strided(t, (), ())``) reads a
    decision with its way around, not Python's "Did you mean: 'strided'?".  So do the linear-algebra functions
    PyTorch removed (``torch.symeig`` in ACKTR's K-FAC): the message names the ``mg.linalg`` call to use.
    And so do the sparse constructors and layouts (``torch.sparse_coo_tensor``): there is no sparse layout.
    ``mg._C`` names the public exception that code catches as ``torch._C._LinAlgError``: without it,
    ``except torch._C._LinAlgError`` fails only when a solve does, with a bare AttributeError.
    Any other miss is Python's own."""
    from .tensor import _NO_SPARSE_LAYOUT, _NO_STORAGE, _REMOVED_FROM_PYTORCH, removed_from_pytorch

    if name in _STORAGE_LEVEL_FUNCTIONS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}: {_NO_STORAGE}")
    if name in _SPARSE_LAYOUT_FUNCTIONS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}: {_NO_SPARSE_LAYOUT}")
    if name in _REMOVED_FROM_PYTORCH:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}: {removed_from_pytorch(name)}")
    if name == "_C":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}: {_NO_C_BINDING}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}", name=name, obj=_sys.modules[__name__])
