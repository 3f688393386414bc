"""Regenerate ``tests/data/torch_nn_reference.npz``: PyTorch's answers for the keyword
variants of pooling and convolution and for the functions, layers, ``linalg`` and
``special`` names added beside them, in float64.

    python tests/data/make_torch_nn_reference.py        # needs torch; the tests do not

Each case is one call ``<namespace>.<fn>(*args, **kwargs)`` (namespace ``F`` is
``torch.nn.functional``, ``nn`` a layer built with ``init`` and called on the
arguments, ``linalg`` and ``special`` PyTorch's modules, ``torch`` the top level) on
inputs from a fixed seed.  Stored, in one compressed ``.npz``:

``<case>|<name>``       the inputs
``<case>|out<i>``       the outputs (integer outputs such as pooling indices too)
``<case>|cot<i>``       a random cotangent per floating output; the gradients are
                        those of ``sum_i (out_i * cot_i).sum()``
``<case>|grad_<name>``  the gradients of the floating inputs
``__meta__``            JSON: ``{case: {"ns", "fn", "args", "kwargs", "init", "grad", "mg_ns"}}``
                        (``mg_ns``: where minigrad_ckpt has the function, when not at
                        PyTorch's address: ``torch.cholesky_solve`` is ``mg.linalg``'s)

``tests/test_nn_vs_torch.py`` replays every case (no torch import).  Array
arguments are written ``"@name"``; everything else is a literal.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

OUT = Path(__file__).with_name("torch_nn_reference.npz")
torch.set_default_dtype(torch.float64)
rng = np.random.default_rng(20261202)
ARRAYS: dict[str, np.ndarray] = {}
META: dict[str, dict] = {}


def randn(*shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


def resolve(v, env: dict):
    if isinstance(v, str) and v.startswith("@"):
        return env[v[1:]]
    if isinstance(v, list):
        return [resolve(a, env) for a in v]
    return v


def flat(out) -> list:
    if isinstance(out, (tuple, list)):
        return [o for part in out for o in flat(part)]
    return [out]


NAMESPACES = {"F": F, "linalg": torch.linalg, "special": torch.special, "torch": torch}


def case(name: str, ns: str, fn: str, inputs: dict, args: list, kwargs: dict | None = None,
         init: dict | None = None, grad: tuple[str, ...] | None = None, mg_ns: str | None = None) -> None:
    """Run one call in float64, store inputs, outputs, cotangents and gradients."""
    assert name not in META, name
    kwargs = kwargs or {}
    if grad is None:
        grad = tuple(k for k, v in inputs.items() if np.asarray(v).dtype.kind == "f")
    env = {}
    for k, v in inputs.items():
        ARRAYS[f"{name}|{k}"] = np.asarray(v)
        env[k] = torch.tensor(np.asarray(v), requires_grad=k in grad)
    if ns == "nn":
        f = getattr(nn, fn)(**(init or {}))
    else:
        f = getattr(NAMESPACES[ns], fn)
    out = flat(f(*resolve(args, env), **{k: resolve(v, env) for k, v in kwargs.items()}))
    total = 0.0
    for i, o in enumerate(out):
        ARRAYS[f"{name}|out{i}"] = o.detach().numpy().copy()
        if o.dtype.is_floating_point and o.requires_grad:
            cot = randn(*o.shape)
            ARRAYS[f"{name}|cot{i}"] = cot
            total = total + (o * torch.tensor(cot)).sum()
    adjoint_from_forward = False
    if grad:
        total.backward()
        # an input PyTorch's graph does not reach (a target only compared) has no gradient to check
        grad = tuple(k for k in grad if env[k].grad is not None)
        for k in grad:
            g = env[k].grad.numpy().copy()
            if fn == "interpolate":
                exact = forward_adjoint(f, args, kwargs, env, k, name)
                if not np.allclose(g, exact, rtol=1e-12, atol=1e-12):
                    # PyTorch's backward is not the adjoint of its own forward here (upsample_nearest3d
                    # with unequal scale factors): store the adjoint of the forward instead
                    g, adjoint_from_forward = exact, True
            ARRAYS[f"{name}|grad_{k}"] = g
    META[name] = {"ns": ns, "fn": fn, "args": args, "kwargs": kwargs, "init": init or {}, "grad": list(grad),
                  "adjoint_from_forward": adjoint_from_forward, "mg_ns": mg_ns or ns}


def forward_adjoint(f, args, kwargs, env, k, name) -> np.ndarray:
    """``sum(out * cot)``'s gradient in input ``k`` read off the forward alone: one call per
    one-hot input (the forward is linear in it)."""
    cots = [torch.tensor(ARRAYS[key]) for key in sorted(a for a in ARRAYS if a.startswith(f"{name}|cot"))]
    x = env[k].detach()
    g = np.zeros(x.numel())
    with torch.no_grad():
        for i in range(x.numel()):
            e = torch.zeros(x.numel())
            e[i] = 1
            env2 = {**env, k: e.reshape(x.shape)}
            outs = flat(f(*resolve(args, env2), **{a: resolve(v, env2) for a, v in kwargs.items()}))
            g[i] = sum(float((o * c).sum()) for o, c in zip(outs, cots))
    return g.reshape(x.shape)


def pooling_cases() -> None:
    x2, x1 = randn(2, 3, 7, 8), randn(2, 3, 11)
    for tag, kw in [("ceil", {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
                    ("ceil_dil", {"kernel_size": (2, 3), "stride": 2, "dilation": (2, 1), "ceil_mode": True}),
                    ("ceil_exact", {"kernel_size": 2, "ceil_mode": True}),
                    ("plain", {"kernel_size": 3, "stride": (2, 1), "padding": (1, 0)})]:
        case(f"max_pool2d_{tag}", "F", "max_pool2d", {"x": x2}, ["@x"], {**kw, "return_indices": True})
        case(f"MaxPool2d_{tag}", "nn", "MaxPool2d", {"x": x2}, ["@x"], init={**kw, "return_indices": True})
    for tag, kw in [("ceil", {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
                    ("ceil_dil", {"kernel_size": 2, "stride": 3, "dilation": 3, "ceil_mode": True})]:
        case(f"max_pool1d_{tag}", "F", "max_pool1d", {"x": x1}, ["@x"], {**kw, "return_indices": True})
        case(f"MaxPool1d_{tag}", "nn", "MaxPool1d", {"x": x1[0]}, ["@x"], init={**kw, "return_indices": True})
    for ceil in (False, True):
        for include in (False, True):
            for override in (None, 5):
                tag = f"{'ceil' if ceil else 'floor'}_{'incl' if include else 'excl'}_{override}"
                kw = {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": ceil,
                      "count_include_pad": include, "divisor_override": override}
                case(f"avg_pool2d_{tag}", "F", "avg_pool2d", {"x": x2}, ["@x"], kw)
            kw1 = {"kernel_size": 4, "stride": 3, "padding": 2, "ceil_mode": ceil, "count_include_pad": include}
            case(f"avg_pool1d_{tag[:-5]}", "F", "avg_pool1d", {"x": x1}, ["@x"], kw1)
    case("avg_pool2d_positional_ceil", "F", "avg_pool2d", {"x": x2}, ["@x", 3, 2, 1, True, False])
    case("AvgPool2d_ceil_override", "nn", "AvgPool2d", {"x": x2}, ["@x"],
         init={"kernel_size": (3, 2), "stride": (2, 3), "ceil_mode": True, "divisor_override": 4})
    case("AvgPool1d_ceil", "nn", "AvgPool1d", {"x": x1}, ["@x"],
         init={"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False})
    xa = randn(2, 3, 7, 9)
    case("adaptive_max_pool2d_indices", "F", "adaptive_max_pool2d", {"x": xa}, ["@x", [3, 4]],
         {"return_indices": True})
    case("AdaptiveMaxPool2d_indices", "nn", "AdaptiveMaxPool2d", {"x": xa[0]}, ["@x"],
         init={"output_size": (4, 2), "return_indices": True})
    ties = np.repeat(np.repeat(randn(1, 2, 2, 2), 2, axis=2), 2, axis=3)  # every window one value, four times
    case("adaptive_max_pool2d_ties", "F", "adaptive_max_pool2d", {"x": ties}, ["@x", 3])


def conv_same_cases() -> None:
    x2, x1 = randn(2, 3, 6, 7), randn(2, 3, 9)
    for tag, k, d in [("even", (2, 4), 1), ("even_dil2", (2, 4), 2), ("mixed", (3, 4), (1, 2)),
                      ("odd", (3, 3), 1)]:
        case(f"conv2d_same_{tag}", "F", "conv2d", {"x": x2, "w": randn(4, 3, *k), "b": randn(4)},
             ["@x", "@w", "@b"], {"padding": "same", "dilation": d})
    case("conv2d_valid", "F", "conv2d", {"x": x2, "w": randn(4, 3, 2, 4)}, ["@x", "@w"], {"padding": "valid"})
    case("conv2d_same_groups", "F", "conv2d", {"x": randn(1, 4, 5, 5), "w": randn(6, 2, 2, 2)}, ["@x", "@w"],
         {"padding": "same", "groups": 2})
    for k in (2, 4, 5):
        case(f"conv1d_same_{k}", "F", "conv1d", {"x": x1, "w": randn(2, 3, k)}, ["@x", "@w"], {"padding": "same"})


def activation_cases() -> None:
    x = randn(3, 8) * 3
    x[0, :6] = [-3.0, 3.0, 0.5, -0.5, 0.0, 1.0]  # the corners of hardswish/hardsigmoid, shrink bounds, threshold
    for fn, kw in [("softmin", {"dim": 1}), ("selu", {}), ("celu", {"alpha": 0.7}), ("glu", {"dim": -1}),
                   ("glu", {"dim": 0}), ("hardswish", {}), ("hardsigmoid", {}), ("softsign", {}),
                   ("tanhshrink", {}), ("softshrink", {"lambd": 0.5}), ("hardshrink", {"lambd": 0.5}),
                   ("rrelu", {"lower": 0.1, "upper": 0.3, "training": False})]:
        xs = x if fn != "glu" or kw["dim"] != 0 else randn(4, 3)
        case(f"{fn}_{'_'.join(f'{k}{v}' for k, v in kw.items())}", "F", fn, {"x": xs}, ["@x"], kw)
    case("threshold", "F", "threshold", {"x": x}, ["@x", 1.0, 20.0])
    for cls, init in [("Softmin", {"dim": 0}), ("SELU", {}), ("CELU", {"alpha": 2.0}), ("GLU", {}),
                      ("Hardswish", {}), ("Hardsigmoid", {}), ("Softsign", {}), ("Tanhshrink", {}),
                      ("Threshold", {"threshold": 0.5, "value": -1.0}), ("Softshrink", {"lambd": 1.0}),
                      ("Hardshrink", {"lambd": 1.0})]:
        case(f"layer_{cls}", "nn", cls, {"x": x}, ["@x"], init=init)
    case("alpha_dropout_eval", "F", "alpha_dropout", {"x": x}, ["@x"], {"p": 0.3, "training": False})


def distance_cases() -> None:
    a, b = randn(4, 5), randn(4, 5)
    b[1] = a[1]  # a zero distance: the gradient there
    for p in (1.0, 2.0, 3.0, float("inf")):
        case(f"cdist_p{p}", "torch", "cdist", {"a": randn(2, 3, 5), "b": randn(2, 4, 5)}, ["@a", "@b"], {"p": p})
        case(f"pdist_p{p}", "F", "pdist", {"x": randn(5, 3)}, ["@x"], {"p": p})
        case(f"pairwise_distance_p{p}", "F", "pairwise_distance", {"a": a, "b": b}, ["@a", "@b"], {"p": p})
    case("cdist_broadcast", "torch", "cdist", {"a": randn(3, 5), "b": randn(2, 4, 5)}, ["@a", "@b"])
    case("pairwise_distance_keepdim", "F", "pairwise_distance", {"a": a, "b": b[0]}, ["@a", "@b"],
         {"keepdim": True, "eps": 1e-3})
    case("cosine_similarity", "F", "cosine_similarity", {"a": a, "b": b}, ["@a", "@b"])
    case("cosine_similarity_dim0_bcast", "F", "cosine_similarity", {"a": randn(3, 1, 4), "b": randn(3, 2, 1)},
         ["@a", "@b"], {"dim": 0})
    case("normalize", "F", "normalize", {"x": randn(3, 4, 2)}, ["@x"])
    case("normalize_p1_dim_last", "F", "normalize", {"x": randn(3, 4)}, ["@x"], {"p": 1.0, "dim": -1})
    case("layer_CosineSimilarity", "nn", "CosineSimilarity", {"a": a, "b": b}, ["@a", "@b"], init={"dim": 1})
    case("layer_PairwiseDistance", "nn", "PairwiseDistance", {"a": a, "b": b}, ["@a", "@b"], init={"p": 1.0})
    case("pixel_shuffle", "F", "pixel_shuffle", {"x": randn(2, 8, 3, 2)}, ["@x", 2])
    case("pixel_unshuffle", "F", "pixel_unshuffle", {"x": randn(2, 3, 4, 6)}, ["@x", 2])
    case("layer_PixelShuffle", "nn", "PixelShuffle", {"x": randn(9, 2, 2)}, ["@x"], init={"upscale_factor": 3})


def margin_loss_cases() -> None:
    x, z, w = randn(4, 5), randn(4, 5), randn(4, 5)
    sign = np.sign(randn(4, 5))
    t = np.array([1, 0, 4, 2])
    labels = np.array([[3, 0, -1, 1, 1], [1, 2, 3, -1, 0], [-1, 0, 0, 0, 0], [0, 1, 2, 3, 4]])
    for red in ("mean", "sum", "none"):
        r = {"reduction": red}
        case(f"margin_ranking_{red}", "F", "margin_ranking_loss", {"a": x, "b": z, "y": sign}, ["@a", "@b", "@y"],
             {**r, "margin": 0.2})
        case(f"hinge_embedding_{red}", "F", "hinge_embedding_loss", {"x": x, "y": sign}, ["@x", "@y"],
             {**r, "margin": 0.5})
        case(f"soft_margin_{red}", "F", "soft_margin_loss", {"x": x, "y": sign}, ["@x", "@y"], r, grad=("x",))
        case(f"multilabel_soft_margin_{red}", "F", "multilabel_soft_margin_loss",
             {"x": x, "y": (sign > 0) * 1.0, "w": np.abs(randn(5))}, ["@x", "@y"], {**r, "weight": "@w"},
             grad=("x",))
        case(f"multi_margin_{red}", "F", "multi_margin_loss", {"x": x, "t": t}, ["@x", "@t"], r)
        case(f"multilabel_margin_{red}", "F", "multilabel_margin_loss", {"x": x, "t": labels}, ["@x", "@t"], r)
        case(f"triplet_margin_{red}", "F", "triplet_margin_loss", {"a": x, "p": z, "n": w}, ["@a", "@p", "@n"], r)
        case(f"poisson_nll_{red}", "F", "poisson_nll_loss", {"x": x, "y": np.abs(sign) * 3}, ["@x", "@y"],
             {**r, "full": True})
        case(f"gaussian_nll_{red}", "F", "gaussian_nll_loss", {"x": x, "y": z, "v": np.abs(w)},
             ["@x", "@y", "@v"], r)
    case("multi_margin_p2_weight", "F", "multi_margin_loss", {"x": x, "t": t, "w": np.abs(randn(5))},
         ["@x", "@t"], {"p": 2, "margin": 0.7, "weight": "@w"}, grad=("x",))
    case("multi_margin_1d", "F", "multi_margin_loss", {"x": x[0], "t": np.array(2)}, ["@x", "@t"])
    case("multilabel_margin_1d", "F", "multilabel_margin_loss", {"x": x[0], "t": labels[1]}, ["@x", "@t"])
    case("triplet_margin_swap_p1", "F", "triplet_margin_loss", {"a": x, "p": z, "n": w}, ["@a", "@p", "@n"],
         {"swap": True, "p": 1.0, "margin": 2.0})
    case("triplet_with_distance", "F", "triplet_margin_with_distance_loss", {"a": x, "p": z, "n": w},
         ["@a", "@p", "@n"], {"swap": True})
    case("poisson_nll_linear", "F", "poisson_nll_loss", {"x": np.abs(x), "y": np.abs(sign) * 2}, ["@x", "@y"],
         {"log_input": False})
    case("gaussian_nll_var_one_less", "F", "gaussian_nll_loss", {"x": x, "y": z, "v": np.abs(w[:, 0])},
         ["@x", "@y", "@v"], {"full": True})
    case("gaussian_nll_var_last1_clamped", "F", "gaussian_nll_loss",
         {"x": x, "y": z, "v": np.array([[1e-9], [0.5], [2.0], [0.0]])}, ["@x", "@y", "@v"], {"eps": 1e-3})
    case("layer_TripletMarginLoss", "nn", "TripletMarginLoss", {"a": x, "p": z, "n": w}, ["@a", "@p", "@n"],
         init={"margin": 0.5, "p": 3.0})
    case("layer_MultiMarginLoss", "nn", "MultiMarginLoss", {"x": x, "t": t}, ["@x", "@t"], init={"margin": 2.0})
    case("layer_GaussianNLLLoss", "nn", "GaussianNLLLoss", {"x": x, "y": z, "v": np.abs(w)}, ["@x", "@y", "@v"],
         init={"full": True})
    case("layer_PoissonNLLLoss", "nn", "PoissonNLLLoss", {"x": x, "y": np.abs(sign)}, ["@x", "@y"])


def interpolate_cases() -> None:
    inputs = {1: randn(2, 3, 5), 2: randn(2, 3, 5, 7), 3: randn(1, 2, 5, 3, 4)}
    for mode, nd in [("nearest", 1), ("nearest", 2), ("nearest", 3), ("nearest-exact", 1), ("nearest-exact", 2),
                     ("linear", 1), ("bilinear", 2), ("bicubic", 2), ("trilinear", 3), ("area", 1), ("area", 2),
                     ("area", 3)]:
        sizes = [("up", {"size": [9, 11, 6][:nd]}), ("down", {"size": [3, 2, 3][:nd]}),
                 ("sf", {"scale_factor": 1.5}), ("sfs", {"scale_factor": [0.6, 2.3, 1.0][:nd]}),
                 ("recompute", {"scale_factor": 1.7, "recompute_scale_factor": True})]
        corners = [None] if mode in ("nearest", "nearest-exact", "area") else [False, True]
        for tag, kw in sizes:
            for ac in corners:
                name = f"interpolate_{mode}_{nd}d_{tag}" + ("" if ac is None else f"_ac{int(ac)}")
                case(name, "F", "interpolate", {"x": inputs[nd]}, ["@x"], {**kw, "mode": mode, "align_corners": ac})
    case("layer_Upsample_bilinear", "nn", "Upsample", {"x": inputs[2]}, ["@x"],
         init={"scale_factor": 2, "mode": "bilinear"})
    case("layer_UpsamplingBilinear2d", "nn", "UpsamplingBilinear2d", {"x": inputs[2]}, ["@x"], init={"size": (4, 9)})
    case("layer_UpsamplingNearest2d", "nn", "UpsamplingNearest2d", {"x": inputs[2]}, ["@x"], init={"scale_factor": 3})


def linalg_cases() -> None:
    a, b = randn(2, 4, 4), randn(2, 4, 3)
    spd = a @ a.transpose(0, 2, 1) + 4 * np.eye(4)
    chol = np.linalg.cholesky(spd)
    for ord_ in (2, 1, 3.5, float("inf"), -float("inf"), 0):
        case(f"vector_norm_{ord_}", "linalg", "vector_norm", {"x": a}, ["@x", ord_], {"dim": [1, 2]})
    case("vector_norm_all_keepdim", "linalg", "vector_norm", {"x": a}, ["@x"], {"keepdim": True})
    for ord_ in ("fro", "nuc", 2, -2, 1, -1, float("inf"), -float("inf")):
        case(f"matrix_norm_{ord_}", "linalg", "matrix_norm", {"x": a}, ["@x", ord_])
    case("matrix_norm_dims_keepdim", "linalg", "matrix_norm", {"x": randn(3, 2, 4)}, ["@x"],
         {"dim": [0, 2], "keepdim": True})
    chain = {"v": randn(3), "m1": randn(3, 5), "m2": randn(5, 2), "m3": randn(2, 6), "w": randn(6)}
    case("multi_dot_vectors", "linalg", "multi_dot", chain, [["@v", "@m1", "@m2", "@m3", "@w"]])
    case("multi_dot_matrices", "linalg", "multi_dot", {"m1": randn(4, 5), "m2": randn(5, 2), "m3": randn(2, 6)},
         [["@m1", "@m2", "@m3"]])
    case("vecdot_broadcast", "linalg", "vecdot", {"x": a, "y": a[0]}, ["@x", "@y"], {"dim": 1})
    for p in (None, 2, -2, "fro", "nuc", float("inf"), -float("inf"), 1, -1):
        # PyTorch's backward through cond's inverse fails (an in-place write it then needs): values only
        case(f"cond_{p}", "linalg", "cond", {"x": a}, ["@x", p], grad=None if p in (None, 2, -2) else ())
    low_rank = randn(3, 5, 4)
    low_rank[1] = low_rank[1][:, :1] @ randn(1, 4)
    case("matrix_rank", "linalg", "matrix_rank", {"x": low_rank}, ["@x"], grad=())
    case("matrix_rank_atol", "linalg", "matrix_rank", {"x": low_rank}, ["@x"], {"atol": 1.0}, grad=())
    case("cholesky_solve", "torch", "cholesky_solve", {"b": b, "f": chol}, ["@b", "@f"], mg_ns="linalg")
    case("cholesky_solve_upper", "torch", "cholesky_solve", {"b": b, "f": chol.transpose(0, 2, 1).copy()},
         ["@b", "@f"], {"upper": True}, mg_ns="linalg")
    case("cholesky_inverse", "torch", "cholesky_inverse", {"f": chol[0]}, ["@f"], mg_ns="linalg")
    case("tensorsolve", "linalg", "tensorsolve", {"a": randn(2, 3, 6), "b": randn(2, 3)}, ["@a", "@b"])
    case("tensorsolve_dims", "linalg", "tensorsolve", {"a": randn(6, 2, 3), "b": randn(2, 3)}, ["@a", "@b"],
         {"dims": [0]})
    case("tensorinv", "linalg", "tensorinv", {"a": randn(4, 6, 8, 3)}, ["@a"])
    case("tensorinv_ind1", "linalg", "tensorinv", {"a": randn(6, 2, 3)}, ["@a"], {"ind": 1})
    case("householder_product", "linalg", "householder_product", {"h": randn(2, 5, 3), "tau": randn(2, 2)},
         ["@h", "@tau"])
    case("householder_product_square", "linalg", "householder_product", {"h": randn(4, 4), "tau": randn(4)},
         ["@h", "@tau"])
    for scale in (0.1, 1.0, 4.0):
        case(f"matrix_exp_{scale}", "linalg", "matrix_exp", {"a": randn(2, 3, 3) * scale}, ["@a"])
    case("matrix_exp_nilpotent", "linalg", "matrix_exp", {"a": np.triu(randn(4, 4), 1)}, ["@a"])
    case("lu_factor", "linalg", "lu_factor", {"a": a}, ["@a"])
    case("lu", "linalg", "lu", {"a": a}, ["@a"])
    lu_, piv = torch.linalg.lu_factor(torch.tensor(a))
    for left in (True, False):
        for adjoint in (False, True):
            rhs = b if left else randn(2, 3, 4)
            case(f"lu_solve_{left}_{adjoint}", "linalg", "lu_solve", {"f": lu_.numpy(), "p": piv.numpy(), "b": rhs},
                 ["@f", "@p", "@b"], {"left": left, "adjoint": adjoint})


def block_cases() -> None:
    x1, x2 = randn(2, 3, 11), randn(2, 3, 6, 7)
    case("adaptive_avg_pool1d", "F", "adaptive_avg_pool1d", {"x": x1}, ["@x", 4])
    case("adaptive_max_pool1d", "F", "adaptive_max_pool1d", {"x": x1}, ["@x", 4], {"return_indices": True})
    case("layer_AdaptiveAvgPool1d", "nn", "AdaptiveAvgPool1d", {"x": x1[0]}, ["@x"], init={"output_size": 3})
    # windows that do not overlap: each index once (PyTorch's backward gives a repeated index's every
    # source the gradient, which is not the derivative of its forward: the last write wins)
    pooled, idx = F.max_pool2d(torch.tensor(x2), 2, return_indices=True)
    case("max_unpool2d", "F", "max_unpool2d", {"x": pooled.numpy(), "i": idx.numpy()}, ["@x", "@i", 2],
         {"output_size": [6, 7]})
    pooled, idx = F.max_pool1d(torch.tensor(x1), 3, 3, 1, return_indices=True)
    case("max_unpool1d", "F", "max_unpool1d", {"x": pooled.numpy(), "i": idx.numpy()}, ["@x", "@i", 3, 3, 1],
         {"output_size": [11]})
    for tag, kw in [("plain", {"kernel_size": 3}),
                    ("strided", {"kernel_size": [2, 3], "dilation": [2, 1], "padding": 1, "stride": [2, 3]})]:
        case(f"unfold_{tag}", "F", "unfold", {"x": x2}, ["@x"], kw)
        cols = F.unfold(torch.tensor(x2), **kw)
        case(f"fold_{tag}", "F", "fold", {"c": randn(*cols.shape)}, ["@c", [6, 7]], kw)
    case("layer_Unfold_unbatched", "nn", "Unfold", {"x": x2[0]}, ["@x"], init={"kernel_size": 2, "stride": 2})
    for size in (1, 2, 3, 4):
        case(f"local_response_norm_{size}", "F", "local_response_norm", {"x": x2}, ["@x", size],
             {"alpha": 0.3, "beta": 0.6, "k": 1.5})
    case("local_response_norm_1d", "F", "local_response_norm", {"x": x1}, ["@x", 3])
    case("instance_norm_affine", "F", "instance_norm", {"x": x2, "w": randn(3), "b": randn(3)},
         ["@x"], {"weight": "@w", "bias": "@b"})
    case("instance_norm_eval", "F", "instance_norm", {"x": x1, "m": randn(3), "v": np.abs(randn(3)) + 0.5},
         ["@x", "@m", "@v"], {"use_input_stats": False}, grad=("x",))
    case("layer_InstanceNorm1d", "nn", "InstanceNorm1d", {"x": x1}, ["@x"], init={"num_features": 3})
    case("conv_transpose1d", "F", "conv_transpose1d", {"x": x1, "w": randn(3, 2, 3), "b": randn(2)},
         ["@x", "@w", "@b"], {"stride": 2, "padding": 1, "output_padding": 1})
    case("conv_transpose1d_groups_dilation", "F", "conv_transpose1d", {"x": randn(4, 5), "w": randn(4, 3, 2)},
         ["@x", "@w"], {"groups": 2, "dilation": 2})


def embedding_bag_cases() -> None:
    w = randn(10, 3)
    ids, off = np.array([1, 2, 4, 5, 4, 3, 2, 9, 0]), np.array([0, 2, 2, 5])
    for mode in ("sum", "mean", "max"):
        for pad in (None, 2):
            case(f"embedding_bag_{mode}_{pad}", "F", "embedding_bag", {"i": ids, "w": w, "o": off},
                 ["@i", "@w", "@o"], {"mode": mode, "padding_idx": pad})
        case(f"embedding_bag_2d_{mode}", "F", "embedding_bag", {"i": ids[:8].reshape(2, 4), "w": w}, ["@i", "@w"],
             {"mode": mode})
    case("embedding_bag_weights_last_offset", "F", "embedding_bag",
         {"i": ids, "w": w, "o": np.array([0, 2, 2, 5, 9]), "p": randn(9)}, ["@i", "@w", "@o"],
         {"mode": "sum", "per_sample_weights": "@p", "include_last_offset": True})


def grid_cases() -> None:
    theta, theta3 = randn(2, 2, 3), randn(2, 3, 4)
    x, grid = randn(2, 3, 5, 6), rng.uniform(-1.6, 1.6, (2, 4, 7, 2))
    for ac in (False, True):
        case(f"affine_grid_2d_{ac}", "F", "affine_grid", {"t": theta}, ["@t", [2, 3, 4, 5]], {"align_corners": ac})
        case(f"affine_grid_3d_{ac}", "F", "affine_grid", {"t": theta3}, ["@t", [2, 3, 2, 4, 5]],
             {"align_corners": ac})
        for pm in ("zeros", "border", "reflection"):
            case(f"grid_sample_bilinear_{pm}_{ac}", "F", "grid_sample", {"x": x, "g": grid}, ["@x", "@g"],
                 {"mode": "bilinear", "padding_mode": pm, "align_corners": ac})
            case(f"grid_sample_nearest_{pm}_{ac}", "F", "grid_sample", {"x": x, "g": grid}, ["@x", "@g"],
                 {"mode": "nearest", "padding_mode": pm, "align_corners": ac}, grad=("x",))


def conv3d_cases() -> None:
    x, w, b = randn(2, 4, 5, 6, 7), randn(6, 2, 3, 2, 3), randn(6)
    for tag, kw in [("plain", {"groups": 2}), ("strided", {"stride": [2, 1, 2], "padding": 1, "dilation": [1, 2, 1],
                                                          "groups": 2}),
                    ("same", {"padding": "same", "groups": 2}), ("valid", {"padding": "valid", "groups": 2})]:
        case(f"conv3d_{tag}", "F", "conv3d", {"x": x, "w": w, "b": b}, ["@x", "@w", "@b"], kw)
    case("conv3d_unbatched", "F", "conv3d", {"x": x[0], "w": randn(3, 4, 1, 2, 2)}, ["@x", "@w"])
    case("adaptive_avg_pool3d", "F", "adaptive_avg_pool3d", {"x": x}, ["@x", [2, None, 3]])
    case("layer_AdaptiveAvgPool3d", "nn", "AdaptiveAvgPool3d", {"x": x[0]}, ["@x"], init={"output_size": 2})
    for tag, kw in [("plain", {"kernel_size": 2}), ("ceil", {"kernel_size": 3, "stride": 2, "padding": 1,
                                                            "ceil_mode": True})]:
        case(f"max_pool3d_{tag}", "F", "max_pool3d", {"x": x}, ["@x"], {**kw, "return_indices": True})
        for include in (True, False):
            case(f"avg_pool3d_{tag}_{include}", "F", "avg_pool3d", {"x": x}, ["@x"],
                 {**kw, "count_include_pad": include})
    case("max_pool3d_dilation", "F", "max_pool3d", {"x": x}, ["@x"],
         {"kernel_size": [2, 3, 2], "stride": [1, 2, 3], "dilation": [2, 1, 1], "ceil_mode": True})
    case("avg_pool3d_override", "F", "avg_pool3d", {"x": x}, ["@x"], {"kernel_size": 2, "divisor_override": 3})
    case("layer_MaxPool3d", "nn", "MaxPool3d", {"x": x[0]}, ["@x"], init={"kernel_size": 2, "return_indices": True})
    case("layer_AvgPool3d", "nn", "AvgPool3d", {"x": x[0]}, ["@x"], init={"kernel_size": 2, "ceil_mode": True})


def ctc_cases() -> None:
    """Padded and concatenated targets with repeated labels, every reduction, impossible targets
    (``inf``, NaN gradients; ``zero_infinity``), a blank other than 0, float32, an unbatched call,
    and raw (not normalized) log-probabilities, where PyTorch's gradient is not the derivative."""
    t, n, c = 6, 4, 5
    logits = randn(t, n, c)
    lp = logits - np.log(np.exp(logits).sum(axis=2, keepdims=True))
    padded, tl = np.array([[1, 1, 2], [3, 3, 0], [4, 2, 4], [2, 0, 0]]), np.array([3, 2, 3, 1])
    concat, il = np.array([1, 1, 2, 3, 3, 4, 2, 4, 2]), np.array([6, 5, 6, 4])
    for red in ("mean", "sum", "none"):
        case(f"ctc_loss_padded_{red}", "F", "ctc_loss", {"lp": lp, "tg": padded, "il": il, "tl": tl},
             ["@lp", "@tg", "@il", "@tl"], {"reduction": red})
        case(f"ctc_loss_concatenated_{red}", "F", "ctc_loss", {"lp": lp, "tg": concat},
             ["@lp", "@tg", il.tolist(), tl.tolist()], {"reduction": red})
        for zero in (False, True):  # too few frames for 1 1 2 and 3 3; none at all for a 1-label target
            case(f"ctc_loss_impossible_{red}_{zero}", "F", "ctc_loss",
                 {"lp": lp, "tg": padded, "il": np.array([3, 2, 6, 0]), "tl": tl}, ["@lp", "@tg", "@il", "@tl"],
                 {"reduction": red, "zero_infinity": zero})
    for blank in (2, 4):
        relabel = np.where(padded == blank, 0, padded)
        case(f"ctc_loss_blank{blank}", "F", "ctc_loss", {"lp": lp, "tg": relabel, "il": il, "tl": tl},
             ["@lp", "@tg", "@il", "@tl"], {"blank": blank, "reduction": "none"})
    case("ctc_loss_empty_targets", "F", "ctc_loss", {"lp": lp, "tg": padded, "il": np.array([6, 0, 3, 0]),
         "tl": np.array([0, 0, 3, 1])}, ["@lp", "@tg", "@il", "@tl"], {"reduction": "none"})
    case("ctc_loss_float32", "F", "ctc_loss", {"lp": lp.astype(np.float32), "tg": padded, "il": il, "tl": tl},
         ["@lp", "@tg", "@il", "@tl"])
    case("ctc_loss_raw_log_probs", "F", "ctc_loss", {"lp": logits, "tg": padded, "il": il, "tl": tl},
         ["@lp", "@tg", "@il", "@tl"], {"reduction": "sum"})
    case("ctc_loss_unbatched", "F", "ctc_loss", {"lp": lp[:, 0], "tg": padded[0], "il": np.array(6),
         "tl": np.array(3)}, ["@lp", "@tg", "@il", "@tl"], {"reduction": "none"})
    case("layer_CTCLoss", "nn", "CTCLoss", {"lp": lp, "tg": concat, "il": il, "tl": tl}, ["@lp", "@tg", "@il", "@tl"],
         init={"blank": 0, "reduction": "mean", "zero_infinity": True})


