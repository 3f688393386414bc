"""Regenerate ``tests/data/ported_text_sentiment_ngrams_reference.npz``: PyTorch's runs of
``examples/ported/text_sentiment_ngrams.py`` (the tutorial "Text classification with the
torchtext library": ``nn.EmbeddingBag`` with offsets, SGD, ``StepLR``, ``clip_grad_norm_``), read
from the ported source with the rename undone, as ``make_ported_reference.py`` runs its programs.
The permutations of ``random_split`` and of the shuffled ``DataLoader``s are recorded (torch draws
them with ``randperm``) for the test to replay.

    python tests/data/make_ported_text_sentiment_ngrams.py        # needs torch; the tests do not
"""

from make_ported_reference import record_runs

RUNS = {  # tests/test_ported_text_sentiment_ngrams.py replays these
    "text_f64": ("text_sentiment_ngrams", ["--double"]),
    "text_f32": ("text_sentiment_ngrams", ["--epochs", "2"]),
}

if __name__ == "__main__":
    record_runs(RUNS, "ported_text_sentiment_ngrams_reference.npz")
