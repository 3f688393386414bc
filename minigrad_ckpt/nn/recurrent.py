"""Recurrent layers: RNN, LSTM, GRU and their one-step cells, with PyTorch's arguments,
parameter names, gate order and initialisation (so a PyTorch ``state_dict`` loads).

Everything is built from registered ops (``linear``, slicing, ``sigmoid``, ``tanh``,
``stack``), one time step after another, so the layers checkpoint, replay and
differentiate twice like any other composition. The input projection of a whole
sequence is one ``linear`` call; only the hidden-to-hidden product runs per step.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

from .. import functional as mf
from ..functional.errors import InputMismatch, LayerDtypeMismatch
from ..ops import recurrent as _fused
from ..ops.indexing import GetItem
from ..tape import apply
from ..tensor import Tensor
from ..user_frame import stacklevel_outside_the_engine
from . import functional as F
from . import init
from .module import Module, _empty
from .utils.rnn import PackedSequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _cell_step(mode: str, xg: Tensor, h: Tensor, c: Tensor | None, w_hh: Tensor, b_hh: Tensor | None
               ) -> tuple[Tensor, Tensor | None]:
    """One step: ``xg`` is the input's projection ``x W_ih^T + b_ih`` (gates side by side)."""
    hg = F.linear(h, w_hh, b_hh)
    if mode == "LSTM":  # gates i, f, g, o: two fused ops and a slice instead of fourteen ops (ops/recurrent.py)
        return _lstm_outputs(apply(_fused.LSTMStep(), xg, hg, c))
    if mode == "GRU":  # gates r, z, n; the candidate sees r * (W_hn h + b_hn): one fused op
        return apply(_fused.GRUCell(), xg, hg, h), None
    pre = xg + hg
    return (mf.tanh(pre) if mode == "RNN_TANH" else F.relu(pre)), None


def _lstm_outputs(record: Tensor) -> tuple[Tensor, Tensor]:
    """``(h', c')`` of an LSTM step's record: ``c'`` is its fifth block -- the op itself, not
    ``x[...]``'s parsing of an index (3x) -- and ``h' = a_o * tanh(c')`` a node of its own."""
    c = apply(GetItem(index=(4,), in_shape=record.shape), record)
    return apply(_fused.LSTMStepOutput(), record), c


def _permuted(state: Tensor | None, batch_order: Tensor | None) -> Tensor | None:
    """``state`` ``(layers * directions, N, H)`` with its batch in ``batch_order`` (None: as it is)."""
    if state is None or batch_order is None:
        return state
    return state[:, batch_order.detach().cpu().numpy()]


def _state_shape_refusal(states: list, i: int, want: tuple[int, ...], unbatched: bool, lstm: bool, ours: str
                         ) -> str:
    """Why an RNN refuses its initial state ``states[i]``, in PyTorch's words (its tests match them), ours
    after them: states of the other rank are named first (PyTorch's ``forward`` checks them before their
    shapes: an unbatched input takes 2-D states), then PyTorch's ``check_hidden_size``, which sees an
    unbatched state with its batch dim of 1."""
    if not all(isinstance(s, Tensor) for s in states):
        return ours
    kind, rank = ("unbatched 2-D", 2) if unbatched else ("batched 3-D", 3)
    if any(s.ndim != rank for s in states):
        if lstm:
            got = ", ".join(f"{s.ndim}-D" for s in states)
            return f"For {kind} input, hx and cx should also be {rank}-D but got ({got}) tensors ({ours})"
        return f"For {kind} input, hx should also be {rank}-D but got {states[0].ndim}-D tensor ({ours})"
    seen = [*states[i].shape]
    if unbatched:  # (PyTorch checks the state with its batch dim of 1 put back)
        want, seen = (want[0], 1, want[1]), seen[:1] + [1] + seen[1:]
    return f"Expected hidden{f'[{i}]' if lstm else ''} size {tuple(want)}, got {seen} ({ours})"


def _check_float_input(module: Module, x: Tensor, param: Tensor) -> None:
    F._check_input_dtype(type(module).__name__, x, param)


