"""A mixture-of-experts transformer block (the sparse MoE layer of Switch/Mixtral-style code, as in
makeMoE and the many "MoE from scratch" notebooks: a router ``nn.Linear``, ``torch.topk`` of its
logits, a softmax over the selected logits, tokens dispatched to each expert by ``torch.where`` on the
chosen indices and gathered back by ``index_add_``, the Switch load-balancing auxiliary loss from a
``scatter_`` of ones; ``nn.MultiheadAttention`` with a ``key_padding_mask`` in front); ported to
minigrad_ckpt by a mechanical rename.

    python examples/ported/moe_block.py --double
    python examples/ported/moe_block.py --double --dense     # the dense dispatch: gates by scatter()

Made small: width 16, 4 experts, top-2, sequences of up to 7 tokens padded to 7 (the pad tokens masked
from attention by ``key_padding_mask`` and from the loss by ``ignore_index``), a token-tagging task on
NumPy-made sequences, a few AdamW steps.  ``--dense``: every expert runs on every token and the outputs
are mixed by a gate matrix ``zeros_like(logits).scatter(1, topk_idx, topk_weights)`` (the other common
way).  The history records each step's loss, auxiliary loss, the tokens each expert got, and two sums of
each parameter's gradient.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F


class Expert(nn.Module):
    def __init__(self, n_embd, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_embd, hidden), nn.SiLU(), nn.Linear(hidden, n_embd))

    def forward(self, x):
        return self.net(x)


class SparseMoE(nn.Module):
    def __init__(self, n_embd, num_experts, top_k, hidden, dense=False):
        super().__init__()
        self.router = nn.Linear(n_embd, num_experts, bias=False)
        self.experts = nn.ModuleList([Expert(n_embd, hidden) for _ in range(num_experts)])
        self.num_experts = num_experts
        self.top_k = top_k
        self.dense = dense

    def forward(self, x):
        batch, seq, dim = x.shape
        flat_x = x.reshape(-1, dim)
        logits = self.router(flat_x)  # (tokens, experts)
        top_k_logits, indices = mg.topk(logits, self.top_k, dim=-1)
        top_k_weights = F.softmax(top_k_logits, dim=-1)

        if self.dense:
            gates = mg.zeros_like(logits).scatter(1, indices, top_k_weights)
            expert_outputs = mg.stack([expert(flat_x) for expert in self.experts], dim=1)  # (tokens, E, dim)
            final_output = (gates.unsqueeze(-1) * expert_outputs).sum(dim=1)
            counts = (gates > 0).sum(0).tolist()
        else:
            final_output = mg.zeros_like(flat_x)
            counts = []
            for i, expert in enumerate(self.experts):
                token_idx, slot = mg.where(indices == i)
                counts.append(token_idx.numel())
                if token_idx.numel() == 0:
                    continue
                expert_output = expert(flat_x[token_idx])
                weighted = expert_output * top_k_weights[token_idx, slot].unsqueeze(-1)
                final_output.index_add_(0, token_idx, weighted)

        # Switch Transformer's load-balancing loss: fraction of tokens routed x mean router probability
        probs = F.softmax(logits, dim=-1)
        routed = mg.zeros_like(probs).scatter_(1, indices, 1.0)
        tokens_per_expert = routed.mean(dim=0) / self.top_k
        router_prob_per_expert = probs.mean(dim=0)
        aux_loss = self.num_experts * mg.sum(tokens_per_expert * router_prob_per_expert)
        return final_output.view(batch, seq, dim), aux_loss, counts


class Block(nn.Module):
    def __init__(self, n_embd, n_head, num_experts, top_k, dense=False):
        super().__init__()
        self.ln1 = nn.LayerNorm(n_embd)
        self.attn = nn.MultiheadAttention(n_embd, n_head, batch_first=True)
        self.ln2 = nn.LayerNorm(n_embd)
        self.moe = SparseMoE(n_embd, num_experts, top_k, 2 * n_embd, dense=dense)

    def forward(self, x, key_padding_mask):
        h = self.ln1(x)
        attn_out, _ = self.attn(h, h, h, key_padding_mask=key_padding_mask, need_weights=False)
        x = x + attn_out
        moe_out, aux_loss, counts = self.moe(self.ln2(x))
        return x + moe_out, aux_loss, counts


class Tagger(nn.Module):
    def __init__(self, vocab, n_tags, n_embd=16, n_head=2, num_experts=4, top_k=2, max_len=7, dense=False):
        super().__init__()
        self.tok = nn.Embedding(vocab, n_embd, padding_idx=0)
        self.pos = nn.Embedding(max_len, n_embd)
        self.block = Block(n_embd, n_head, num_experts, top_k, dense=dense)
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, n_tags)

    def forward(self, idx):
        pad = idx == 0
        x = self.tok(idx) + self.pos(mg.arange(idx.shape[1], device=idx.device))
        x, aux_loss, counts = self.block(x, pad)
        return self.head(self.ln_f(x)), aux_loss, counts


def tagged_sequences(n, max_len, vocab, rng):
    """Token ids 1..vocab-1 padded with 0 to ``max_len``; a token's tag is its id mod 3, plus 1 after
    a token of the same parity (the pads' tags are -100, ignored)."""
    idx = np.zeros((n, max_len), dtype=np.int64)
    tags = np.full((n, max_len), -100, dtype=np.int64)
    for i in range(n):
        length = rng.integers(3, max_len + 1)
        seq = rng.integers(1, vocab, length)
        idx[i, :length] = seq
        same = np.r_[0, (seq[1:] % 2 == seq[:-1] % 2).astype(int)]
        tags[i, :length] = seq % 3 + same
    return idx, tags


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='MoE transformer block')
    parser.add_argument('--steps', type=int, default=4)
    parser.add_argument('--batch-size', type=int, default=4)
    parser.add_argument('--dense', action='store_true')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    idx, tags = tagged_sequences(args.steps * args.batch_size, 7, 12, rng)
    idx, tags = mg.from_numpy(idx), mg.from_numpy(tags)
    model = Tagger(12, 4, dense=args.dense).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    optimizer = mg.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    history = []
    model.train()
    for step in range(args.steps):
        x = idx[step * args.batch_size:(step + 1) * args.batch_size]
        y = tags[step * args.batch_size:(step + 1) * args.batch_size]
        logits, aux_loss, counts = model(x)
        task_loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), ignore_index=-100)
        loss = task_loss + 0.01 * aux_loss
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        history.extend([loss.item(), aux_loss.item(), *counts])
        for name, p in model.named_parameters():
            if p.grad is not None:
                history.extend([p.grad.sum().item(), p.grad.abs().sum().item()])
        optimizer.step()
    return history, model


if __name__ == '__main__':
    print(main()[0][:2])