def grid_bicubic_and_volume_cases() -> None:
    """Bicubic sampling of 4-D input and (tri)linear and nearest sampling of 5-D input, with every
    padding mode and both ``align_corners``; grids reach past [-1, 1] and hit -1, 0 and 1 exactly."""
    x, grid = randn(2, 3, 5, 6), rng.uniform(-1.6, 1.6, (2, 4, 7, 2))
    grid[0, 0, :3] = [[-1.0, -1.0], [0.0, 1.0], [1.0, 0.5]]
    x5, grid5 = randn(2, 2, 4, 5, 3), rng.uniform(-1.6, 1.6, (2, 3, 2, 4, 3))
    grid5[0, 0, 0, :2] = [[-1.0, 0.0, 1.0], [1.0, -1.0, 0.0]]
    for ac in (False, True):
        for pm in ("zeros", "border", "reflection"):
            case(f"grid_sample_bicubic_{pm}_{ac}", "F", "grid_sample", {"x": x, "g": grid}, ["@x", "@g"],
                 {"mode": "bicubic", "padding_mode": pm, "align_corners": ac})
            case(f"grid_sample_5d_bilinear_{pm}_{ac}", "F", "grid_sample", {"x": x5, "g": grid5}, ["@x", "@g"],
                 {"mode": "bilinear", "padding_mode": pm, "align_corners": ac})
            case(f"grid_sample_5d_nearest_{pm}_{ac}", "F", "grid_sample", {"x": x5, "g": grid5}, ["@x", "@g"],
                 {"mode": "nearest", "padding_mode": pm, "align_corners": ac}, grad=("x",))
    edges = np.array([[[[-1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [0.25, 1.0]]]])  # PyTorch's grid gradient is 0 there
    for pm in ("border", "reflection"):
        case(f"grid_sample_bilinear_edges_{pm}", "F", "grid_sample", {"x": x[:1], "g": edges}, ["@x", "@g"],
             {"mode": "bilinear", "padding_mode": pm, "align_corners": True})


CASE_GROUPS = [pooling_cases, conv_same_cases, activation_cases, distance_cases, margin_loss_cases,
               interpolate_cases, linalg_cases, block_cases, embedding_bag_cases, grid_cases, conv3d_cases,
               ctc_cases, grid_bicubic_and_volume_cases]


def main() -> None:
    for group in CASE_GROUPS:
        group()
    ARRAYS["__meta__"] = np.frombuffer(json.dumps(META, sort_keys=True).encode(), dtype=np.uint8)
    np.savez_compressed(OUT, **ARRAYS)
    print(f"{OUT.name}: {len(META)} cases, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