def _check_proj_size(mode: str, proj_size: Any, hidden_size: int) -> None:
    """PyTorch's rules for ``proj_size``, with its messages."""
    if not isinstance(proj_size, int) or isinstance(proj_size, bool) or proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")
    if proj_size and mode != "LSTM":
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


def _check_recurrent_options(owner: str, **options: Any) -> None:
    """PyTorch's checks of an RNN's options, in its order: ``bias`` and ``batch_first`` must be bools
    (``bias=1`` or ``batch_first="False"`` is a ``TypeError``, not silently read as truthy), the sizes ints
    (``TypeError``) and positive (``ValueError``)."""
    for name in ("bias", "batch_first"):
        if not isinstance(options[name], bool):
            raise TypeError(f"{owner}: {name} should be of type bool, got: {type(options[name]).__name__}")
    for name in ("input_size", "hidden_size", "num_layers"):
        v = options[name]
        if not isinstance(v, int) or isinstance(v, bool):
            raise TypeError(f"{owner}: {name} should be of type int, got: {type(v).__name__}")
        if v < 1:
            raise ValueError(f"{owner}: {name} must be greater than zero, got {v}")



def _unknown_nonlinearity(nonlinearity: Any) -> str:
    """PyTorch's message for an ``RNN`` nonlinearity other than ``"tanh"`` or ``"relu"`` (its tests match
    ``Unknown nonlinearity``); ``RNNCell`` says the same at construction, where PyTorch's says it at the
    first forward (``Unknown nonlinearity: sigmoid``), a mistake found one call earlier."""
    return f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."


def _init_bound(hidden_size: int) -> float:
    """PyTorch's ``1/sqrt(hidden_size)`` init bound, 0 for ``hidden_size=0`` (a layer with no hidden
    units has empty weights, and a division by zero is no reason to refuse building it)."""
    return 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0

