"""Rewrite the "Tensor methods not offered" section of ``docs/from-pytorch.md``:
``python docs/gen_not_offered.py``.

Walks ``tests/data/torch_tensor_methods.txt`` (``torch.Tensor``'s public names, listed offline)
and lists each name ``mg.Tensor`` does not have under the reason of its group;
``tests/test_pytorch_meanings.py`` checks that the section and the package agree.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import minigrad_ckpt as mg  # noqa: E402

SKIPPED = ("sparse", "indices", "coalesce", "quant", "q_", "int_repr", "storage", "data_ptr", "stride", "dim_order",
           "mkldnn", "pin", "record_stream", "resize", "share_memory", "as_strided", "module_load", "slice_inverse",
           "hash_tensor", "nested", "layout", "nonzero_static", "new_empty_strided", "narrow_copy", "unsafe_",
           "as_subclass", "apply_", "map_", "map2_", "grad_dtype", "output_nr", "volatile", "reinforce",
           "is_set_to", "is_shared", "is_inference", "is_meta", "is_distributed", "dense_dim", "to_dense",
           "to_padded", "smm", "sspaddmm", "values", "dequantize", "qscheme")
GROUPS = [
    ("Sparse, quantized, storage and memory-layout internals",
     "an mg tensor is one dense NumPy/CuPy array (`x.layout` is `mg.strided`): there is no sparse layout, "
     "quantization or storage object "
     "to ask about (`x.numpy()` gives the array; its layout is answered by `x.stride()`, "
     "`x.is_contiguous()` and `x.data_ptr()`)",
     lambda n: any(k in n for k in SKIPPED) or n == "name"),
    ("Devices the engine does not drive", "the engine runs on the CPU (NumPy) and CUDA GPUs (CuPy) only",
     lambda n: n in ("ipu", "xpu", "mtia", "is_ipu", "is_xpu", "is_mps", "is_maia", "is_mtia", "is_vulkan",
                     "is_xla")),
    ("Dtypes NumPy does not have", "NumPy has no bfloat16 and no complex32 (`chalf`): `mg.bfloat16`, "
     "`mg.complex32` and `mg.chalf` exist so that a script naming them runs, and computing in them is a "
     "`TypeError` naming what to use (`mg.cuda.is_bf16_supported()` is `False`); complex tensors are "
     "offered in complex64 and complex128 (`x.cfloat()`, `x.cdouble()`, `mg.complex`, `x.real`, `x.imag`, `x.mH`)",
     lambda n: n in ("bfloat16", "cdouble", "cfloat", "chalf", "conj", "conj_physical", "conj_physical_",
                     "resolve_conj", "resolve_neg", "is_conj", "is_neg", "angle", "real", "imag", "H", "mH",
                     "adjoint", "isreal")),
    ("Deprecated or removed in PyTorch itself", "PyTorch points to `torch.linalg` instead: use `mg.linalg.eigh`, "
     "`mg.linalg.lstsq`, `mg.linalg.solve`, `mg.linalg.solve_triangular`",
     lambda n: n in ("eig", "symeig", "lstsq", "solve", "triangular_solve", "lu", "lu_solve", "geqrf", "orgqr",
                     "ormqr")),
    ("Layers' functions", "they are `mg.nn.functional`'s (`F.prelu(x, w)`, `F.hardshrink(x)`), which the tensor "
     "layer sits below", lambda n: n in ("prelu", "hardshrink")),
]
REST = ("Operators not in the engine yet", "these have no implementation here yet; each is an `AttributeError`, "
        "never another library's answer")
HEADING = "## Tensor methods not offered"
INTRO_END = "with the reason:\n"


def section() -> str:
    names = [ln.strip() for ln in (HERE.parent / "tests" / "data" / "torch_tensor_methods.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    missing = [n for n in names if not hasattr(mg.Tensor, n)]
    used: set[str] = set()
    out = []
    for title, why, pred in GROUPS:
        chosen = [n for n in missing if n not in used and pred(n)]
        used.update(chosen)
        if chosen:
            out.append(f"**{title}** -- {why}:\n\n" + ", ".join(f"`{n}`" for n in chosen) + "\n")
    rest = [n for n in missing if n not in used]
    if rest:
        out.append(f"**{REST[0]}** -- {REST[1]}:\n\n" + ", ".join(f"`{n}`" for n in rest) + "\n")
    return "\n".join(out)


def main() -> None:
    path = HERE / "from-pytorch.md"
    text = path.read_text()
    start = text.index(INTRO_END, text.index(HEADING)) + len(INTRO_END)
    end = text.index("\n## ", start)
    path.write_text(text[:start] + "\n" + section() + text[end:])


if __name__ == "__main__":
    main()
