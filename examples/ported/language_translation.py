"""pytorch/examples ``language_translation`` (``src/model.py``, the masks and loops of ``main.py``
and the batching of ``src/data.py``), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/language_translation.py --epochs 2

A sequence-to-sequence ``nn.Transformer`` (sequence first): token embeddings plus a sinusoidal
positional encoding (a buffer filled by strided assignment), the masks of ``create_mask`` -- a
float causal ``tgt_mask`` built with ``triu``/``masked_fill(-inf)``, a bool ``src_mask``, the
padding masks from ``pad_sequence``-ed batches -- ``CrossEntropyLoss(ignore_index=<pad>)``,
Adam with ``betas`` and ``eps``, and greedy decoding through ``model.encode`` / ``model.decode``
with the causal mask cast to bool.  Small: the "languages" are made here (the target sentence
is the source reversed, in another vocabulary), the model is 16 wide with one layer each side,
and dropout is 0 (two engines' masks differ); the lines that differ are listed in ``README.md``.
"""

import argparse
import math

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn.utils.rnn import pad_sequence
from minigrad_ckpt.utils.data import DataLoader

PAD_IDX, BOS_IDX, EOS_IDX = 1, 2, 3
DEVICE = mg.device("cpu")


class PositionalEncoding(nn.Module):
    def __init__(self, emb_size, dropout, maxlen=5000):
        super(PositionalEncoding, self).__init__()
        den = mg.exp(- mg.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = mg.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = mg.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = mg.sin(pos * den)
        pos_embedding[:, 1::2] = mg.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('pos_embedding', pos_embedding)

    def forward(self, token_embedding):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class Translator(nn.Module):
    def __init__(self, num_encoder_layers, num_decoder_layers, embed_size, num_heads,
                 src_vocab_size, tgt_vocab_size, dim_feedforward, dropout):
        super(Translator, self).__init__()
        self.src_embedding = nn.Embedding(src_vocab_size, embed_size)
        self.tgt_embedding = nn.Embedding(tgt_vocab_size, embed_size)
        self.pos_enc = PositionalEncoding(embed_size, dropout)
        self.transformer = nn.Transformer(
            d_model=embed_size,
            nhead=num_heads,
            num_encoder_layers=num_encoder_layers,
            num_decoder_layers=num_decoder_layers,
            dim_feedforward=dim_feedforward,
            dropout=dropout
        )
        self.ff = nn.Linear(embed_size, tgt_vocab_size)
        self._init_weights()

    def _init_weights(self):
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, memory_key_padding_mask):
        src_emb = self.pos_enc(self.src_embedding(src))
        tgt_emb = self.pos_enc(self.tgt_embedding(trg))
        outs = self.transformer(
            src_emb,
            tgt_emb,
            src_mask,
            tgt_mask,
            None,
            src_padding_mask,
            tgt_padding_mask,
            memory_key_padding_mask
        )
        return self.ff(outs)

    def encode(self, src, src_mask):
        embed = self.src_embedding(src)
        pos_enc = self.pos_enc(embed)
        return self.transformer.encoder(pos_enc, src_mask)

    def decode(self, tgt, memory, tgt_mask):
        embed = self.tgt_embedding(tgt)
        pos_enc = self.pos_enc(embed)
        return self.transformer.decoder(pos_enc, memory, tgt_mask)


def generate_square_subsequent_mask(size, device):
    mask = (mg.triu(mg.ones((size, size), device=device)) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))
    return mask


def create_mask(src, tgt, pad_idx, device):
    src_seq_len = src.shape[0]
    tgt_seq_len = tgt.shape[0]
    tgt_mask = generate_square_subsequent_mask(tgt_seq_len, device)
    src_mask = mg.zeros((src_seq_len, src_seq_len), device=device).type(mg.bool)
    src_padding_mask = (src == pad_idx).transpose(0, 1)
    tgt_padding_mask = (tgt == pad_idx).transpose(0, 1)
    return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask


def sentence_pairs(n, seed, vocab=12):
    """(source, target) token lists: the target is the source reversed, each token shifted by 1."""
    rng = np.random.default_rng(seed)
    pairs = []
    for _ in range(n):
        src = [int(t) for t in rng.integers(4, vocab, rng.integers(2, 6))]
        pairs.append((src, [min(t + 1, vocab - 1) for t in reversed(src)]))
    return pairs


