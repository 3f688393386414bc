"""Activation layers: ``ReLU``, ``GELU``, ``Softmax``, ``PReLU``, ... (each calls its function in
:mod:`minigrad_ckpt.nn.functional`).

First the elementwise activations without options (naming the function is the whole layer), then
those along an axis, then those with one option and with two, then ``PReLU`` with its learned slope.
"""

from __future__ import annotations

from typing import Any

from ..creation import ones
from ..functional.arguments import as_tensor
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import functional as F
from .function_layer import FunctionLayer
from .module import Module, Parameter

__all__ = [
    "ReLU", "LeakyReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Softplus", "Hardtanh",
    "ELU", "Mish", "LogSigmoid", "PReLU", "Softmin", "SELU", "CELU", "GLU", "Hardswish", "Hardsigmoid", "Softsign",
    "Tanhshrink", "Threshold", "Softshrink", "Hardshrink", "RReLU", "ReLU6", "Softmax2d",
]


class _Elementwise(FunctionLayer):
    """An activation without options: ``fn`` applied to the input, elementwise."""

    def __init__(self) -> None:
        super().__init__()


class _ElementwiseInPlace(_Elementwise):
    """An activation without options that PyTorch gives ``inplace=`` (see ``F.relu``)."""

    options = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        FunctionLayer.__init__(self, inplace=bool(inplace))

    def forward(self, input: Tensor) -> Tensor:  # no keyword dict: every small model's ReLU comes here
        x = as_tensor(input)
        return type(self).fn(x, inplace=True) if self.inplace else type(self).fn(x)


class _AlongAxis(FunctionLayer):
    """An activation along one ``axis`` (``dim`` is accepted as PyTorch's name)."""

    options = ("axis",)

    def __init__(self, axis: int = -1, *, dim: int | None = None) -> None:
        super().__init__(axis=dim if dim is not None else axis)

    @property
    def dim(self) -> int | None:
        """PyTorch's name of :attr:`axis` (``nn.Softmax(dim=1).dim == 1``)."""
        return self.axis

    @dim.setter
    def dim(self, value: int | None) -> None:
        self.axis = value

    def extra_repr(self) -> str:  # PyTorch's name
        return f"dim={self.axis}"


class ReLU(_ElementwiseInPlace):
    """``max(x, 0)`` elementwise."""

    fn = staticmethod(F.relu)


class SiLU(_ElementwiseInPlace):
    """``x * sigmoid(x)`` elementwise (also called swish)."""

    fn = staticmethod(F.silu)


class Tanh(_Elementwise):
    """``tanh(x)`` elementwise."""

    fn = staticmethod(F.tanh)


class Sigmoid(_Elementwise):
    """``1 / (1 + exp(-x))`` elementwise."""

    fn = staticmethod(F.sigmoid)


class Mish(_ElementwiseInPlace):
    """``x * tanh(softplus(x))`` elementwise."""

    fn = staticmethod(F.mish)


class LogSigmoid(_Elementwise):
    """``log(sigmoid(x))`` elementwise, computed stably."""

    fn = staticmethod(F.logsigmoid)


class SELU(_ElementwiseInPlace):
    """The self-normalizing ``scale * elu(x, alpha)`` (``F.selu``)."""

    fn = staticmethod(F.selu)


class Hardswish(_ElementwiseInPlace):
    """``x * relu6(x + 3) / 6`` elementwise (``F.hardswish``)."""

    fn = staticmethod(F.hardswish)

    def extra_repr(self) -> str:
        return ""  # PyTorch's prints no options: ``Hardswish()`` whatever ``inplace`` is


class Hardsigmoid(_ElementwiseInPlace):
    """``relu6(x + 3) / 6`` elementwise (``F.hardsigmoid``)."""

    fn = staticmethod(F.hardsigmoid)

    def extra_repr(self) -> str:
        return ""  # PyTorch's prints no options: ``Hardsigmoid()`` whatever ``inplace`` is


class Softsign(_Elementwise):
    """``x / (1 + |x|)`` elementwise."""

    fn = staticmethod(F.softsign)


class Tanhshrink(_Elementwise):
    """``x - tanh(x)`` elementwise."""

    fn = staticmethod(F.tanhshrink)


class Softmax(_AlongAxis):
    """``exp(x) / sum(exp(x))`` along ``axis`` (``dim`` is accepted as PyTorch's name); without
    either, PyTorch's implicit choice (``F.softmax``'s), with its deprecation warning."""

    fn = staticmethod(F.softmax)
    shown = ()

    def __init__(self, axis: int | None = None, *, dim: int | None = None) -> None:
        FunctionLayer.__init__(self, axis=dim if dim is not None else axis)

    def extra_repr(self) -> str:
        return f"dim={self.axis}"  # PyTorch's: Softmax(dim=1), Softmax(dim=None) for the implicit choice


class LogSoftmax(Softmax):
    """``log(softmax(x))`` along ``axis``, computed stably."""

    fn = staticmethod(F.log_softmax)