class RNNBase(Module):
    """The shared machinery of RNN, LSTM and GRU (``mode`` is ``"RNN_TANH"``, ``"RNN_RELU"``,
    ``"LSTM"`` or ``"GRU"``)."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"unknown recurrent mode {mode!r}")
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(f"{type(self).__name__}: dropout must be a number in [0, 1], got {dropout!r}")
        _check_recurrent_options(type(self).__name__, input_size=input_size, hidden_size=hidden_size,
                                 num_layers=num_layers, bias=bias, batch_first=batch_first)
        _check_proj_size(mode, proj_size, hidden_size)
        if dropout > 0 and num_layers == 1:  # PyTorch's warning, word for word: the dropout would do nothing
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", UserWarning, stacklevel=stacklevel_outside_the_engine())
        self.mode, self.proj_size = mode, proj_size
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first = bool(bias), bool(batch_first)
        self.dropout, self.bidirectional = float(dropout), bool(bidirectional)
        gates = _GATES[mode] * hidden_size
        D = 2 if bidirectional else 1
        out_size = proj_size or hidden_size  # what h_t (and so each step's output) holds
        self._flat_names: list[str] = []
        for layer in range(num_layers):
            in_size = input_size if layer == 0 else out_size * D
            for d in range(D):
                sfx = f"_l{layer}" + ("_reverse" if d else "")
                shapes = [("weight_ih", (gates, in_size)), ("weight_hh", (gates, out_size))]
                if bias:
                    shapes += [("bias_ih", (gates,)), ("bias_hh", (gates,))]
                if proj_size:  # PyTorch's LSTM with projections: h_t = W_hr (o_t * tanh(c_t))
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name + sfx, _empty(*shape, dtype=dtype, device=device))
                    self._flat_names.append(name + sfx)
        self.reset_parameters()

    def flatten_parameters(self) -> None:
        """PyTorch's cuDNN step (its weights made one contiguous block): nothing to do here, the
        weights are read where they are; programs call it in ``forward``, so it is accepted."""

    @property
    def _flat_weights_names(self) -> list[str]:
        """The parameters' names in PyTorch's order: per layer and direction ``weight_ih``, ``weight_hh``,
        ``bias_ih``, ``bias_hh`` (and ``weight_hr`` with ``proj_size``)."""
        return list(self._flat_names)

    @property
    def _flat_weights(self) -> list[Tensor]:
        return [getattr(self, name) for name in self._flat_names]

    @property
    def all_weights(self) -> list[list[Tensor]]:
        """The parameters grouped per layer and direction, as PyTorch's ``all_weights``."""
        per = len(self._flat_names) // (self.num_layers * (2 if self.bidirectional else 1))
        flat = self._flat_weights
        return [flat[i:i + per] for i in range(0, len(flat), per)]

    def reset_parameters(self) -> None:
        """Every weight and bias ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``, as PyTorch (the
        projection ``weight_hr`` too); all zero for ``hidden_size=0``, whose weights hold nothing."""
        k = _init_bound(self.hidden_size)
        for name in self._flat_names:
            init.uniform_(getattr(self, name), -k, k)

    def _params(self, layer: int, d: int) -> tuple[Tensor, Tensor, Tensor | None, Tensor | None]:
        """Layer ``layer``'s weights in direction ``d``, read by ``getattr``: a weight that
        ``weight_norm`` or a parametrization computes is found where it is computed."""
        sfx = f"_l{layer}" + ("_reverse" if d else "")
        w_ih, w_hh = getattr(self, "weight_ih" + sfx), getattr(self, "weight_hh" + sfx)
        if self.bias:
            return w_ih, w_hh, getattr(self, "bias_ih" + sfx), getattr(self, "bias_hh" + sfx)
        return w_ih, w_hh, None, None

    def forward(self, input: Tensor | PackedSequence, hx: Any = None) -> tuple[Any, Any]:
        """``(output, h_n)`` (``(output, (h_n, c_n))`` for the LSTM) with PyTorch's shapes; a
        :class:`PackedSequence` in gives one out (each sequence run for its own length, ``h_n`` in
        the caller's batch order)."""
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        x = self._check_input(input)
        unbatched = x.ndim == 2
        if unbatched:
            x = mf.expand_dims(x, 1)
        elif self.batch_first:
            x = mf.swapaxes(x, 0, 1)
        L, N = x.shape[0], x.shape[1]
        if L == 0:
            # PyTorch's words: its own test matches them (test_error_RNN_seq_len_zero)
            raise InputMismatch(f"{type(self).__name__}: Expected sequence length to be larger than 0 in RNN")
        h0, c0 = self._initial_state(hx, (self.num_layers * self._directions, N), unbatched, x)
        x, hn, cn = self._layers(x, [N] * L, h0, c0)
        if unbatched:
            x, hn = mf.squeeze(x, 1), mf.squeeze(hn, 1)
            cn = mf.squeeze(cn, 1) if cn is not None else None
        elif self.batch_first:
            x = mf.swapaxes(x, 0, 1)
        return x, ((hn, cn) if self.mode == "LSTM" else hn)

    def _forward_packed(self, packed: PackedSequence, hx: Any) -> tuple[PackedSequence, Any]:
        """The layers over packed steps: step ``t`` runs the first ``batch_sizes[t]`` sequences
        (packing sorted them longest first); the states given and returned are in the caller's
        order, permuted by ``sorted_indices`` / ``unsorted_indices`` as PyTorch's."""
        x = self._check_input(packed.data, packed_data=True)
        sizes = [int(b) for b in packed.batch_sizes.detach().cpu().numpy()]
        h0, c0 = self._initial_state(hx, (self.num_layers * self._directions, sizes[0]), False, x)
        h0, c0 = _permuted(h0, packed.sorted_indices), _permuted(c0, packed.sorted_indices)
        x, hn, cn = self._layers(x, sizes, h0, c0)
        hn, cn = _permuted(hn, packed.unsorted_indices), _permuted(cn, packed.unsorted_indices)
        out = packed._replace(data=x)
        return out, ((hn, cn) if self.mode == "LSTM" else hn)

    @property
    def _directions(self) -> int:
        return 2 if self.bidirectional else 1

    def _check_input(self, x: Any, packed_data: bool = False) -> Tensor:
        name = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"{name}: input must be a Tensor, got {type(x).__name__}")
        if packed_data and x.ndim != 2:  # (PyTorch's words here and below: its tests match them)
            raise ValueError(f"{name}: input must have 2 dimensions, got {x.ndim} ({self._ranks_taken(x)})")
        if x.ndim not in (2, 3):
            tensor = " tensor" if self.mode.startswith("RNN") else ""  # (PyTorch's RNN says "tensor", LSTM/GRU not)
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {x.ndim}D{tensor} instead "
                             f"({self._ranks_taken(x)})")
        w = self._params(0, 0)[0]
        if x._data.dtype != w._data.dtype:  # (the arrays' dtypes: Tensor.dtype is a Python-level property)
            raise LayerDtypeMismatch(f"{name}: RNN input dtype ({x.dtype}) does not match weight dtype ({w.dtype}). "
                                     f"Convert input: input.to({w.dtype}), or convert model: model.to({x.dtype}) "
                                     f"(x.float() for float32)")
        if x.shape[-1] != self.input_size:
            raise InputMismatch(f"{name}: input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                                f"got {x.shape[-1]} (input of shape {x.shape})")
        return x

    def _ranks_taken(self, x: Tensor) -> str:
        return f"expected a 2-D (L, {self.input_size}) or 3-D input, got shape {x.shape}"

    def _layers(self, x: Tensor, sizes: list[int], h0: Tensor, c0: Tensor | None
                ) -> tuple[Tensor, Tensor, Tensor | None]:
        """Every layer and direction over ``x``: padded ``(L, N, F)`` (every ``sizes[t]`` is N)
        or packed ``(sum(sizes), F)``; returns the last layer's output (same layout), ``h_n``, ``c_n``."""
        D, packed = self._directions, x.ndim == 2
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(D):
                c = c0[layer * D + d] if c0 is not None else None
                ys, h, c = self._run_direction(x, sizes, layer, d, h0[layer * D + d], c)
                outs.append(mf.concatenate(ys, axis=0) if packed else mf.stack(ys, axis=0))
                h_n.append(h)
                c_n.append(c)
            x = outs[0] if D == 1 else mf.concatenate(outs, axis=-1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, mf.stack(h_n, axis=0), (mf.stack(c_n, axis=0) if c0 is not None else None)

    def _run_direction(self, x: Tensor, sizes: list[int], layer: int, d: int, h0: Tensor, c0: Tensor | None
                       ) -> tuple[list[Tensor], Tensor, Tensor | None]:
        """One layer in one direction over the whole sequence: each step's output ``(sizes[t], H_out)``
        and the last ``h`` (and ``c``) of every sequence.  Forward, a sequence that ends leaves the
        batch with its state; in reverse, one that starts joins it from ``h0`` (packed input only:
        a padded batch runs every sequence at every step)."""
        w_ih, w_hh, b_ih, b_hh = self._params(layer, d)
        w_hr = getattr(self, f"weight_hr_l{layer}" + ("_reverse" if d else "")) if self.proj_size else None
        xg = F.linear(x, w_ih, b_ih)            # all steps at once: (L, N, gates * H) or (sum, gates * H)
        starts = [0] * len(sizes)
        for t in range(1, len(sizes)):
            starts[t] = starts[t - 1] + sizes[t - 1]
        ys: list[Tensor] = [None] * len(sizes)  # type: ignore[list-item]
        h, c, ended = h0, c0, []
        if d and sizes[-1] < h0.shape[0]:  # reverse: only the longest sequences run at the last step
            h, c = h0[:sizes[-1]], (c0[:sizes[-1]] if c0 is not None else None)
        for t in (reversed(range(len(sizes))) if d else range(len(sizes))):
            b = sizes[t]
            if b < h.shape[0]:   # forward: the last b.. sequences have ended; keep their states
                ended.append((h[b:], c[b:] if c is not None else None))
                h, c = h[:b], (c[:b] if c is not None else None)
            elif b > h.shape[0]:  # reverse: sequences h.shape[0]..b start here, from h0
                h = mf.concatenate([h, h0[h.shape[0]:b]], axis=0)
                c = mf.concatenate([c, c0[c.shape[0]:b]], axis=0) if c is not None else None
            h, c = _cell_step(self.mode, xg[starts[t]:starts[t] + b] if x.ndim == 2 else xg[t], h, c, w_hh, b_hh)
            if w_hr is not None:
                h = F.linear(h, w_hr)
            ys[t] = h
        if ended:  # the batch's order: those still running first, then the ones that ended, last-ended first
            h = mf.concatenate([h] + [e[0] for e in reversed(ended)], axis=0)
            c = mf.concatenate([c] + [e[1] for e in reversed(ended)], axis=0) if c is not None else None
        return ys, h, c

    def _initial_state(self, hx: Any, layers_batch: tuple[int, int], unbatched: bool, x: Tensor
                       ) -> tuple[Tensor, Tensor | None]:
        """``(h_0, c_0)``: zeros, or the given states checked against PyTorch's shapes -- ``h_0`` holds
        ``proj_size`` features where the LSTM projects, ``c_0`` always ``hidden_size``."""
        name, lstm = type(self).__name__, self.mode == "LSTM"
        shapes = [(*layers_batch, self.proj_size or self.hidden_size), (*layers_batch, self.hidden_size)]
        if hx is None:
            xp = x.device.xp
            h0, c0 = (Tensor.constant(xp.zeros(shape, dtype=x.dtype), x.device) for shape in shapes)
            return h0, (c0 if lstm else None)
        if lstm:
            if not (isinstance(hx, (tuple, list)) and len(hx) == 2):
                raise TypeError(f"{name}: the initial state must be a pair (h_0, c_0)")
            states = list(hx)
        else:
            states = [hx]
        out = []
        sizes = ("proj_size" if self.proj_size else "hidden_size", "hidden_size")
        for i, (s, label, shape, size) in enumerate(zip(states, ("h_0", "c_0"), shapes, sizes)):
            want = (shape[0], shape[2]) if unbatched else shape
            if not isinstance(s, Tensor) or tuple(s.shape) != want:
                got = tuple(s.shape) if isinstance(s, Tensor) else type(s).__name__
                ours = (f"{name}: {label} must have shape {want} (num_layers * num_directions, batch, {size}), "
                        f"got {got}")
                raise InputMismatch(_state_shape_refusal(states, i, want, unbatched, lstm, ours))
            _check_float_input(self, s, self._params(0, 0)[0])
            out.append(mf.expand_dims(s, 1) if unbatched else s)
        return out[0], (out[1] if lstm else None)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        for k, default in (("bias", True), ("batch_first", False), ("dropout", 0.0), ("bidirectional", False)):
            if getattr(self, k) != default:
                s += f", {k}={getattr(self, k)}"
        return s


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU).

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``; ``forward(input, h_0=None)``
    returns ``(output, h_n)`` with PyTorch's shapes.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device: Any = None, dtype: Any = None, proj_size: int = 0) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(_unknown_nonlinearity(nonlinearity))
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size,
                         num_layers, bias, batch_first, dropout, bidirectional, proj_size=proj_size,
                         device=device, dtype=dtype)
        self.nonlinearity = nonlinearity


