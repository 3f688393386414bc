"""Regenerate ``tests/data/ported_upgraded_sentiment_reference.npz``: the PyTorch runs of
``examples/ported/upgraded_sentiment.py`` (bentrevett's "Upgraded Sentiment Analysis": a bidirectional
LSTM over packed padded sequences), read with the rename undone (``tests/test_ported_upgraded_sentiment.py``
replays ``RUNS``).  The model starts from ``ported_small.start_weights`` (seed 29), its embedding then
loaded from the program's "pretrained" vectors; stored are each epoch's training loss, accuracy and
padded-output check, validation loss and accuracy, the two ``predict_sentiment`` answers, and
``ported_small.records`` of the final weights.

    python tests/data/make_ported_upgraded_sentiment.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"lstm": [], "lstm_f64": ["--double"], "gru_f64": ["--double", "--rnn", "gru"]}


def main() -> None:
    from ported_small_torch import write_fixture

    write_fixture("upgraded_sentiment", RUNS, Path(__file__).with_name("ported_upgraded_sentiment_reference.npz"),
                  seed=29)


if __name__ == "__main__":
    main()