class Softmin(Softmax):
    """``softmax(-x)`` along ``axis`` (``dim`` is accepted as PyTorch's name)."""

    fn = staticmethod(F.softmin)


class GLU(_AlongAxis):
    """The gated linear unit over ``axis`` (``dim``): ``a * sigmoid(b)`` of its two halves (``F.glu``)."""

    fn = staticmethod(F.glu)


class LeakyReLU(FunctionLayer):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""

    fn = staticmethod(F.leaky_relu)
    options = ("negative_slope", "inplace")

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        super().__init__(negative_slope=negative_slope, inplace=bool(inplace))


class ELU(FunctionLayer):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (``F.elu``)."""

    fn = staticmethod(F.elu)
    options = ("alpha", "inplace")

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(alpha=alpha, inplace=bool(inplace))


class GELU(FunctionLayer):
    """The Gaussian error linear unit ``x * Phi(x)``; ``approximate='tanh'`` uses the tanh formula."""

    fn = staticmethod(F.gelu)
    options = ("approximate",)

    def __init__(self, approximate: str = "none") -> None:
        super().__init__(approximate=approximate)


class Hardshrink(FunctionLayer):
    """``x`` where ``|x| > lambd``, else 0 (``F.hardshrink``)."""

    fn = staticmethod(F.hardshrink)
    options = ("lambd",)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__(lambd=lambd)

    def extra_repr(self) -> str:  # PyTorch's: the threshold alone
        return f"{self.lambd}"


class CELU(FunctionLayer):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` (``F.celu``).  As PyTorch's, CELU,
    Softshrink and RReLU take any option when built; a call refuses the ones ``F`` refuses (its
    RuntimeError), so a layer built and never called with them is no error."""

    fn = staticmethod(F.celu)
    options = ("alpha", "inplace")

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(alpha=alpha, inplace=bool(inplace))


class Softshrink(FunctionLayer):
    """Shrink towards 0 by ``lambd``, 0 within ``[-lambd, lambd]`` (``F.softshrink``)."""

    fn = staticmethod(F.softshrink)
    options = ("lambd",)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__(lambd=lambd)

    def extra_repr(self) -> str:  # PyTorch's: the threshold alone
        return f"{self.lambd}"


class Softplus(FunctionLayer):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold`` (``F.softplus``)."""

    fn = staticmethod(F.softplus)
    options = ("beta", "threshold")

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__(beta=beta, threshold=threshold)


class Hardtanh(FunctionLayer):
    """Clamp to ``[min_val, max_val]`` (``F.hardtanh``)."""

    fn = staticmethod(F.hardtanh)
    options = ("min_val", "max_val", "inplace")

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        if min_val > max_val:
            raise ValueError(f"Hardtanh: min_val={min_val} is greater than max_val={max_val}")
        super().__init__(min_val=min_val, max_val=max_val, inplace=bool(inplace))


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)``: PyTorch's ``ReLU6`` is a ``Hardtanh(0.0, 6.0)`` (so an ``isinstance`` test for
    Hardtanh finds it, and it has ``min_val`` and ``max_val``); its repr shows ``inplace`` alone."""

    shown = ()

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's argument name
        if (self.min_val, self.max_val) != (0.0, 6.0):  # bounds changed after construction: Hardtanh's forward
            return super().forward(input)
        x = as_tensor(input)
        return F.relu6(x, inplace=True) if self.inplace else F.relu6(x)  # (errors name relu6)


class Softmax2d(FunctionLayer):
    """Softmax over the channels (axis -3) of (N, C, H, W) or (C, H, W) input, at each position."""

    def forward(self, input: Tensor) -> Tensor:
        x = input  # PyTorch's argument name
        x = as_tensor(x)
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {x.ndim}D instead")
        return F.softmax(x, -3)


class Threshold(FunctionLayer):
    """``x`` where ``x > threshold``, else ``value`` (``F.threshold``)."""

    fn = staticmethod(F.threshold)
    options = ("threshold", "value", "inplace")

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__(threshold=threshold, value=value, inplace=bool(inplace))


class RReLU(FunctionLayer):
    """The randomized leaky ReLU: slopes drawn from ``[lower, upper]`` in training, their mean in eval."""

    fn = staticmethod(F.rrelu)
    options = ("lower", "upper", "training", "inplace")
    shown = ("lower", "upper")

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False) -> None:
        super().__init__(lower=lower, upper=upper, inplace=bool(inplace))


class PReLU(Module):
    """``x`` where positive, ``weight * x`` elsewhere, with a learned slope: one (``num_parameters=1``)
    or one per channel (axis 1), initialised to ``init``."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_parameters, self.init = int(num_parameters), init
        self.weight = Parameter(ones(num_parameters, dtype=dtype, device=device))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every slope back to ``init`` (PyTorch's)."""
        with no_grad():
            self.weight.fill_(float(self.init))

    def forward(self, input: Tensor) -> Tensor:
        x = input  # PyTorch's argument name
        x = as_tensor(x)  # a list or an array works as it does for the functions
        return F.prelu(x, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
