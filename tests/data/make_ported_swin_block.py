"""Regenerate ``tests/data/ported_swin_block_reference.npz``: PyTorch's runs of
``examples/ported/swin_block.py`` (microsoft/Swin-Transformer's window attention block, with timm's
DropPath and Swin's AdamW groups and warmup-cosine schedule), read from its ported source with the
rename undone, as ``make_ported_reference.py`` runs its programs (the same keys: ``<run>|init|...``,
``<run>|draw|<i>``, ``<run>|history``, ``<run>|final|...``).

    python tests/data/make_ported_swin_block.py        # needs torch; the tests do not

DropPath's masks, ``x.new_empty(shape).bernoulli_(keep)``, are recorded as ``"Tensor.bernoulli_"``
draws; the test writes torch's values into the tensor.
"""

from make_ported_reference import record_runs

RUNS = {  # tests/test_ported_swin_block.py replays these
    "swin_f64": ("swin_block", ["--double"]),
    "swin_f32": ("swin_block", []),
}

if __name__ == "__main__":
    record_runs(RUNS, "ported_swin_block_reference.npz")
