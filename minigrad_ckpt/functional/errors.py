"""PyTorch's exception types, where NumPy's spelling of the same mistake raises another one.

PyTorch raises ``RuntimeError("ZeroDivisionError")`` for an integer divided by zero and
``IndexError("Dimension out of range ...")`` for a dim past a tensor's rank; NumPy's habits are
``ZeroDivisionError`` and ``ValueError`` (its ``AxisError`` is both a ``ValueError`` and an
``IndexError``).  Each class here derives from both, so an ``except`` written for either library
catches it, and the message says what was wrong.
"""

from __future__ import annotations

from typing import Any

from ..backend import (  # noqa: F401  (raised by creation too, which sits below)
    DtypeNotImplemented,
    InvalidShape,
    RefusedArgument,
)
from ..tensor import Tensor


class IntegerDivisionByZero(ZeroDivisionError, RuntimeError):
    """An integer divided by (or taken modulo) zero: PyTorch's ``RuntimeError``, and Python's
    ``ZeroDivisionError`` (NumPy answers 0 with a warning)."""


def refuse_integer_zero_divisor(name: str, divisor: Any) -> None:
    """Raise :class:`IntegerDivisionByZero` if the integral ``divisor`` (a tensor or a number)
    has a zero; the caller has checked that both operands are integral."""
    if isinstance(divisor, Tensor):
        xp = divisor.device.xp
        zero = bool(xp.scalar(xp.any(divisor._data == 0))) if divisor._data.size else False
    else:
        zero = divisor == 0
    if zero:
        raise IntegerDivisionByZero(f"{name}: integer division by zero (PyTorch's ZeroDivisionError; "
                                    f"NumPy would answer 0)")


class NeedsFloatingInput(RuntimeError, TypeError):
    """``mean``, ``std``, ``var`` or ``norm`` of an integer or bool tensor, ``scaled_dot_product_attention``
    of integer ones: PyTorch's ``RuntimeError`` ("mean(): could not infer output dtype"), and a
    ``TypeError`` (the input's type is what is wrong)."""


class DimensionOutOfRange(IndexError, ValueError):
    """A dim past a tensor's rank: PyTorch's ``IndexError`` and NumPy's ``ValueError`` (its
    ``AxisError`` is both)."""


def dimension_out_of_range(dim: int, ndim: int) -> DimensionOutOfRange:
    """The error for ``dim`` of a tensor of ``ndim`` dims, in PyTorch's words (a 0-d tensor takes
    dims -1 and 0, as PyTorch's), with NumPy's after them."""
    span = max(ndim, 1)
    if -span <= dim < span:  # a 0-d tensor's dim 0 or -1, refused where PyTorch's range would take it:
        # PyTorch's words for such a refusal (``unbind``, ``narrow``), not its range ("[-1, 0], but got 0")
        return DimensionOutOfRange(f"Dimension specified as {dim} but tensor has no dimensions: axis {dim} is out "
                                   f"of bounds for a tensor of dimension 0")
    return DimensionOutOfRange(f"Dimension out of range (expected to be in range of [{-span}, {span - 1}], "
                               f"but got {dim}): axis {dim} is out of bounds for a tensor of dimension {ndim}")


class SpectralArgumentError(RuntimeError, ValueError):
    """An argument the Fourier transforms refuse -- a normalization they do not know, a length
    below 1, a repeated dim, sizes ``s`` that do not match the dims: PyTorch's ``RuntimeError``
    ("Invalid normalization mode", "Invalid number of data points", "FFT dims must be unique",
    "When given, dim and shape arguments must have the same length"; its words follow the function name)
    and NumPy's ``ValueError``."""


class RealInputRequired(RuntimeError, TypeError):
    """A complex input to a transform of real signals (``rfft``, ``ihfft``, ...): PyTorch's
    ``RuntimeError`` ("rfft expects a real input tensor") and a ``TypeError``."""


class BoolMaskRequired(RuntimeError, TypeError):
    """A mask of another dtype than bool (``masked_fill``, ``masked_select``, ``masked_scatter``):
    PyTorch's ``RuntimeError`` ("masked_fill_ only supports boolean masks") and a ``TypeError``."""


