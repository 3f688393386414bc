"""Regenerate ``tests/data/torch_integer_op_refusals.json``: torch 2.13's answer to its
``nn.functional`` activations, softmaxes, ``argmax``/``argmin``/``relu`` methods, rounding, products
and the functions only PyTorch has (``frac``, ``lerp``, ``logcumsumexp``, ``mm``) on integer
(int64, int32, uint8) and bool tensors -- the exception's type and message where it refuses (its
kernels are floating only: '"elu_cpu" not implemented for 'Long''; "argmax(): does not support bool
input"), and the dtype and values where it answers (``relu``, ``hardtanh``, ``threshold`` keep
integers integer; ``sigmoid``, ``softsign`` compute them in float32; ``dtype=`` casts a softmax's
input first).

    python tests/data/make_torch_integer_op_refusals.py     # needs torch; the tests do not

Read by ``tests/test_integer_op_refusals.py``, which runs the same calls on the engine.
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).with_name("torch_integer_op_refusals.json")
VALUES = [[2, 1, 0, 4], [1, 3, 1, 0]]
DTYPES = ("int64", "int32", "uint8", "bool")

#: ``nn.functional``'s functions of the tensor alone
ONE_TENSOR = ("relu gelu silu elu leaky_relu softplus mish logsigmoid celu selu hardswish hardsigmoid hardshrink "
              "softshrink relu6 hardtanh softsign tanhshrink sigmoid tanh rrelu glu").split()
#: softmaxes along a dim, as ``(function or method, dim, dtype)``: the kernel's name depends on the dim
SOFTMAXES = [(kind + name, dim, dtype) for kind in ("F.", "t.") for name in ("softmax", "log_softmax")
             for dim in (1, 0) for dtype in (None, "float32")] + [("F.softmin", 1, None), ("F.softmin", 0, "float64")]
METHODS = "argmax argmin relu".split()
#: methods of names NumPy's functions share (``mg.abs`` keeps NumPy's reading), and those along a dim
ROUNDING = "abs absolute round floor ceil trunc fix frac nanmedian".split()
ALONG_DIM = "logcumsumexp median nanmedian".split()
PRODUCTS = "mm matmul".split()
#: losses and products of the tensor with itself, and pools of it as a (1, 1, 2, 4) image
PAIRS = ("mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy binary_cross_entropy_with_logits kl_div "
         "hinge_embedding_loss linear").split()
POOLS = "max_pool2d avg_pool2d adaptive_avg_pool2d adaptive_max_pool2d".split()
#: PyTorch refuses a bool subtraction before it could refuse these
BOOL_SUBTRACTED = {"F.l1_loss(t, t)", "F.hinge_embedding_loss(t, t)"}


def calls() -> dict:
    """Each case's name and its call ``fn(L, a)`` (``L``: ``torch`` or ``minigrad_ckpt``)."""
    out = {f"F.{name}": (lambda n: lambda L, a: getattr(L.nn.functional, n)(a))(name) for name in ONE_TENSOR}
    for name, dim, dtype in SOFTMAXES:
        def softmax(L, a, name=name, dim=dim, dtype=dtype):
            kind, fn = name.split(".")
            cast = None if dtype is None else getattr(L, dtype)
            if kind == "t":
                return getattr(a, fn)(dim, dtype=cast)
            return getattr(L.nn.functional, fn)(a, dim, dtype=cast)
        out[f"{name}({dim}, dtype={dtype})"] = softmax
    out.update({f"t.{name}()": (lambda n: lambda L, a: getattr(a, n)())(name) for name in METHODS})
    out["t.argmax(0)"] = lambda L, a: a.argmax(0)
    out["F.threshold"] = lambda L, a: L.nn.functional.threshold(a, 1, 0)
    out["F.hardtanh(-1, 1)"] = lambda L, a: L.nn.functional.hardtanh(a, -1.0, 1.0)
    out.update({f"t.{name}()": (lambda n: lambda L, a: getattr(a, n)())(name) for name in ROUNDING})
    out.update({f"t.{name}(1)": (lambda n: lambda L, a: getattr(a, n)(1))(name) for name in ALONG_DIM})
    out.update({f"t.{name}(t.T)": (lambda n: lambda L, a: getattr(a, n)(a.T))(name) for name in PRODUCTS})
    out.update({
        "frac": lambda L, a: L.frac(a), "logcumsumexp": lambda L, a: L.logcumsumexp(a, 1),
        "lerp": lambda L, a: L.lerp(a, a, 0.5), "t.lerp(t, t)": lambda L, a: a.lerp(a, a),
        "t.hypot(t)": lambda L, a: a.hypot(a), "mm": lambda L, a: L.mm(a, a.T), "t @ t.T": lambda L, a: a @ a.T,
        "t.inner(t)": lambda L, a: a.inner(a), "t.dot(t)": lambda L, a: a[0].dot(a[1]),
        "t.bmm(t.T)": lambda L, a: a[None].bmm(a.T[None]), "t.mv(t[0])": lambda L, a: a.mv(a[0]),
        "t.trace()": lambda L, a: a.trace(), "t.median()": lambda L, a: a.median(),
        "t.addcmul(t, t)": lambda L, a: a.addcmul(a, a), "t.addcdiv(t, t)": lambda L, a: a.addcdiv(a, a),
        "addcdiv(float, t, t)": lambda L, a: L.addcdiv(a.double(), a, a),
        "t.logaddexp(t)": lambda L, a: a.logaddexp(a), "t.logaddexp2(t)": lambda L, a: a.logaddexp2(a),
        "t.nextafter(t)": lambda L, a: a.nextafter(a), "+t": lambda L, a: +a, "positive": lambda L, a: L.positive(a),
        "t.cov()": lambda L, a: a.cov(), "t.corrcoef()": lambda L, a: a.corrcoef(),
    })
    out.update({f"F.{name}(t, t)": (lambda n: lambda L, a: getattr(L.nn.functional, n)(a, a))(name) for name in PAIRS})
    out.update({f"F.{name}(images, 2)": (lambda n: lambda L, a: getattr(L.nn.functional, n)(a[None, None], 2))(name)
                for name in POOLS})
    out.update({
        "F.layer_norm": lambda L, a: L.nn.functional.layer_norm(a, (4,)),
        "F.group_norm": lambda L, a: L.nn.functional.group_norm(a[None], 1),
        "F.batch_norm": lambda L, a: L.nn.functional.batch_norm(a, None, None, training=True),
        "F.instance_norm": lambda L, a: L.nn.functional.instance_norm(a[None]),
        "F.rms_norm": lambda L, a: L.nn.functional.rms_norm(a, (4,)),
        "F.avg_pool3d": lambda L, a: L.nn.functional.avg_pool3d(a[None, None, None], (1, 2, 2)),
        "F.adaptive_avg_pool2d(images, 1)": lambda L, a: L.nn.functional.adaptive_avg_pool2d(a[None, None], 1),
        "F.adaptive_avg_pool3d": lambda L, a: L.nn.functional.adaptive_avg_pool3d(a[None, None, None], (1, 2, 2)),
        "F.nll_loss": lambda L, a: L.nn.functional.nll_loss(a, a[:, 0].long()),
        "F.max_pool1d": lambda L, a: L.nn.functional.max_pool1d(a[None], 2),
        "F.avg_pool1d": lambda L, a: L.nn.functional.avg_pool1d(a[None], 2),
        "F.max_pool3d": lambda L, a: L.nn.functional.max_pool3d(a[None, None, None], (1, 2, 2), padding=(0, 1, 1)),
        "F.adaptive_avg_pool1d": lambda L, a: L.nn.functional.adaptive_avg_pool1d(a[None], 1),
        "F.adaptive_max_pool1d": lambda L, a: L.nn.functional.adaptive_max_pool1d(a[None], 1),
        "F.dropout(p=0.5)": lambda L, a: L.nn.functional.dropout(a, 0.5),
        "F.dropout(p=1)": lambda L, a: L.nn.functional.dropout(a, 1.0),
        "F.dropout(eval)": lambda L, a: L.nn.functional.dropout(a, 0.5, training=False),
        "F.gaussian_nll_loss(t, t, t)": lambda L, a: L.nn.functional.gaussian_nll_loss(a.float(), a.float(), a),
        "F.gaussian_nll_loss(t, float, float)": lambda L, a: L.nn.functional.gaussian_nll_loss(a, a.float(), a.float()),
        "F.pad reflect": lambda L, a: L.nn.functional.pad(a, (1, 1), mode="reflect"),
        "F.pad replicate": lambda L, a: L.nn.functional.pad(a[None, None], (1, 1, 1, 1), mode="replicate"),
        "F.pad circular": lambda L, a: L.nn.functional.pad(a[None], (1, 1), mode="circular"),
    })
    return out


def outcome(fn, L, a) -> dict:
    """What ``fn`` answers: its exception (type and message), or the dtype and values of its result."""
    try:
        out = fn(L, a)
    except Exception as e:  # noqa: BLE001 - the exception is the answer
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}
    out = out[0] if isinstance(out, tuple) else out  # (values, indices): the values
    return {"dtype": str(out.dtype).split(".")[-1], "values": out.tolist()}


def main() -> None:
    import torch  # here, not at the top: the tests import this module's inputs without torch

    out = {}
    for dtype in DTYPES:
        a = torch.tensor(VALUES, dtype=getattr(torch, dtype))
        for name, fn in calls().items():
            if not (dtype == "bool" and name in BOOL_SUBTRACTED):
                out[f"{name}/{dtype}"] = outcome(fn, torch, a)
    OUT.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
