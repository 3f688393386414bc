"""``Embedding`` and ``EmbeddingBag``: a table of vectors looked up by integer id (``N(0, 1)`` initial rows)."""

from __future__ import annotations

from typing import Any

from ..creation import int_argument
from ..functional.errors import PaddingIdxOutOfRange
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import functional as F
from . import init
from .functional.embedding_bag import SCALE_GRAD_BY_FREQ_REFUSED
from .module import Module, Parameter, _empty

__all__ = [
    "Embedding", "EmbeddingBag",
]


class _Table(Module):
    """What both layers are: a ``(num_embeddings, embedding_dim)`` weight of ``N(0, 1)`` rows,
    the ``padding_idx`` row (if any) zero."""

    padding_idx: int | None

    def _set_weight(self, shape: tuple[int, int], weight: Tensor | None, freeze: bool, dtype: Any,
                    device: Any) -> None:
        """A fresh ``N(0, 1)`` table, or PyTorch's ``_weight=``: the given tensor itself as the
        weight (no copy, nothing drawn, its padding row kept as given), trained unless ``freeze``."""
        if weight is None:
            self.weight = _empty(*shape, dtype=dtype, device=device)
            self.reset_parameters()
            return
        if tuple(weight.shape) != shape:
            raise ValueError(f"{type(self).__name__}: _weight has shape {tuple(weight.shape)}, expected {shape}")
        self.weight = Parameter(weight, requires_grad=not freeze)

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True, **options: Any) -> Any:
        """PyTorch's ``from_pretrained``: the layer over a given ``(rows, dim)`` table -- its weight
        *is* ``embeddings`` (shared memory), frozen unless ``freeze=False``; ``options`` are the
        constructor's (``padding_idx``, ``max_norm``, ``mode`` for a bag, ...)."""
        if embeddings.ndim != 2:
            raise ValueError(f"{cls.__name__}.from_pretrained: embeddings must be 2-D, got shape {embeddings.shape}")
        rows, cols = embeddings.shape
        return cls(rows, cols, _weight=embeddings, _freeze=freeze, **options)

    _PADDING_IDX_WORDS = "Padding_idx must be within num_embeddings"  # PyTorch's, its capital P too

    def _row_index(self, padding_idx: int | None) -> int | None:
        """``padding_idx`` as PyTorch keeps it: a row of the table, a negative one counted from the end."""
        if padding_idx is None:
            return None
        if not -self.num_embeddings <= padding_idx < self.num_embeddings:
            raise PaddingIdxOutOfRange(f"{type(self).__name__}: padding_idx={padding_idx} is out of range for "
                                       f"{self.num_embeddings} embeddings ({self._PADDING_IDX_WORDS})")
        return int(padding_idx) % self.num_embeddings

    def _options_repr(self, after_sizes: str = "") -> str:
        """PyTorch's ``extra_repr`` for the options both layers share, each shown when not its default
        (``after_sizes``: what the layer shows between the sizes and them)."""
        s = f"{self.num_embeddings}, {self.embedding_dim}{after_sizes}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        return s

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        # (a table built on the meta device has no row to zero, as normal_ there draws nothing:
        # to_empty() then reset_parameters() zeroes it, PyTorch's deferred initialization)
        if self.padding_idx is not None and self.weight.device.type != "meta":
            with no_grad():
                self.weight[self.padding_idx] = 0.0


def _table_size(cls: str, num_embeddings: Any, embedding_dim: Any) -> tuple[int, int]:
    """The table's two lengths as PyTorch reads them: ints (a NumPy integer, a one-element integer
    tensor), while a float is PyTorch's TypeError -- ``int()`` truncated ``Embedding(vocab / 2, 8)``'s
    2.5 to a table of 2 rows, where PyTorch refuses the float."""
    return (int_argument(cls, "num_embeddings", 1, num_embeddings),
            int_argument(cls, "embedding_dim", 2, embedding_dim))


class Embedding(_Table):
    """A lookup table: ``Embedding(num_embeddings, embedding_dim)(ids)``.

    ``padding_idx``: that row starts at zero and gets no gradient; ``max_norm``:
    rows looked up are first rescaled in place to at most that ``norm_type``-norm
    (PyTorch's arguments and behaviour).
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                 sparse: bool = False, _weight: Tensor | None = None, _freeze: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = _table_size(type(self).__name__, num_embeddings, embedding_dim)
        padding_idx = self._row_index(padding_idx)
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, float(norm_type)
        # sparse=True is kept (PyTorch's attribute) and means a dense gradient here: every optimizer that
        # PyTorch lets step a sparse one (SGD with momentum, Adagrad) steps a dense one to the same numbers
        self.scale_grad_by_freq, self.sparse = bool(scale_grad_by_freq), bool(sparse)
        self._set_weight((self.num_embeddings, self.embedding_dim), _weight, _freeze, dtype, device)

    def forward(self, input: Tensor) -> Tensor:
        ids = input  # PyTorch's argument name
        return F.embedding(ids, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq)

    def extra_repr(self) -> str:
        s = self._options_repr("" if self.padding_idx is None else f", padding_idx={self.padding_idx}")
        return s + ", sparse=True" if self.sparse else s  # (PyTorch's Embedding shows it; its EmbeddingBag not)


class EmbeddingBag(_Table):
    """Sums, means or maxima of bags of embedding rows: ``EmbeddingBag(n, dim)(ids, offsets)``
    (``F.embedding_bag``; a 2-D ``ids`` is one bag per row)."""

    _PADDING_IDX_WORDS = "padding_idx must be within num_embeddings"  # PyTorch's EmbeddingBag's, lower case

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                 include_last_offset: bool = False, padding_idx: int | None = None, _weight: Tensor | None = None,
                 _freeze: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if scale_grad_by_freq:
            raise ValueError(f"EmbeddingBag: {SCALE_GRAD_BY_FREQ_REFUSED}")
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"EmbeddingBag: mode must be 'sum', 'mean' or 'max', got {mode!r}")
        self.num_embeddings, self.embedding_dim = _table_size(type(self).__name__, num_embeddings, embedding_dim)
        self.max_norm, self.norm_type, self.mode = max_norm, float(norm_type), mode
        self.include_last_offset, self.padding_idx = include_last_offset, self._row_index(padding_idx)
        self.scale_grad_by_freq, self.sparse = False, sparse  # PyTorch's attributes
        self._set_weight((self.num_embeddings, self.embedding_dim), _weight, _freeze, dtype, device)

    def forward(self, input: Tensor, offsets: Tensor | None = None, per_sample_weights: Tensor | None = None) -> Tensor:
        ids = input  # PyTorch's argument name
        return F.embedding_bag(ids, self.weight, offsets, self.max_norm, self.norm_type, False, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        padding = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        return f"{self._options_repr()}, mode={self.mode!r}{padding}"
