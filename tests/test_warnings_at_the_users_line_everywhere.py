"""Every warning the engine gives points at the user's line -- the first frame outside the package --
whatever path of engine calls reached it: called directly, through a layer's ``__call__``, a subclass's
``__init__``, an optimizer or scheduler method, a DataLoader's iteration, a backward pass, a Tensor
method, a deprecated alias.  A fixed ``stacklevel`` counted one of those paths only and pointed into
the engine on the others (``nn/module.py``, ``optim/optimizer.py``, ``tensor.py``, ...);
``user_frame.stacklevel_outside_the_engine`` counts the frames instead.  The messages are PyTorch
2.13's where PyTorch has the warning (PyTorch itself points into ``torch/`` for some of them, e.g.
``nn.Linear(0, 3)``'s init note or the full backward hook's note at backward: here they point at the
user's line all the same).  Each case is a lambda of this file, so this file is the user's."""

import sys
import warnings

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.utils.data import DataLoader, IterableDataset, random_split


def _param(*shape):
    return mg.nn.Parameter(mg.ones(*shape))


def _adam_with_duplicates():
    p = _param(2)
    return mg.optim.Adam([p, p])


def _added_group_with_duplicates():
    opt = mg.optim.SGD([_param(2)], lr=0.1)
    q = _param(2)
    opt.add_param_group({"params": [q, q]})


def _scheduler(kind=mg.optim.lr_scheduler.StepLR, **kw):
    opt = mg.optim.SGD([_param(2)], lr=0.1)
    return opt, kind(opt, **kw)


def _scheduler_stepped_first(kind, **kw):
    _, sched = _scheduler(kind, **kw)
    sched.step()


def _scheduler_epoch(kind, *args, **kw):
    opt, sched = _scheduler(kind, **kw)
    opt.step()
    sched.step(*args)


def _sequential_get_lr():
    _, sched = _scheduler(step_size=1)
    sched.get_lr()


