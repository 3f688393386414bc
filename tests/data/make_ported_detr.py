"""Regenerate ``tests/data/ported_detr_reference.npz``: PyTorch's runs of ``examples/ported/detr.py``
(facebookresearch/detr, small), read from its ported source with the rename undone, as
``make_ported_reference.py`` runs its programs: the model's starting weights are torch's
(``xavier_uniform_``, the embeddings' and layers' defaults), recorded at ``init``; no draws follow.

    python tests/data/make_ported_detr.py        # needs torch and scipy; the tests do not need torch
"""

from make_ported_reference import record_runs

# float64 with learned position embeddings (the sine embedding is float32 by detr's own spelling, where
# NumPy's and torch's sin differ by an ulp); float32 with the sine embedding, to float32 round-off
RUNS = {"detr_double": ("detr", ["--double", "--position_embedding", "learned"]),
        "detr_sine": ("detr", [])}

if __name__ == "__main__":
    record_runs(RUNS, "ported_detr_reference.npz")
