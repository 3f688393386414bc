"""Regenerate ``tests/data/ported_chatbot_reference.npz``: the PyTorch runs of ``examples/ported/chatbot.py``
(the "Chatbot Tutorial"), read with the rename undone (``tests/test_ported_chatbot.py`` replays ``RUNS``): the
dot score in float32 and float64, the general and concat scores in float64.  The encoder and the decoder start
from ``ported_small.start_weights`` (seeds 67 and 68; the shared embedding takes the decoder's); Python's
``random`` (the batches, teacher forcing) is seeded in the program.  Stored: each iteration's loss and the
greedy decoder's scores, and ``ported_small.records`` of the final weights.

    python tests/data/make_ported_chatbot.py     # needs torch; the tests do not
"""

from __future__ import annotations

from pathlib import Path

RUNS = {"chat": [], "chat_f64": ["--double"], "chat_general_f64": ["--double", "--attn", "general"],
        "chat_concat_f64": ["--double", "--attn", "concat"]}


def main() -> None:
    from ported_small_torch import write_fixture

    write_fixture("chatbot", RUNS, Path(__file__).with_name("ported_chatbot_reference.npz"), seed=67)


if __name__ == "__main__":
    main()
