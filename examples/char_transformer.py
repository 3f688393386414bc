"""The demo's model as a readable script: a character-level causal transformer.

    python examples/char_transformer.py                 # the same run as `minigrad-ckpt demo`
    python examples/char_transformer.py --steps 10      # a quick smoke run

`minigrad-ckpt demo` wraps exactly this loop with a progress bar and options;
here it is spelled out.  The model class itself lives in
`minigrad_ckpt/demo.py` (`CharTransformer`): embeddings, causal
`TransformerBlock`s, a final LayerNorm and a linear head.
"""

from __future__ import annotations

import argparse

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt.demo import CharTokenizer, CharTransformer, load_corpus
from minigrad_ckpt.nn import functional as F


def main(argv: list[str] | None = None) -> tuple[float, float]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--block-size", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    mg.manual_seed(args.seed)
    text = load_corpus()                               # the bundled corpus (minigrad_ckpt/data)
    tok = CharTokenizer(text)
    data = np.array(tok.encode(text))
    model = CharTransformer(tok.vocab_size, block_size=args.block_size)
    print(model)
    opt = mg.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)

    first = last = float("nan")
    for step in range(1, args.steps + 1):
        # a batch of random windows; targets are the inputs shifted by one character
        starts = mg.randint(0, len(data) - args.block_size - 1, size=(args.batch_size,)).numpy()
        windows = data[starts[:, None] + np.arange(args.block_size + 1)]
        x, y = mg.tensor(windows[:, :-1]), mg.tensor(windows[:, 1:])

        logits = model(x)                              # (B, T, vocab)
        loss = F.cross_entropy(logits.reshape(-1, tok.vocab_size), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        mg.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

        first = loss.item() if step == 1 else first
        last = loss.item()
        if step % max(1, args.steps // 10) == 0:
            print(f"step {step:4d}  loss {last:.3f}")

    print(tok.decode(model.generate(tok.encode("Ada "), 200)))
    return first, last


if __name__ == "__main__":
    main()
