"""``FunctionLayer``: a layer that is one function of :mod:`minigrad_ckpt.nn.functional` applied to
its input, with the layer's options as the function's keyword arguments.

``ReLU``, ``LeakyReLU``, the pooling layers, ``Dropout`` and the losses are such layers: each
names its function and its options, and ``forward``, ``repr`` and storing the options follow from
them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..functional.arguments import as_tensor
from ..tensor import Tensor
from .module import Module

__all__: list[str] = []


class FunctionLayer(Module):
    """``forward(x) = fn(x, **{name: getattr(self, name) for name in options})``.

    ``options`` are attributes of the layer, passed by keyword; ``shown`` are those its
    ``repr`` lists (all of ``options`` unless a class says otherwise).  A subclass's
    constructor states PyTorch's parameters, checks their values and hands them on by
    name: ``super().__init__(negative_slope=negative_slope)`` stores each as an attribute.
    """

    fn: ClassVar[Any] = None
    options: ClassVar[tuple[str, ...]] = ()
    shown: ClassVar[tuple[str, ...] | None] = None

    def __init__(self, **options: Any) -> None:
        super().__init__()
        for name, value in options.items():
            setattr(self, name, value)

    def forward(self, input: Tensor) -> Tensor:  # PyTorch's argument name (``layer(input=x)`` works)
        x = as_tensor(input)  # a list or an array works as it does for the functions
        return type(self).fn(x, **{name: getattr(self, name) for name in self.options})

    def extra_repr(self) -> str:
        names = self.options if self.shown is None else self.shown
        shown = [_option(name, getattr(self, name)) for name in names if name != "inplace"]
        if getattr(self, "inplace", False):  # PyTorch shows it only when set
            shown.append("inplace=True")
        return ", ".join(shown)


def _option(name: str, value: Any) -> str:
    return f"{name}={value!r}" if isinstance(value, str) else f"{name}={value}"