def _tensor_transform(token_ids):
    return mg.cat((mg.tensor([BOS_IDX]), mg.tensor(token_ids), mg.tensor([EOS_IDX])))


def _collate_fn(batch):
    src_batch, tgt_batch = [], []
    for src_sample, tgt_sample in batch:
        src_batch.append(_tensor_transform(src_sample))
        tgt_batch.append(_tensor_transform(tgt_sample))
    src_batch = pad_sequence(src_batch, padding_value=PAD_IDX)
    tgt_batch = pad_sequence(tgt_batch, padding_value=PAD_IDX)
    return src_batch, tgt_batch


def greedy_decode(model, src, src_mask, max_len, start_symbol, end_symbol):
    src = src.to(DEVICE)
    src_mask = src_mask.to(DEVICE)
    memory = model.encode(src, src_mask)
    ys = mg.ones(1, 1).fill_(start_symbol).type(mg.long).to(DEVICE)
    for _ in range(max_len - 1):
        memory = memory.to(DEVICE)
        tgt_mask = (generate_square_subsequent_mask(ys.size(0), DEVICE).type(mg.bool)).to(DEVICE)
        out = model.decode(ys, memory, tgt_mask)
        out = out.transpose(0, 1)
        prob = model.ff(out[:, -1])
        _, next_word = mg.max(prob, dim=1)
        next_word = next_word.item()
        ys = mg.cat([ys, mg.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == end_symbol:
            break
    return ys


def run_epoch(model, dl, loss_fn, optim=None):
    losses = 0
    model.train(optim is not None)
    for src, tgt in dl:
        src = src.to(DEVICE)
        tgt = tgt.to(DEVICE)
        tgt_input = tgt[:-1, :]
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input, PAD_IDX, DEVICE)
        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        if optim is not None:
            optim.zero_grad()
            loss.backward()
            optim.step()
        losses += loss.item()
    return losses / len(list(dl))


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--dim", type=int, default=16)
    parser.add_argument("--ff_dim", type=int, default=32)
    parser.add_argument("--attn_heads", type=int, default=2)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args(argv)
    mg.manual_seed(opts.seed)
    train_dl = DataLoader(sentence_pairs(12, seed=0), batch_size=opts.batch, collate_fn=_collate_fn)
    valid_dl = DataLoader(sentence_pairs(8, seed=1), batch_size=opts.batch, collate_fn=_collate_fn)

    model = Translator(num_encoder_layers=1, num_decoder_layers=1, embed_size=opts.dim,
                       num_heads=opts.attn_heads, src_vocab_size=12, tgt_vocab_size=12,
                       dim_feedforward=opts.ff_dim, dropout=opts.dropout).to(DEVICE)
    if init is not None:  # a test hook: records or loads the starting weights
        init('translator', model)
    loss_fn = mg.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
    optim = mg.optim.Adam(model.parameters(), lr=opts.lr, betas=(0.9, 0.98), eps=1e-9)
    history = []
    for epoch in range(1, opts.epochs + 1):
        train_loss = run_epoch(model, train_dl, loss_fn, optim)
        with mg.no_grad():
            val_loss = run_epoch(model, valid_dl, loss_fn)
        print(f"Epoch: {epoch}, Train loss: {train_loss:.3f}, Val loss: {val_loss:.3f}")
        history += [train_loss, val_loss]

    model.eval()
    src = _tensor_transform([4, 5, 6]).view(-1, 1)
    num_tokens = src.shape[0]
    src_mask = (mg.zeros(num_tokens, num_tokens)).type(mg.bool)
    with mg.no_grad():
        tgt_tokens = greedy_decode(model, src, src_mask, max_len=num_tokens + 5,
                                   start_symbol=BOS_IDX, end_symbol=EOS_IDX).flatten()
    output_as_list = list(tgt_tokens.cpu().numpy())
    print(" ".join(str(t) for t in output_as_list))
    return history + [float(t) for t in output_as_list], model


if __name__ == '__main__':
    main()
