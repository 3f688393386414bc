"""The demo's run as a readable script: a character-level causal transformer.

    python examples/char_transformer.py                 # the same run as `minigrad-ckpt demo`
    python examples/char_transformer.py --steps 10      # a quick smoke run

This is the training loop of `minigrad-ckpt demo` spelled out: the same model
(`CharTransformer` from `minigrad_ckpt/demo.py`: embeddings, causal
`TransformerBlock`s, a final LayerNorm and a linear head), data, AdamW with a
cosine learning-rate schedule and gradient clipping, so with the same seed it
computes the same losses step for step (a test checks it).  What the demo adds
around it: a progress bar, the memory report, checkpointing and snapshot
options, `--out` files and the loss chart.
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
    sched = mg.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.steps, eta_min=3e-4)

    losses: list[float] = []
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
        sched.step()

        losses.append(loss.item())
        if step % max(1, args.steps // 10) == 0:
            print(f"step {step:4d}  loss {losses[-1]:.3f}")

    print(tok.decode(model.generate(tok.encode("Ada "), 240)))
    final = float(np.mean(losses[-10:]))
    print(f"final loss {final:.3f} (mean of the last {min(10, len(losses))} steps; step 1: {losses[0]:.3f})")
    return losses[0], losses[-1]


if __name__ == "__main__":
    main()