class ComplexNotImplemented(NotImplementedError, TypeError):
    """A complex input to a function PyTorch implements for real numbers only -- a random law of
    the real line (``exponential_``, ``random_``, ``trunc_normal_``), a loss whose formula needs a
    real difference or probabilities (``mse_loss``, ``huber_loss``, ``kl_div``, ``nll_loss``), a
    softmax over attention scores: PyTorch's ``NotImplementedError`` or ``RuntimeError`` (this is
    both: ``NotImplementedError`` derives from ``RuntimeError``) and the engine's ``TypeError`` for
    complex input."""


class EmptyReduction(RuntimeError, ValueError):
    """A reduction with no identity (``max``, ``argmin``, ...) of an empty tensor over every dim:
    PyTorch's ``RuntimeError`` ("Expected reduction dim to be specified for input.numel() == 0")."""


class EmptyReductionDim(IndexError, ValueError):
    """The same over a named dim of size 0: PyTorch's ``IndexError`` ("Expected reduction dim 0 to
    have non-zero size")."""


class EmptyArgReduction(EmptyReduction, IndexError):
    """``argmax``/``argmin`` of an empty tensor over every dim: PyTorch's ``IndexError`` there
    ("argmax(): Expected reduction dim to be specified for input.numel() == 0"), and the
    ``RuntimeError`` the other reductions raise."""