class _GatedRNN(RNNBase):
    """LSTM and GRU: PyTorch's arguments (there is no nonlinearity to choose); ``_gated_mode`` names
    the cell (``"LSTM"`` or ``"GRU"``)."""

    _gated_mode: ClassVar[str]

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device: Any = None, dtype: Any = None) -> None:
        super().__init__(self._gated_mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device, dtype)


class LSTM(_GatedRNN):
    """Long short-term memory, gates ``i, f, g, o`` stacked in ``weight_ih_l{k}`` as in PyTorch.

    ``forward(input, (h_0, c_0)=None)`` returns ``(output, (h_n, c_n))``. With ``proj_size > 0``
    each step's hidden state is projected, ``h_t = W_hr (o_t * tanh(c_t))`` with ``weight_hr_l{k}``
    of shape ``(proj_size, hidden_size)``: the output and ``h_n`` hold ``proj_size`` features,
    ``c_n`` still ``hidden_size`` (PyTorch's shapes and parameter names).
    """

    _gated_mode = "LSTM"


class GRU(_GatedRNN):
    """Gated recurrent unit, gates ``r, z, n`` as in PyTorch:
    ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (1 - z) * n + z * h``.

    ``forward(input, h_0=None)`` returns ``(output, h_n)``.
    """

    _gated_mode = "GRU"


