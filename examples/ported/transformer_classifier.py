"""A small transformer text classifier in the style of the PyTorch tutorials
(``nn.TransformerEncoder`` over token embeddings), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/transformer_classifier.py --epochs 2

Variable-length sequences from a custom ``Dataset`` are padded by a ``collate_fn``
(``nn.utils.rnn.pad_sequence``), the padding is hidden from attention with
``src_key_padding_mask`` and from the mean pooling with a mask; pre-norm GELU encoder
layers, ``CrossEntropyLoss`` with label smoothing, ``AdamW`` under a linear warmup
(``LambdaLR``) and gradient clipping.  The task, made here: is token 1 among the tokens?
The lines that differ are listed in ``README.md``.
"""

import argparse
import math

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
from minigrad_ckpt.nn.utils.rnn import pad_sequence
from minigrad_ckpt.utils.data import DataLoader, Dataset

PAD = 0


class TokenSequences(Dataset):
    def __init__(self, n, vocab=10, seed=0):
        rng = np.random.default_rng(seed)
        self.items = []
        for _ in range(n):
            length = int(rng.integers(3, 9))
            tokens = rng.integers(2, vocab, length)
            label = int(rng.random() < 0.5)
            if label:
                tokens[rng.integers(0, length)] = 1
            self.items.append((mg.tensor(tokens.tolist()), label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


def collate_batch(batch):
    tokens = pad_sequence([t for t, _ in batch], batch_first=True, padding_value=PAD)
    labels = mg.tensor([label for _, label in batch], dtype=mg.int64)
    return tokens, labels


class TransformerClassifier(nn.Module):
    def __init__(self, vocab=10, d_model=16, nhead=2, d_hid=32, nlayers=2, max_len=16, nclass=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model, padding_idx=PAD)
        self.pos = nn.Parameter(mg.zeros(1, max_len, d_model))
        layer = nn.TransformerEncoderLayer(d_model, nhead, d_hid, dropout=0.0, activation='gelu',
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, nclass)
        self.d_model = d_model

    def forward(self, src):
        pad_mask = src == PAD
        x = self.embedding(src) * math.sqrt(self.d_model) + self.pos[:, :src.size(1)]
        x = self.encoder(x, src_key_padding_mask=pad_mask)
        keep = (~pad_mask).unsqueeze(-1).to(x.dtype)
        pooled = (x * keep).sum(dim=1) / keep.sum(dim=1).clamp(min=1)
        return self.head(self.norm(pooled))


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--batch-size', type=int, default=8)
    parser.add_argument('--lr', type=float, default=3e-3)
    parser.add_argument('--warmup', type=int, default=3)
    parser.add_argument('--seed', type=int, default=0)
    args = parser.parse_args(argv)
    mg.manual_seed(args.seed)
    train_loader = DataLoader(TokenSequences(40, seed=0), batch_size=args.batch_size, shuffle=False,
                              collate_fn=collate_batch, drop_last=True)
    test_loader = DataLoader(TokenSequences(24, seed=1), batch_size=12, collate_fn=collate_batch)
    model = TransformerClassifier()
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = mg.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98), weight_decay=0.01)
    scheduler = mg.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / args.warmup))
    history = []
    for epoch in range(1, args.epochs + 1):
        model.train()
        for tokens, labels in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(tokens), labels)
            loss.backward()
            mg.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            history.append(loss.item())
        model.eval()
        correct, total = 0, 0
        with mg.no_grad():
            for tokens, labels in test_loader:
                logits = model(tokens)
                correct += (logits.argmax(1) == labels).sum().item()
                total += labels.size(0)
                history.append(nn.functional.cross_entropy(logits, labels).item())
        print('| epoch {:3d} | lr {:.5f} | loss {:.4f} | accuracy {}/{}'.format(
            epoch, scheduler.get_last_lr()[0], history[-1], correct, total))
    return history, model


if __name__ == '__main__':
    main()
