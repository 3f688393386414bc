"""Programs of ``optim`` and ``optim.lr_scheduler`` written once for both engines: each case
takes the library (``torch`` when ``make_torch_optim_programs.py`` records the fixture,
``minigrad_ckpt`` when ``tests/test_optim_programs_vs_torch.py`` replays it) and returns a value
made of numbers (what the program ends with), or raises -- many are refusals.
"""

from __future__ import annotations

import numpy as np


def _param(lib):
    return lib.nn.Parameter(lib.ones(2))


def _adam_step_with_lr(lib, lr, **options):
    """An Adam built with a float lr, its group's lr replaced by ``lr``, then one step."""
    p = _param(lib)
    opt = lib.optim.Adam([p], **options)
    opt.param_groups[0]["lr"] = lr
    p.grad = lib.ones(2)
    opt.step()
    return p.tolist()


def _multiplicative_with_added_group(lib):
    """A MultiplicativeLR stepped after a group was added to its optimizer: one function per
    group was taken at construction, none for the new one."""
    p, q = _param(lib), _param(lib)
    opt = lib.optim.SGD([p], lr=0.1)
    sched = lib.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
    opt.step()
    sched.step()
    opt.add_param_group({"params": [q], "lr": 0.2})
    opt.step()
    sched.step()
    return [g["lr"] for g in opt.param_groups]


def lbfgs_with_tensor_lr(lib, dtype="float64", device="cpu", **options):
    """Three L-BFGS steps on a smooth function of two parameters, lr a tensor, all of ``dtype`` on
    ``device``; the parameters after them."""
    dtype = getattr(lib, dtype)
    x = lib.nn.Parameter(lib.tensor([1.5, -0.5], dtype=dtype, device=device))
    opt = lib.optim.LBFGS([x], lr=lib.tensor(0.5, dtype=dtype, device=device), max_iter=5, **options)

    def closure():
        opt.zero_grad()
        loss = ((x - 1.0) ** 2).sum() + (x**4).sum()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    return x.detach().cpu().numpy()


def _fused_step(lib, name, dtypes):
    """One step of a fused optimizer over parameters of ``dtypes`` (names of the library's dtypes)."""
    ps = [lib.nn.Parameter(lib.ones(2, dtype=getattr(lib, d))) for d in dtypes]
    opt = getattr(lib.optim, name)(ps, fused=True)
    for p in ps:
        p.grad = lib.ones(2, dtype=p.dtype)
    opt.step()
    return [abs(x) for p in ps for x in p.tolist()]


def _schedule(lib, build, steps=9, metric=None):
    """The lrs of a scheduler ``build(lr_scheduler, optimizer)`` over ``steps`` steps (ReduceLROnPlateau
    stepped with ``metric``)."""
    opt = lib.optim.SGD([_param(lib)], lr=0.1, momentum=0.9)
    sched = build(lib.optim.lr_scheduler, opt)
    lrs = []
    for _ in range(steps):
        opt.step()
        sched.step() if metric is None else sched.step(metric)
        lrs.append(opt.param_groups[0]["lr"])
    return lrs


def _averaged_counts(lib, multi_avg_fn, updates=40):
    """A BatchNorm's integer count, averaged with its other tensors (``use_buffers``) by ``multi_avg_fn``
    of ``swa_utils``, after each of ``updates`` updates; and the dtypes of the lists the first update's calls
    were handed."""
    model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
    calls = []
    fn = getattr(lib.optim.swa_utils, multi_avg_fn[0])(*multi_avg_fn[1:])

    def recorded(averaged, current, n):
        calls.append(sorted({str(t.dtype).replace("torch.", "") for t in averaged}))
        fn(averaged, current, n)

    averaged = lib.optim.swa_utils.AveragedModel(model, multi_avg_fn=recorded, use_buffers=True)
    counts = []
    for i in range(updates):
        model(lib.ones(4, 2) * i)
        averaged.update_parameters(model)
        counts.append(averaged.module[1].num_batches_tracked.item())
    return {"counts": counts, "dtypes_per_call": sorted(calls[:2])}  # (the order of the calls is PyTorch's own)


def _printed_with_defaults(lib, name):
    """How an optimizer built with its defaults prints: each group's hyper-parameters as the
    constructor's defaults are (PyTorch's zero defaults are the int 0)."""
    return repr(getattr(lib.optim, name)([_param(lib)], lr=0.5))


_OPTIMIZERS = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD",
               "Rprop", "LBFGS"]