def _cell_refusal(cell: RNNCellBase, x: Any, hx: Any) -> InputMismatch:
    """Why a cell refuses ``x`` and its state ``hx``, in PyTorch's words and order (its tests match them):
    the ranks of the input and of each state, the input's size, then each state's batch and size -- a
    state of an unbatched input counted as PyTorch counts it, with a batch of 1 put in front.  The
    engine's own words, the shapes expected and got, follow.  Built only on a refusal."""
    name, lstm = type(cell).__name__, cell._mode == "LSTM"
    want_x = f"expected input of shape (N, {cell.input_size}) or ({cell.input_size},)"
    if not isinstance(x, Tensor):
        return InputMismatch(f"{name}: {want_x}, got {type(x).__name__}")
    if x.ndim not in (1, 2):
        return InputMismatch(f"{name}: Expected input to be 1D or 2D, got {x.ndim}D instead ({want_x}, got "
                             f"{tuple(x.shape)})")
    if hx is None or (lstm and not (isinstance(hx, (tuple, list)) and len(hx) == 2)):
        states = []  # (no state, or a malformed pair, which _prepare refuses after the input)
    else:
        states = list(hx) if lstm else [hx]
    labels = [f"hx[{i}]" for i in range(len(states))] if lstm else ["hidden"]
    for s, label in zip(states, labels):
        if isinstance(s, Tensor) and s.ndim not in (1, 2):
            return InputMismatch(f"{name}: Expected {label} to be 1D or 2D, got {s.ndim}D instead (the state "
                                 f"has shape {tuple(s.shape)})")
    if x.shape[-1] != cell.input_size:
        return InputMismatch(f"{name}: input has inconsistent input_size: got {x.shape[-1]} expected "
                             f"{cell.input_size} ({want_x}, got {tuple(x.shape)})")
    want = (cell.hidden_size,) if x.ndim == 1 else (x.shape[0], cell.hidden_size)
    batch = x.shape[0] if x.ndim == 2 else 1
    for i, s in enumerate(states):
        if not isinstance(s, Tensor):
            return InputMismatch(f"{name}: the state must have shape {want}, got {type(s).__name__}")
        seen = tuple(s.shape) if x.ndim == 2 else (1, *s.shape)  # (PyTorch unsqueezes an unbatched state)
        got = f" (the state must have shape {want}, got {tuple(s.shape)})"
        if seen[0] != batch:
            return InputMismatch(f"{name}: Input batch size {batch} doesn't match hidden{i} batch size "
                                 f"{seen[0]}{got}")
        if seen[1] != cell.hidden_size:
            return InputMismatch(f"{name}: hidden{i} has inconsistent hidden_size: got {seen[1]}, expected "
                                 f"{cell.hidden_size}{got}")
        if tuple(s.shape) != want:
            return InputMismatch(f"{name}: the state must have shape {want}, got {tuple(s.shape)}")
    return InputMismatch(f"{name}: {want_x}, got {tuple(x.shape)}")  # (unreachable: a caller saw a refusal)


