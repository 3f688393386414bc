"""pytorch/examples ``word_language_model`` (``model.py``'s ``RNNModel`` and ``main.py``'s
loop), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/word_language_model.py --model LSTM --epochs 1

An embedding, a multi-layer LSTM or GRU with dropout between layers, a decoder whose weight
can be tied to the embedding's, truncated backpropagation through time (the hidden state is
detached between batches), ``clip_grad_norm_`` and plain SGD by hand.  The corpus is a small
made-up one (no download); the lines that differ are listed in ``README.md``.
"""

import argparse
import math

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F


class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                raise ValueError('When using the tied flag, nhid must be equal to emsize')
            self.decoder.weight = self.encoder.weight
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)


def corpus(n_tokens, ntoken, seed=0):
    """A token stream with structure to learn: each word mostly follows from the one before."""
    rng = np.random.default_rng(seed)
    nxt = rng.integers(0, ntoken, ntoken)
    ids = [0]
    for _ in range(n_tokens - 1):
        ids.append(int(nxt[ids[-1]]) if rng.random() < 0.8 else int(rng.integers(0, ntoken)))
    return mg.tensor(ids, dtype=mg.long)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, mg.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i+seq_len]
    target = source[i+1:i+1+seq_len].view(-1)
    return data, target


def evaluate(model, criterion, data_source, args):
    model.eval()
    total_loss = 0.
    hidden = model.init_hidden(args.eval_batch_size)
    with mg.no_grad():
        for i in range(0, data_source.size(0) - 1, args.bptt):
            data, targets = get_batch(data_source, i, args.bptt)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train(model, criterion, train_data, lr, epoch, args):
    model.train()
    losses = []
    hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i, args.bptt)
        # Starting each batch, we detach the hidden state from how it was previously produced.
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        # `clip_grad_norm` helps prevent the exploding gradient problem in RNNs / LSTMs.
        mg.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        losses.append(loss.item())
        print('| epoch {:3d} | {:3d} batches | lr {:02.2f} | loss {:5.2f} | ppl {:8.2f}'.format(
            epoch, batch, lr, loss.item(), math.exp(loss.item())))
    return losses


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='RNN/LSTM/GRU Language Model')
    parser.add_argument('--model', type=str, default='LSTM')
    parser.add_argument('--emsize', type=int, default=16)
    parser.add_argument('--nhid', type=int, default=16)
    parser.add_argument('--nlayers', type=int, default=2)
    parser.add_argument('--lr', type=float, default=20)
    parser.add_argument('--clip', type=float, default=0.25)
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--batch_size', type=int, default=4)
    parser.add_argument('--eval_batch_size', type=int, default=2)
    parser.add_argument('--bptt', type=int, default=7)
    parser.add_argument('--dropout', type=float, default=0.2)
    parser.add_argument('--tied', action='store_true')
    parser.add_argument('--double', action='store_true')
    parser.add_argument('--seed', type=int, default=1111)
    args = parser.parse_args(argv)
    mg.manual_seed(args.seed)
    ntokens = 12
    train_data = batchify(corpus(120, ntokens, 0), args.batch_size)
    val_data = batchify(corpus(40, ntokens, 1), args.eval_batch_size)
    model = RNNModel(args.model, ntokens, args.emsize, args.nhid, args.nlayers, args.dropout, args.tied)
    if args.double:
        model = model.double()
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    criterion = nn.NLLLoss()
    lr = args.lr
    best_val_loss = None
    history = []
    for epoch in range(1, args.epochs + 1):
        history += train(model, criterion, train_data, lr, epoch, args)
        val_loss = evaluate(model, criterion, val_data, args)
        history.append(val_loss)
        if not best_val_loss or val_loss < best_val_loss:
            best_val_loss = val_loss
        else:
            lr /= 4.0
    return history, model


if __name__ == '__main__':
    main()