CASES = {
    # Adam's tensor hyper-parameters: its foreach kernels take them only when capturable
    "adam_tensor_lr_foreach": lambda lib: lib.optim.Adam([_param(lib)], lr=lib.tensor(0.1), foreach=True) and 0,
    "adamw_tensor_lr_foreach": lambda lib: lib.optim.AdamW([_param(lib)], lr=lib.tensor(0.1), foreach=True) and 0,
    "adam_tensor_lr_foreach_capturable": lambda lib: lib.optim.Adam(
        [_param(lib)], lr=lib.tensor(0.1), foreach=True, capturable=True) and 0,
    "adam_tensor_lr_into_foreach_group": lambda lib: _adam_step_with_lr(lib, lib.tensor(0.1), foreach=True),
    "adam_tensor_lr_into_plain_group": lambda lib: _adam_step_with_lr(lib, lib.tensor(0.5)),
    "adam_tensor_betas_foreach": lambda lib: lib.optim.Adam(
        [_param(lib)], betas=(lib.tensor(0.9), lib.tensor(0.99)), foreach=True) and 0,
    "adam_tensor_betas": lambda lib: lib.optim.Adam([_param(lib)], betas=(lib.tensor(0.9), lib.tensor(0.99))) and 0,
    "adam_betas_float_and_tensor": lambda lib: lib.optim.Adam([_param(lib)], betas=(0.9, lib.tensor(0.99))) and 0,
    "adam_int_beta": lambda lib: lib.optim.Adam([_param(lib)], betas=(0, 0.99)) and 0,
    "adamw_int_beta": lambda lib: lib.optim.AdamW([_param(lib)], betas=(0.9, 0)) and 0,
    "adam_int_beta_out_of_range": lambda lib: lib.optim.Adam([_param(lib)], betas=(1, 0.9)) and 0,
    # a scheduler whose formula needs one entry per group, stepped after add_param_group
    "multiplicative_lr_added_group": _multiplicative_with_added_group,
    # PyTorch's LBFGS takes a tensor lr (its step reads it once, as a 0-d tensor)
    "lbfgs_tensor_lr": lambda lib: lbfgs_with_tensor_lr(lib).tolist(),
    "lbfgs_tensor_lr_strong_wolfe": lambda lib: lbfgs_with_tensor_lr(lib, line_search_fn="strong_wolfe").tolist(),
    # a scheduler keeps its arguments as given: a float epoch count is not rounded, a string is no number
    "steplr_float_step_size": lambda lib: _schedule(lib, lambda L, o: L.StepLR(o, 2.5)),
    "cosine_float_t_max": lambda lib: _schedule(lib, lambda L, o: L.CosineAnnealingLR(o, 5.5)),
    "linear_float_total_iters": lambda lib: _schedule(lib, lambda L, o: L.LinearLR(o, 0.5, 1.0, 4.5)),
    "constant_float_total_iters": lambda lib: _schedule(lib, lambda L, o: L.ConstantLR(o, 0.5, 2.5)),
    "polynomial_float_total_iters": lambda lib: _schedule(lib, lambda L, o: L.PolynomialLR(o, 4.5)),
    "plateau_float_cooldown": lambda lib: _schedule(
        lib, lambda L, o: L.ReduceLROnPlateau(o, patience=0, cooldown=1.5), metric=1.0),
    "multistep_numpy_milestones": lambda lib: _schedule(lib, lambda L, o: L.MultiStepLR(o, list(np.arange(2, 8, 3)))),
    "multistep_float_milestone": lambda lib: _schedule(lib, lambda L, o: L.MultiStepLR(o, [2.5, 4])),
    "exponential_string_gamma": lambda lib: _schedule(lib, lambda L, o: L.ExponentialLR(o, "0.5")),
    "steplr_string_gamma": lambda lib: _schedule(lib, lambda L, o: L.StepLR(o, 2, "0.5")),
    "cosine_string_eta_min": lambda lib: _schedule(lib, lambda L, o: L.CosineAnnealingLR(o, 5, "0.01")),
    "warm_restarts_string_eta_min": lambda lib: _schedule(
        lib, lambda L, o: L.CosineAnnealingWarmRestarts(o, 3, 1, "0")),
    "cyclic_string_base_lr": lambda lib: _schedule(lib, lambda L, o: L.CyclicLR(o, "0.01", 0.1, 2)),
    "one_cycle_string_max_lr": lambda lib: _schedule(lib, lambda L, o: L.OneCycleLR(o, "1.0", total_steps=10)),
    "plateau_string_threshold": lambda lib: _schedule(
        lib, lambda L, o: L.ReduceLROnPlateau(o, threshold="0.1"), metric=1.0),
    # swa_utils' list forms over a BatchNorm's integer count: per dtype, PyTorch's formulas and refusals
    "ema_multi_integer_count": lambda lib: _averaged_counts(lib, ("get_ema_multi_avg_fn", 0.9)),
    "swa_multi_integer_count": lambda lib: _averaged_counts(lib, ("get_swa_multi_avg_fn",)),
    # PyTorch's fused kernels step floating-point parameters only; fused cannot be differentiable
    **{f"fused_{name.lower()}_{'_'.join(dtypes)}":
       (lambda lib, name=name, dtypes=dtypes: _fused_step(lib, name, dtypes))
       for name in ("SGD", "Adam", "AdamW", "Adagrad")
       for dtypes in (("float32",), ("complex64",), ("float32", "complex64"), ("float64", "complex128"))},
    **{f"fused_{name.lower()}_differentiable": (lambda lib, name=name: getattr(lib.optim, name)(
        [_param(lib)], fused=True, differentiable=True) and 0) for name in ("SGD", "Adam", "Adagrad")},
    **{f"printed_{name.lower()}": (lambda lib, name=name: _printed_with_defaults(lib, name)) for name in _OPTIMIZERS},
}

# cases whose error words are the engine's own (the type is PyTorch's): Python's words for arithmetic on a
# string (PyTorch meets it at a later step), a zip's words, the first sentence only of addcdiv's, and the
# fused kernels' list of PyTorch's devices
WORDS_OF_THEIR_OWN = {"swa_multi_integer_count", "exponential_string_gamma", "steplr_string_gamma",
                      "cosine_string_eta_min",
                      "cyclic_string_base_lr", "one_cycle_string_max_lr", "plateau_string_threshold",
                      "multiplicative_lr_added_group", "fused_sgd_complex64", "fused_adam_complex64",
                      "fused_adamw_complex64", "fused_adagrad_complex64", "fused_adam_float32_complex64",
                      "fused_adamw_float32_complex64", "fused_adam_float64_complex128",
                      "fused_adamw_float64_complex128"}
