"""A training run interrupted by a snapshot: what a test of bitwise resume compares."""

from __future__ import annotations

import minigrad_ckpt as mg
from minigrad_ckpt import nn


def train(net, opt, batches) -> None:
    """One step of ``opt`` per ``(x, y)`` batch on the mean squared error of ``net(x)``."""
    for x, y in batches:
        opt.zero_grad()
        nn.functional.mse_loss(net(x), y).backward()
        opt.step()


def uninterrupted_and_resumed(fresh, batches, path):
    """``(net, resumed)``: ``fresh()``'s ``(net, optimizer)`` trained over all ``batches``, and another
    trained over the first half, its model and optimizer state saved to ``path`` and loaded into a third,
    which trains over the rest."""
    half = len(batches) // 2
    net, opt = fresh()
    train(net, opt, batches)
    first, first_opt = fresh()
    train(first, first_opt, batches[:half])
    mg.save({"model": first.state_dict(), "optim": first_opt.state_dict()}, path)
    state = mg.load(path)
    resumed, resumed_opt = fresh()
    resumed.load_state_dict(state["model"])
    resumed_opt.load_state_dict(state["optim"])
    train(resumed, resumed_opt, batches[half:])
    return net, resumed
