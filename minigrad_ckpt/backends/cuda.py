"""``mg.backends.cuda``: PyTorch's CUDA math switches (``matmul.allow_tf32``), kept as written;
the engine's GPU arithmetic (CuPy) is full float32/float64 whatever they say."""

from __future__ import annotations

__all__ = ["is_built", "matmul"]


class _MatmulSwitches:
    """``torch.backends.cuda.matmul``: the reduced-precision switches, with PyTorch's defaults."""

    def __init__(self) -> None:
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    def __repr__(self) -> str:
        return f"matmul(allow_tf32={self.allow_tf32})"


matmul = _MatmulSwitches()


def is_built() -> bool:
    """False: no PyTorch CUDA build here (``mg.cuda.is_available()`` says whether CuPy sees a GPU)."""
    return False