class RNNCellBase(Module):
    """PyTorch's base of the one-step cells: ``weight_ih`` ``(num_chunks * hidden_size, input_size)``,
    ``weight_hh`` ``(num_chunks * hidden_size, hidden_size)`` and the biases, drawn as PyTorch draws
    them.  ``RNNCell``, ``LSTMCell`` and ``GRUCell`` are its subclasses (``isinstance(m, nn.RNNCellBase)``
    finds them, as in PyTorch) and say which step ``forward`` takes."""

    _mode = ""  # the step: "RNN_TANH", "RNN_RELU", "LSTM" or "GRU" (set by the subclasses)

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        # bias is kept as given, as PyTorch's cells keep it (a truthy 1 prints as bias=1 in repr)
        self.input_size, self.hidden_size, self.bias = int(input_size), int(hidden_size), bias
        gates = int(num_chunks) * hidden_size
        self.weight_ih = _empty(gates, input_size, dtype=dtype, device=device)
        self.weight_hh = _empty(gates, hidden_size, dtype=dtype, device=device)
        self.bias_ih = _empty(gates, dtype=dtype, device=device) if bias else None
        self.bias_hh = _empty(gates, dtype=dtype, device=device) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``, as PyTorch."""
        k = _init_bound(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -k, k)

    def _prepare(self, x: Tensor, hx: Any) -> tuple[Tensor, list[Tensor], bool]:
        given = x
        if not isinstance(x, Tensor) or x.ndim not in (1, 2) or x.shape[-1] != self.input_size:
            raise _cell_refusal(self, x, hx)
        _check_float_input(self, x, self.weight_ih)
        unbatched = x.ndim == 1
        if unbatched:
            x = mf.expand_dims(x, 0)
        n_states = 2 if self._mode == "LSTM" else 1
        if hx is None:
            xp = x.device.xp
            zero = Tensor.constant(xp.zeros((x.shape[0], self.hidden_size), dtype=x.dtype), x.device)
            return x, [zero] * n_states, unbatched
        states = list(hx) if n_states == 2 else [hx]
        if len(states) != n_states:
            raise TypeError(f"{type(self).__name__}: the state must be a pair (h, c)")
        want = (self.hidden_size,) if unbatched else (x.shape[0], self.hidden_size)
        for s in states:
            if not isinstance(s, Tensor) or tuple(s.shape) != want:
                raise _cell_refusal(self, given, hx)
            _check_float_input(self, s, self.weight_ih)
        return x, [mf.expand_dims(s, 0) if unbatched else s for s in states], unbatched

    def forward(self, input: Tensor, hx: Any = None) -> Any:
        if self._mode not in _GATES:
            raise NotImplementedError(f"{type(self).__name__}: RNNCellBase has no step of its own; use RNNCell, "
                                      f"LSTMCell or GRUCell")
        x, states, unbatched = self._prepare(input, hx)
        if self._mode == "LSTM":  # the projections and the gates as one node (ops/recurrent.py)
            F._check_input_dtype("linear", states[0], self.weight_hh)  # (as the hidden projection's linear did)
            record = apply(_fused.LSTMCellStep(), x, states[0], states[1], self.weight_ih, self.weight_hh,
                           self.bias_ih, self.bias_hh)
            h, c = _lstm_outputs(record)
            return (mf.squeeze(h, 0), mf.squeeze(c, 0)) if unbatched else (h, c)
        xg = F.linear(x, self.weight_ih, self.bias_ih)
        h, c = _cell_step(self._mode, xg, states[0], states[1] if len(states) == 2 else None,
                          self.weight_hh, self.bias_hh)
        if unbatched:
            h = mf.squeeze(h, 0)
            c = mf.squeeze(c, 0) if c is not None else None
        return (h, c) if self._mode == "LSTM" else h

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}" + ("" if self.bias is True else f", bias={self.bias}")
        if getattr(self, "nonlinearity", "tanh") != "tanh":  # RNNCell's, as PyTorch prints it
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """One Elman step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ReLU)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(_unknown_nonlinearity(nonlinearity))
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"


class LSTMCell(RNNCellBase):
    """One LSTM step: ``forward(input, (h, c)=None)`` returns ``(h', c')``."""

    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)


class GRUCell(RNNCellBase):
    """One GRU step: ``forward(input, h=None)`` returns ``h'``."""

    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)