class _Twice(mg.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = mg.nn.Linear(2, 2)

    def forward(self, x):
        return {"out": self.lin(x)}


def _full_hook_on_dict_output():
    m = _Twice()
    m.register_full_backward_hook(lambda *a: None)
    m(mg.ones(1, 2))


def _full_hook_firing_on_outputs():
    m = mg.nn.Linear(2, 2)
    m.register_full_backward_hook(lambda *a: None)
    m(mg.ones(1, 2)).sum().backward()


class _TwoOps(mg.nn.Module):
    def forward(self, x):
        return (x * 2).exp() + 1


def _non_full_hook_multiple_nodes():
    m = _TwoOps()
    m.register_backward_hook(lambda *a: None)
    m(mg.ones(2, requires_grad=True))


def _non_leaf_grad_through_clipping():
    w = mg.ones(2, requires_grad=True)
    mg.nn.utils.clip_grad_norm_([w * 2], 1.0)


def _empty_generator_clipping(clip):
    m = mg.nn.Linear(2, 2)
    params = m.parameters()
    list(params)
    clip(params, 1.0)


def _float_of_a_leaf():
    sys.modules["minigrad_ckpt.tensor"]._scalar_warned.clear()  # (PyTorch's warns once)
    float(mg.ones(1, requires_grad=True))


def _setitem_list():
    x = mg.zeros(3, 3)
    x[[slice(0, 1), 0]] = 1.0


def _setitem_uint8():
    x = mg.zeros(3)
    x[mg.tensor([1, 0, 1], dtype=mg.uint8)] = 1.0


class _NoConstraints(mg.distributions.Distribution):
    def __init__(self):
        super().__init__(mg.Size([]), validate_args=True)


class _NoSupport(mg.distributions.Distribution):
    arg_constraints = {}

    def __init__(self):
        super().__init__(mg.Size([]), validate_args=True)

    def log_prob(self, value):
        self._validate_sample(value)
        return value


class _LongerThanSaid(IterableDataset):
    def __iter__(self):
        return iter(range(4))

    def __len__(self):
        return 2


def _iterate(loader, told_length=False):
    if told_length:  # (the length told is the one len(loader) read)
        len(loader)
    for _ in loader:
        pass


class _ReadsSavedVariables(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        ctx.saved_variables
        return g * 2


def _saved_variables():
    x = mg.ones(2, requires_grad=True)
    _ReadsSavedVariables.apply(x).sum().backward()


def _forward_hook_always_call_raising():
    m = mg.nn.Linear(2, 2)

    def hook(*a):
        raise ValueError("the hook's")

    m.register_forward_hook(hook, always_call=True)
    m.register_forward_pre_hook(lambda *a: (_ for _ in ()).throw(RuntimeError("the forward's")))
    with pytest.raises(RuntimeError, match="the forward's"):
        m(mg.ones(1, 2))


X = mg.ones(2, 3)
SIGNAL = mg.ones(64)
CASES = {
    # optimizers and schedulers
    "Adam with a duplicate parameter": (_adam_with_duplicates, "duplicate parameters"),
    "add_param_group with a duplicate": (_added_group_with_duplicates, "duplicate parameters"),
    "StepLR.step before optimizer.step": (lambda: _scheduler_stepped_first(mg.optim.lr_scheduler.StepLR,
                                                                           step_size=1), "Detected call of"),
    "StepLR.step(epoch)": (lambda: _scheduler_epoch(mg.optim.lr_scheduler.StepLR, 1, step_size=1),
                           "The epoch parameter in `scheduler.step()`"),
    "ReduceLROnPlateau.step(metric, epoch)": (lambda: _scheduler_epoch(mg.optim.lr_scheduler.ReduceLROnPlateau,
                                                                       1.0, 1), "The epoch parameter"),
    "scheduler.get_lr()": (_sequential_get_lr, "please use `get_last_lr()`"),
    # nn
    "nn.Linear(0, 3)": (lambda: mg.nn.Linear(0, 3), "Initializing zero-element tensors is a no-op"),
    "nn.init.kaiming_uniform_ of no elements": (lambda: mg.nn.init.kaiming_uniform_(mg.empty(0, 3)),
                                                 "Initializing zero-element tensors is a no-op"),
    "nn.init.xavier_uniform": (lambda: mg.nn.init.xavier_uniform(mg.empty(2, 3)), "is now deprecated"),
    "nn.LSTM(dropout, 1 layer)": (lambda: mg.nn.LSTM(2, 3, dropout=0.5), "non-zero dropout expects num_layers"),
    "nn.GRU(dropout, 1 layer)": (lambda: mg.nn.GRU(2, 3, dropout=0.5), "non-zero dropout expects num_layers"),
    "nn.InstanceNorm1d size mismatch": (lambda: mg.nn.InstanceNorm1d(3)(mg.ones(2, 4, 5)),
                                        "does not match num_features"),
    "nn.TransformerEncoder nested": (lambda: mg.nn.TransformerEncoder(mg.nn.TransformerEncoderLayer(4, 2), 2),
                                     "enable_nested_tensor is True"),
    "state_dict positional": (lambda: mg.nn.Linear(2, 2).state_dict(None, "p."), "Positional args"),
    "load_state_dict into meta": (lambda: mg.nn.Linear(2, 2, device="meta").load_state_dict(
        mg.nn.Linear(2, 2).state_dict()), "copying from a non-meta parameter"),
    "forward hook always_call raising": (_forward_hook_always_call_raising, "always_call=True"),
    "full backward hook, dict output": (_full_hook_on_dict_output, "module output should be a Tensor"),
    "full backward hook, no input requires grad": (_full_hook_firing_on_outputs, "Full backward hook is firing"),
    "non-full backward hook": (_non_full_hook_multiple_nodes, "non-full backward hook"),
    "clip_grad_norm_ of a non-leaf": (_non_leaf_grad_through_clipping, ".grad attribute of a Tensor that is not"),
    "clip_grad_norm_ of an empty generator": (lambda: _empty_generator_clipping(mg.nn.utils.clip_grad_norm_),
                                              "empty generator"),
    "clip_grad_norm of an empty generator": (lambda: _empty_generator_clipping(mg.nn.utils.clip_grad_norm),
                                             "empty generator"),
    "stateless.functional_call": (lambda: mg.nn.utils.stateless.functional_call(mg.nn.Linear(2, 2), {}, (X[:, :2],)),
                                  "functional_call` is deprecated"),
    # tensors and functions
    "mg.stft without window": (lambda: mg.stft(SIGNAL, 16, return_complex=True), "A window was not provided"),
    "Tensor.stft without window": (lambda: SIGNAL.stft(16, return_complex=True), "A window was not provided"),
    "Tensor.stft return_complex=False": (lambda: SIGNAL.stft(16, window=mg.ones(16), return_complex=False),
                                         "return_complex=False is deprecated"),
    "mg.istft length": (lambda: mg.istft(mg.stft(SIGNAL, 16, window=mg.hann_window(16), return_complex=True),
                                         16, window=mg.hann_window(16), length=200), "shorter than the length"),
    "mg.chain_matmul": (lambda: mg.chain_matmul(mg.eye(2), mg.eye(2)), "chain_matmul is deprecated"),
    "x.T of 3-D": (lambda: mg.ones(2, 2, 2).T, "The use of `x.T`"),
    "x.mT of 0-D": (lambda: mg.ones(()).mT, "Tensor.mT is deprecated on 0-D"),
    "x.H of 0-D": (lambda: mg.ones(()).H, "Tensor.H is deprecated on 0-D"),
    "x.adjoint() of 0-D": (lambda: mg.ones(()).adjoint(), "Tensor.adjoint() is deprecated on 0-D"),
    "x.mH of 0-D": (lambda: mg.ones(()).mH, "Tensor.mH is deprecated on 0-D"),
    "Tensor.istft length": (lambda: mg.stft(SIGNAL, 16, window=mg.hann_window(16), return_complex=True).istft(
        16, window=mg.hann_window(16), length=200), "shorter than the length"),
    "x.T of 3-D under checkpoint": (lambda: mg.utils.checkpoint.checkpoint(lambda x: x.T.sum(), mg.ones(
        2, 2, 2, requires_grad=True), use_reentrant=False).backward(), "The use of `x.T`"),
    "x[list] read under vmap": (lambda: mg.func.vmap(lambda x: x[[slice(0, 1), 0]])(mg.zeros(2, 3, 3)),
                                "non-tuple sequence"),
    "x.grad of a non-leaf": (lambda: (mg.ones(2, requires_grad=True) * 2).grad, ".grad attribute"),
    "float() of a tensor requiring grad": (_float_of_a_leaf, "Converting a tensor with requires_grad=True"),
    "x[list] read": (lambda: mg.zeros(3, 3)[[slice(0, 1), 0]], "non-tuple sequence"),
    "x[list] = v": (_setitem_list, "non-tuple sequence"),
    "x[uint8] read": (lambda: mg.zeros(3)[mg.tensor([1, 0, 1], dtype=mg.uint8)], "dtype uint8"),
    "x[uint8] = v": (_setitem_uint8, "dtype uint8"),
    "mg.tensor(tensor)": (lambda: mg.tensor(X), "To copy construct from a tensor"),
    "mg.arange out= resized": (lambda: mg.arange(5, out=mg.zeros(3)), "The number of elements in the out tensor"),
    "mg.add out= resized": (lambda: mg.add(X, X, out=mg.zeros(1)), "An output with one or more elements"),
    "mg.sum out= resized": (lambda: mg.sum(X, 0, out=mg.zeros(1)), "An output with one or more elements"),
    "set_float32_matmul_precision": (lambda: mg.set_float32_matmul_precision("low"), "is not one of"),
    # amp
    "GradScaler cuda without cuda": (lambda: mg.amp.GradScaler("cuda"), "not available"),
    "mg.cuda.amp.GradScaler": (lambda: mg.cuda.amp.GradScaler(), "is deprecated"),
    "autocast cuda without cuda": (lambda: mg.autocast("cuda"), "CUDA is not available"),
    "autocast cpu float32": (lambda: mg.autocast("cpu", dtype=mg.float32), "target dtype is not supported"),
    "mg.cpu.amp.autocast": (lambda: mg.cpu.amp.autocast(), "is deprecated"),
    "is_autocast_cpu_enabled": (lambda: mg.is_autocast_cpu_enabled(), "is deprecated"),
    # autograd and distributions
    "Variable(volatile=True)": (lambda: mg.autograd.Variable(X, volatile=True), "volatile was removed"),
    "ctx.saved_variables": (_saved_variables, "'saved_variables' is deprecated"),
    "detect_anomaly": (lambda: mg.autograd.detect_anomaly(), "Anomaly Detection has been enabled"),
    "Distribution without arg_constraints": (_NoConstraints, "does not define `arg_constraints`"),
    "Distribution without support": (lambda: _NoSupport().log_prob(mg.ones(())), "does not define `support`"),
    # data
    "random_split with an empty split": (lambda: random_split(range(3), [0.5, 0.5, 0.0]), "Length of split at index 2"),
    "DataLoader pin_memory": (lambda: _iterate(DataLoader(range(2), pin_memory=True)), "'pin_memory' argument"),
    "DataLoader IterableDataset longer": (lambda: _iterate(DataLoader(_LongerThanSaid(), batch_size=1), True),
                                          "Length of IterableDataset"),
    # profiler and testing
    "profiler.schedule without warmup": (lambda: mg.profiler.schedule(wait=0, warmup=0, active=1), "warmup"),
    "profiler use_cuda": (lambda: mg.profiler.profile(use_cuda=False), "`use_cuda` is deprecated"),
    "profiler with_flops": (lambda: mg.profiler.profile(with_flops=True), "ignores with_flops"),
    "autograd.profiler use_cuda": (lambda: mg.autograd.profiler.profile(use_cuda=True), "`use_cuda` will be"),
    "gradcheck float32": (lambda: mg.autograd.gradcheck(lambda x: x * 2, (mg.ones(2, requires_grad=True),),
                                                             raise_exception=False),
                          "is not a double precision"),
    "testing.make_tensor low == high": (lambda: mg.testing.make_tensor((2,), dtype=mg.float32, device="cpu",
                                                                       low=1.0, high=1.0), "low==high"),
    "testing.assert_allclose": (lambda: mg.testing.assert_allclose(X, X), "assert_allclose()` is deprecated"),
    "distributed.reduce_op": (lambda: mg.distributed.reduce_op.SUM, "reduce_op` is deprecated"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_warning_points_at_the_users_line(name):
    call, message = CASES[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert [w for w in caught if message in str(w.message)], [str(w.message) for w in caught]
    assert all(w.filename == __file__ for w in caught), [f"{w.filename}:{w.lineno}" for w in caught]
