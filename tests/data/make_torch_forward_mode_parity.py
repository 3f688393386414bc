"""Regenerate ``tests/data/torch_forward_mode_parity.json``: torch's forward-mode answers
(``torch.func.jvp``, ``torch.autograd.functional``) that ``tests/test_forward_mode_parity.py`` compares the engine with.

    python tests/data/make_torch_forward_mode_parity.py        # needs torch; the tests do not
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).parent))
from autograd_functional_refusal_programs import CASES, run  # noqa: E402
from custom_function_jvp_programs import KINDS, jvp_input_tangents, tangent_for_nondifferentiable_output  # noqa: E402
from forward_mode_view_write_programs import CASES as WRITES  # noqa: E402
from forward_mode_view_write_programs import TRANSFORMS  # noqa: E402
from forward_mode_view_write_programs import run as run_write  # noqa: E402

OUT = Path(__file__).with_name("torch_forward_mode_parity.json")
IDS = [[0, 2], [1, 1]]


def embedding_max_norm() -> dict:
    """``F.embedding(ids, w, max_norm=1.0)``: the renorm rescales the rows' values, not their tangents."""
    rng = np.random.default_rng(0)
    weight, tangent = rng.standard_normal((4, 3)) * 2, rng.standard_normal((4, 3))
    out, out_tangent = torch.func.jvp(lambda w: F.embedding(torch.tensor(IDS), w.clone(), max_norm=1.0),
                                      (torch.tensor(weight),), (torch.tensor(tangent),))
    return {"ids": IDS, "weight": weight.tolist(), "tangent": tangent.tolist(),
            "out": out.tolist(), "out_tangent": out_tangent.tolist()}


def linearize_tangent_of_another_dtype() -> dict:
    """``jvp_fn`` of ``linearize`` at a float64 primal, given a float32 tangent."""
    _, jvp_fn = torch.func.linearize(torch.exp, torch.ones(3, dtype=torch.float64))
    try:
        jvp_fn(torch.ones(3, dtype=torch.float32))
    except RuntimeError as e:
        return {"error": type(e).__name__, "message": str(e)}
    raise AssertionError("torch accepted it")


def main() -> None:
    torch.set_default_dtype(torch.float64)
    data = {"__torch__": torch.__version__, "embedding_max_norm": embedding_max_norm(),
            "jvp_tangent_for_nondifferentiable_output": {kind: tangent_for_nondifferentiable_output(torch, kind)
                                                         for kind in KINDS},
            "jvp_input_tangents": jvp_input_tangents(torch),
            "autograd_functional_refusals": {case: run(torch, case) for case in CASES},
            "linearize_tangent_of_another_dtype": linearize_tangent_of_another_dtype(),
            "view_writes": {f"{case}/{t}": run_write(torch, case, t) for case in WRITES for t in TRANSFORMS}}
    OUT.write_text("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data.items()) + "\n}\n")


if __name__ == "__main__":
    main()
