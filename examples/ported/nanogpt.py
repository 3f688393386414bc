"""nanoGPT (karpathy/nanoGPT, MIT licence, (c) 2022 Andrej Karpathy): its ``model.py`` and the
training loop of its ``train.py``, ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/nanogpt.py --iters 6

The model is nanoGPT's, line for line: a GPT with the token embedding tied to the output head,
``LayerNorm`` with an optional bias, causal self-attention through
``F.scaled_dot_product_attention(is_causal=True)`` (or, with ``--slow-attention``, the manual
path with its registered ``tril`` mask buffer), GPT-2's scaled initialisation of the residual
projections, ``configure_optimizers``'s two AdamW groups (2-D weights decayed, the rest not),
``crop_block_size``'s model surgery and ``generate`` with temperature and top-k.  The loop is
``train.py``'s: warmup then cosine learning rate, gradient accumulation, gradient clipping,
``estimate_loss`` under ``no_grad`` in ``eval()`` mode.  Made smaller (sizes, and a token stream
made here instead of Shakespeare); the lines that differ are listed in ``README.md``.
"""

import argparse
import inspect
import math
from dataclasses import dataclass

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
from minigrad_ckpt.nn import functional as F


class LayerNorm(nn.Module):
    """ LayerNorm but with an optional bias. PyTorch doesn't support simply bias=False """

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = nn.Parameter(mg.ones(ndim))
        self.bias = nn.Parameter(mg.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(nn.Module):

    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.attn_dropout = nn.Dropout(config.dropout)
        self.resid_dropout = nn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.dropout = config.dropout
        self.flash = hasattr(mg.nn.functional, 'scaled_dot_product_attention') and not config.slow_attention
        if not self.flash:
            self.register_buffer("bias", mg.tril(mg.ones(config.block_size, config.block_size))
                                        .view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        if self.flash:
            y = mg.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=None,
                                                              dropout_p=self.dropout if self.training else 0,
                                                              is_causal=True)
        else:
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
            att = F.softmax(att, dim=-1)
            att = self.attn_dropout(att)
            y = att @ v
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        y = self.resid_dropout(self.c_proj(y))
        return y


class MLP(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = nn.GELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = nn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


@dataclass
class GPTConfig:
    block_size: int = 16
    vocab_size: int = 29
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 16
    dropout: float = 0.0
    bias: bool = True
    slow_attention: bool = False


class GPT(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            drop=nn.Dropout(config.dropout),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                mg.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    def get_num_params(self, non_embedding=True):
        n_params = sum(p.numel() for p in self.parameters())
        if non_embedding:
            n_params -= self.transformer.wpe.weight.numel()
        return n_params

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            mg.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                mg.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            mg.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        device = idx.device
        b, t = idx.size()
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}"
        pos = mg.arange(0, t, dtype=mg.long, device=device)
        tok_emb = self.transformer.wte(idx)
        pos_emb = self.transformer.wpe(pos)
        x = self.transformer.drop(tok_emb + pos_emb)
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        else:
            logits = self.lm_head(x[:, [-1], :])  # note: using list [-1] to preserve the time dim
            loss = None
        return logits, loss

    def crop_block_size(self, block_size):
        assert block_size <= self.config.block_size
        self.config.block_size = block_size
        self.transformer.wpe.weight = nn.Parameter(self.transformer.wpe.weight[:block_size])
        for block in self.transformer.h:
            if hasattr(block.attn, 'bias'):
                block.attn.bias = block.attn.bias[:, :, :block_size, :block_size]

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type):
        param_dict = {pn: p for pn, p in self.named_parameters()}
        param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [
            {'params': decay_params, 'weight_decay': weight_decay},
            {'params': nodecay_params, 'weight_decay': 0.0}
        ]
        fused_available = 'fused' in inspect.signature(mg.optim.AdamW).parameters
        use_fused = fused_available and device_type == 'cuda'
        extra_args = dict(fused=True) if use_fused else dict()
        return mg.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, **extra_args)

    @mg.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            logits, _ = self(idx_cond)
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = mg.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float('Inf')
            probs = F.softmax(logits, dim=-1)
            idx_next = mg.multinomial(probs, num_samples=1)
            idx = mg.cat((idx, idx_next), dim=1)
        return idx


def token_stream(n, vocab, seed=0):
    """A stream with structure to learn: runs of a repeated token, then a random one."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        out += [int(rng.integers(vocab))] * int(rng.integers(1, 5))
    return np.array(out[:n], dtype=np.uint16)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--iters', type=int, default=6)
    parser.add_argument('--batch-size', type=int, default=4)
    parser.add_argument('--accumulation', type=int, default=2)
    parser.add_argument('--lr', type=float, default=6e-3)
    parser.add_argument('--warmup', type=int, default=2)
    parser.add_argument('--no-bias', action='store_true')
    parser.add_argument('--slow-attention', action='store_true')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    if args.double:
        mg.set_default_dtype(mg.float64)
    try:
        return _train(args, init)
    finally:
        mg.set_default_dtype(mg.float32)


def _train(args, init):
    mg.manual_seed(1337)
    config = GPTConfig(bias=not args.no_bias, slow_attention=args.slow_attention)
    data = {'train': token_stream(600, config.vocab_size, 0), 'val': token_stream(200, config.vocab_size, 1)}
    batch_rng = np.random.default_rng(2)  # the batches' offsets (train.py draws them with torch.randint)

    def get_batch(split):
        d = data[split]
        ix = batch_rng.integers(len(d) - config.block_size, size=args.batch_size)
        x = mg.stack([mg.from_numpy((d[i:i + config.block_size]).astype(np.int64)) for i in ix])
        y = mg.stack([mg.from_numpy((d[i + 1:i + 1 + config.block_size]).astype(np.int64)) for i in ix])
        return x, y

    def get_lr(it):
        if it < args.warmup:
            return args.lr * (it + 1) / (args.warmup + 1)
        decay_ratio = (it - args.warmup) / (args.iters - args.warmup)
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
        return args.lr / 10 + coeff * (args.lr - args.lr / 10)

    @mg.no_grad()
    def estimate_loss():
        out = {}
        model.eval()
        for split in ['train', 'val']:
            losses = mg.zeros(2)
            for k in range(2):
                X, Y = get_batch(split)
                logits, loss = model(X, Y)
                losses[k] = loss.item()
            out[split] = losses.mean()
        model.train()
        return out

    model = GPT(config)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    optimizer = model.configure_optimizers(0.1, args.lr, (0.9, 0.95), 'cpu')
    history = []
    X, Y = get_batch('train')
    for it in range(args.iters + 1):
        lr = get_lr(it)
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        if it % 3 == 0:
            losses = estimate_loss()
            history += [losses['train'].item(), losses['val'].item()]
            print(f"step {it}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
        for micro_step in range(args.accumulation):
            logits, loss = model(X, Y)
            loss = loss / args.accumulation
            X, Y = get_batch('train')
            loss.backward()
        mg.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        history.append(loss.item() * args.accumulation)
    model.eval()
    model.crop_block_size(8)
    prompt = mg.tensor([[1, 2, 3], [4, 4, 4]])
    out = model.generate(prompt, 10, temperature=0.8, top_k=5)
    history += out.flatten().tolist()
    print(f"generated: {out.tolist()}")
    return history, model


if __name__ == '__main__':
    main()