def empty_reduction(name: str, shape: tuple, axis: Any) -> ValueError:
    """The error for reducing ``shape`` over ``axis`` (None: every dim; else the first empty dim, in
    range) where the result has no value, in PyTorch's words; each class is also NumPy's ``ValueError``."""
    if axis is None:
        if name in ("argmax", "argmin"):
            return EmptyArgReduction(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        return EmptyReduction(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                              "Specify the reduction dim with the 'dim' argument.")
    return EmptyReductionDim(f"{name}(): Expected reduction dim {axis} to have non-zero size.")




class JoinShapeMismatch(RuntimeError, ValueError):
    """Tensors joined (``cat``, ``concatenate``, ``stack``) whose shapes do not fit together, or a
    zero-dimensional one concatenated: PyTorch's ``RuntimeError`` ("stack expects each tensor to be
    equal size"; "Sizes of tensors must match except in dimension 0") and NumPy's ``ValueError``."""


class InputMismatch(RuntimeError, ValueError):
    """An input a layer or an ``nn.functional`` function cannot take -- its shape does not fit the
    weights (``Linear``, ``Conv2d``, ``BatchNorm``, an RNN's state), the kernel is larger than the
    padded input, a probability outside [0, 1] -- or a ``linalg`` function cannot (a matrix that is
    not square, fewer than 2 dimensions, shapes that do not fit each other), where PyTorch raises
    ``RuntimeError``; also the ``ValueError`` the engine raised before (so NumPy-style handlers
    still catch it)."""


class MaskDtypeError(AssertionError, TypeError):
    """An attention mask that is neither boolean nor floating (``multi_head_attention_forward``'s
    ``attn_mask`` / ``key_padding_mask``): an integer mask of 0s and 1s reads as "masked / not
    masked" to its writer but would be *added* to the scores. PyTorch refuses it with an
    ``AssertionError``; ``TypeError`` is what the mistake is."""


class AttentionShapeError(AssertionError, ValueError):
    """Inputs, masks or parameters of ``multi_head_attention_forward`` / ``nn.MultiheadAttention``
    whose shapes do not go together (a 2-D key beside a 3-D query, a 1-D ``attn_mask``, a
    ``static_k`` beside ``bias_k``): PyTorch asserts them (``AssertionError``, which its own tests
    catch); ``ValueError`` is what the mistake is and what the engine raised before."""


class PaddingIdxOutOfRange(AssertionError, ValueError):
    """An embedding's ``padding_idx`` outside ``[-num_embeddings, num_embeddings)``: PyTorch's
    ``F.embedding``, ``nn.Embedding`` and ``nn.EmbeddingBag`` refuse it with an ``AssertionError``
    ("Padding_idx must be within num_embeddings"); ``ValueError`` is what the engine raised before."""


class LayerDtypeMismatch(TypeError, RuntimeError, ValueError):
    """A layer's input whose dtype is not its parameters' (float64 into a float32 ``Linear``,
    integers into an ``LSTM``). ``TypeError`` is what the mistake is and what the engine raised
    first; PyTorch raises ``RuntimeError`` from the kernels (``Linear``, convolutions, norms, the
    cells, attention) and ``ValueError`` from ``RNN`` / ``LSTM`` / ``GRU``'s own check -- so a
    handler written for PyTorch catches this one too."""


class IndexOutOfBounds(RuntimeError, IndexError):
    """An index out of range where PyTorch's kernel raises ``RuntimeError`` ("index 4 is out of
    bounds for dimension 1 with size 4": ``gather``, ``scatter``, ``index_add``), and the
    ``IndexError`` that indexing, and the engine before, raise."""


def first_out_of_range(flat: Any, low: int, high: int) -> int:
    """The first value of a host array of indices, in order, outside ``[low, high)`` (PyTorch's
    errors name the first bad index its kernel meets)."""
    flat = flat.reshape(-1)
    return int(flat[(flat < low) | (flat >= high)][0])


class ClassValueOutOfRange(RuntimeError, IndexError):
    """A class index below 0 or not below the number of classes (``one_hot``): PyTorch's
    ``RuntimeError`` ("Class values must be non-negative"), and the ``IndexError`` the engine
    raised before."""


class IndexRefused(RuntimeError, IndexError):
    """Indices a gather, scatter or selection cannot take -- not integers (``index_select``,
    ``gather``, ``take`` of floats or bools), or more than one for a 0-d input: PyTorch's
    ``RuntimeError`` ("Expected dtype int32 or int64 for index"; ``index_fill`` and ``x[i]`` raise
    ``IndexError`` there), and the ``IndexError`` the engine raised before."""


class ArgumentTypeRefused(TypeError, ValueError):
    """An argument of a kind PyTorch's argument parser does not accept in that place -- a string
    ``ord`` for ``linalg.vector_norm``, ``rcond`` and ``rtol`` together for ``linalg.pinv``: PyTorch's
    ``TypeError`` ("received an invalid combination of arguments"), and the ``ValueError`` the
    engine raised before."""


class ModeNotImplemented(NotImplementedError, ValueError):
    """A mode an ``nn.functional`` call has no implementation of for its input (``interpolate``'s
    ``'bilinear'`` of a 3-D input or an unknown mode, ``pad``'s unknown mode, ``embedding_bag``'s
    ``per_sample_weights`` outside mode ``'sum'``): PyTorch's ``NotImplementedError``, and the
    ``ValueError`` the engine raised before."""


class TooFewDims(RuntimeError, IndexError, ValueError):
    """A tensor of fewer dims than a shape op needs -- ``tril``/``triu``/``diag`` of a 0-d or 1-D
    tensor, ``split``/``chunk``/``narrow``/``tensor_split``/``diff`` of a 0-d one: PyTorch's
    ``RuntimeError`` ("tril: input tensor must have at least 2 dimensions"), or its ``IndexError``
    where it reads the missing dim first (``diagonal`` of a 1-D tensor, ``diag_embed`` of a 0-d
    one), and the ``ValueError`` the engine raised before."""


class MissingBounds(RuntimeError, TypeError):
    """``clamp`` (``x.clip()``, ``x.clamp_()``) with neither ``min`` nor ``max``: PyTorch's
    ``RuntimeError`` ("At least one of 'min' or 'max' must not be None"), and the ``TypeError`` the
    engine raised before (an argument is missing).  NumPy's ``mg.clip(x)`` takes none (NumPy 2)."""


class ArgumentCountMismatch(RuntimeError, TypeError):
    """A list of arguments whose length does not match another's -- ``gradient``'s spacings and its
    dims: PyTorch's ``RuntimeError`` ("expected spacing to be unspecified, a scalar or ..."), and the
    ``TypeError`` NumPy (and the engine before) raise for the wrong number of spacings."""


class WrongTensorKind(RuntimeError, TypeError):
    """A tensor argument of a rank or dtype an op cannot take in that place -- ``repeat_interleave``'s
    counts of 2 dims, ``tensor_split``'s split points as floats, ``view_as_complex`` of floats whose
    last dim is not 2, ``view_as_real`` of real numbers: PyTorch's ``RuntimeError`` ("repeats
    must be 0-dim or 1-dim tensor"), and the ``TypeError`` the engine raised before."""
