"""Rewrite the "Tensor methods not offered" and "Top-level functions not offered" sections of
``docs/from-pytorch.md``: ``python docs/gen_not_offered.py``.

Walks ``tests/data/torch_tensor_methods.txt`` (``torch.Tensor``'s public names, listed offline)
and ``tests/data/torch_functions.txt`` (``torch``'s public top-level functions, listed offline),
and lists each name ``mg.Tensor`` (or ``mg``) does not have under the reason of its group;
``tests/test_pytorch_meanings.py`` checks that the sections and the package agree.
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
     lambda n: n in ("eig", "symeig", "lstsq", "solve", "triangular_solve", "lu", "lu_solve")),
    ("Layers' functions", "they are `mg.nn.functional`'s (`F.prelu(x, w)`, `F.hardshrink(x)`), which the tensor "
     "layer sits below", lambda n: n in ("prelu", "hardshrink")),
]
REST = ("Operators not in the engine yet", "these have no implementation here yet; each is an `AttributeError`, "
        "never another library's answer")
HEADING = "## Tensor methods not offered"
INTRO_END = "with the reason:\n"

_QUANTIZED = ("quantize", "quantized_", "q_", "dequantize", "int_repr", "fake_quantize", "fused_moving_avg_obs",
              "choose_qparams", "empty_quantized", "fbgemm_")
_SPARSE_OR_STORAGE = ("sparse_", "indices_copy", "values_copy", "as_strided", "resize_as", "smm", "spmm", "saddmm",
                      "sspaddmm", "is_storage", "from_file", "hash_tensor", "nonzero_static", "slice_inverse",
                      "unsafe_", "is_distributed", "is_inference")
_VENDOR = ("cudnn_", "miopen_", "mkldnn_", "_ipu_", "_xla_", "is_vulkan_available", "compiled_with_cxx11_abi",
           "profiler_allow_cudagraph", "init_num_threads", "set_flush_denormal", "get_device_module")
_INTERNALS = ("parse_ir", "parse_schema", "parse_type_comment", "import_ir_module", "merge_type_from_type_comment",
              "unify_type_list", "fork", "wait", "sym_", "classproperty", "get_file_path",
              "prepare_multiprocessing_environment", "set_anomaly_enabled", "deterministic_debug_mode")
_KERNELS = ("batch_norm_", "native_", "norm_except_dim", "affine_grid_generator", "grid_sampler", "conv_tbc",
            "convolution", "embedding_renorm_", "dropout_", "set_default_tensor_type")
FUNCTION_GROUPS = [
    ("Sparse, quantized, storage and memory-layout internals",
     "an mg tensor is one dense NumPy/CuPy array: there is no sparse layout, quantization, storage object or "
     "stride to set (`as_strided`), and no distributed or inference-mode tensor kind to ask about",
     lambda n: n.startswith(_QUANTIZED) or any(k in n for k in _SPARSE_OR_STORAGE)),
    ("Vendor kernels and devices the engine does not drive",
     "the engine runs on the CPU (NumPy) and CUDA GPUs (CuPy) only, through no cuDNN/MIOpen/oneDNN/FBGEMM entry "
     "points of its own; `mg.cuda`, `mg.cpu` and `mg.backends` answer what is asked of the devices it drives",
     lambda n: any(k in n for k in _VENDOR)),
    ("TorchScript, IR and symbolic-shape internals",
     "the compiler's and the JIT's machinery (`mg.compile` and `mg.jit.script` run the function eagerly, so "
     "every size is a Python int and there is no graph to parse or fork): use Python's own `int`, `max`, "
     "`math.sqrt` where PyTorch's tracing needs `sym_*`, and `mg.set_detect_anomaly` for anomaly mode",
     lambda n: n.startswith(_INTERNALS) or any(k in n for k in _INTERNALS)),
    ("Removed in PyTorch itself", "PyTorch 2 raises for these too, naming the `linalg` call to use: "
     "`mg.linalg.eig`, `mg.linalg.eigh`, `mg.linalg.lstsq`, `mg.linalg.solve`, `mg.linalg.matrix_rank` "
     "(`mg.eig` and its kin are an AttributeError that says so)",
     lambda n: n in ("eig", "symeig", "lstsq", "solve", "matrix_rank")),
    ("ATen's internal kernels of layers and deprecated state",
     "the layers and their functions are offered (`F.batch_norm`, `F.grid_sample`, `F.affine_grid`, "
     "`F.conv2d`, `F.embedding_bag`, `nn.LSTM`, `mg.lstm_cell`, `mg.set_default_dtype`); these are the kernels "
     "and statistics passes under them (ATen's `embedding_bag` returns its kernel's bookkeeping, "
     "`offset2bag`, `bag_size` and `max_indices`, beside the output; `lstm` takes the weights flattened as "
     "cuDNN lays them out), or PyTorch's deprecated tensor-type default",
     lambda n: n.startswith(_KERNELS) or n in ("gru", "lstm", "rnn_relu", "rnn_tanh", "embedding_bag")),
]
FUNCTION_REST = ("Functions not in the engine yet", "these have no implementation here yet; each is an "
                 "`AttributeError`, never another library's answer (`lobpcg`, PyTorch's iterative solver for a "
                 "few extreme eigenpairs of a large symmetric matrix, would be a port of `torch._lobpcg` over "
                 "`mg.linalg`; `mg.linalg.eigh` answers every eigenpair meanwhile)")
FUNCTION_HEADING = "## Top-level functions not offered"


def _names(listing: str) -> list[str]:
    lines = (HERE.parent / "tests" / "data" / listing).read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")]


def grouped(missing: list[str], groups: list, rest: tuple[str, str]) -> str:
    """``missing`` under the reason of the first group whose predicate takes each name."""
    used: set[str] = set()
    out = []
    for title, why, pred in groups:
        chosen = [n for n in missing if n not in used and pred(n)]
        used.update(chosen)
        if chosen:
            out.append(f"**{title}** -- {why}:\n\n" + ", ".join(f"`{n}`" for n in chosen) + "\n")
    left = [n for n in missing if n not in used]
    if left:
        out.append(f"**{rest[0]}** -- {rest[1]}:\n\n" + ", ".join(f"`{n}`" for n in left) + "\n")
    return "\n".join(out)


def section() -> str:
    """The Tensor methods' section: ``torch.Tensor``'s names that ``mg.Tensor`` lacks, grouped."""
    return grouped([n for n in _names("torch_tensor_methods.txt") if not hasattr(mg.Tensor, n)], GROUPS, REST)


def function_section() -> str:
    """The top-level functions' section: ``torch``'s functions that ``mg`` lacks, grouped."""
    return grouped([n for n in _names("torch_functions.txt") if not hasattr(mg, n)], FUNCTION_GROUPS,
                   FUNCTION_REST)


def _rewritten(text: str, heading: str, body: str) -> str:
    start = text.index(INTRO_END, text.index(heading)) + len(INTRO_END)
    end = text.index("\n## ", start)
    return text[:start] + "\n" + body + text[end:]


def main() -> None:
    path = HERE / "from-pytorch.md"
    text = _rewritten(path.read_text(), HEADING, section())
    path.write_text(_rewritten(text, FUNCTION_HEADING, function_section()))


if __name__ == "__main__":
    main()
