"""pytorch/tutorials ``beginner_source/transformer_tutorial.py`` ("Language Modeling with
``nn.Transformer`` and torchtext"), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/transformer_lm.py

``TransformerModel``: an ``Embedding`` scaled by ``sqrt(d_model)``, a ``PositionalEncoding`` whose
``(max_len, 1, d_model)`` buffer is filled by strided assignment, a ``TransformerEncoder`` (sequence
first) under ``nn.Transformer.generate_square_subsequent_mask``, and a ``Linear`` to the vocabulary;
``batchify`` (``view(bsz, seq_len).t().contiguous()``), ``get_batch``, ``CrossEntropyLoss``, ``SGD``
(lr 5) with ``clip_grad_norm_(..., 0.5)`` and ``StepLR(optimizer, 1.0, gamma=0.95)``; the best
model's ``state_dict`` saved by ``torch.save`` into a temporary directory and loaded back for the
test.  Small: a token stream made here instead of WikiText-2, 16 wide, 2 layers, ``bptt`` 6,
dropout 0 by default (two engines' masks differ); the lines that differ are listed in
``README.md``.
"""

import argparse
import math
import os
from tempfile import TemporaryDirectory
from typing import Tuple

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import Tensor, nn
from minigrad_ckpt.nn import TransformerEncoder, TransformerEncoderLayer
from local_data import default_dtype
from text_sentiment_ngrams import build_vocab_from_iterator, get_tokenizer

device = mg.device("cpu")


class TransformerModel(nn.Module):

    def __init__(self, ntoken: int, d_model: int, nhead: int, d_hid: int,
                 nlayers: int, dropout: float = 0.5):
        super().__init__()
        self.model_type = 'Transformer'
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)

        self.init_weights()

    def init_weights(self) -> None:
        initrange = 0.1
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.linear.bias.data.zero_()
        self.linear.weight.data.uniform_(-initrange, initrange)

    def forward(self, src: Tensor, src_mask: Tensor = None) -> Tensor:
        """
        Arguments:
            src: Tensor, shape ``[seq_len, batch_size]``
            src_mask: Tensor, shape ``[seq_len, seq_len]``

        Returns:
            output Tensor of shape ``[seq_len, batch_size, ntoken]``
        """
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            """Generate a square causal mask for the sequence. The masked positions are filled with float('-inf').
            Unmasked positions are filled with float(0.0).
            """
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src)).to(device)
        output = self.transformer_encoder(src, src_mask)
        output = self.linear(output)
        return output


class PositionalEncoding(nn.Module):

    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 64):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)

        position = mg.arange(max_len).unsqueeze(1)
        div_term = mg.exp(mg.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = mg.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = mg.sin(position * div_term)
        pe[:, 0, 1::2] = mg.cos(position * div_term)
        self.register_buffer('pe', pe)

    def forward(self, x: Tensor) -> Tensor:
        """
        Arguments:
            x: Tensor, shape ``[seq_len, batch_size, embedding_dim]``
        """
        x = x + self.pe[:x.size(0)]
        return self.dropout(x)


def corpus(n_lines, seed):
    """Lines of words like WikiText's: a few phrases, chosen at random, some lines empty."""
    phrases = ["the cat sat on the mat", "a dog ran in the park", "the sun is hot", "", "we like to read books"]
    rng = np.random.default_rng(seed)
    return [phrases[i] for i in rng.integers(0, len(phrases), n_lines)]


def batchify(data: Tensor, bsz: int) -> Tensor:
    """Divides the data into ``bsz`` separate sequences, removing extra elements
    that wouldn't cleanly fit.

    Arguments:
        data: Tensor, shape ``[N]``
        bsz: int, batch size

    Returns:
        Tensor of shape ``[N // bsz, bsz]``
    """
    seq_len = data.size(0) // bsz
    data = data[:seq_len * bsz]
    data = data.view(bsz, seq_len).t().contiguous()
    return data.to(device)


def get_batch(source: Tensor, i: int, bptt: int) -> Tuple[Tensor, Tensor]:
    """
    Arguments:
        source: Tensor, shape ``[full_seq_len, batch_size]``
        i: int

    Returns:
        tuple (data, target), where data has shape ``[seq_len, batch_size]`` and
        target has shape ``[seq_len * batch_size]``
    """
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].reshape(-1)
    return data, target


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--bptt", type=int, default=6)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    with default_dtype(args.double):
        return _run(args, init)


def _run(args, init):
    mg.manual_seed(0)
    train_iter = corpus(24, seed=0)
    tokenizer = get_tokenizer('basic_english')
    vocab = build_vocab_from_iterator(map(tokenizer, train_iter), specials=['<unk>'])
    vocab.set_default_index(0)

    def data_process(raw_text_iter) -> Tensor:
        """Converts raw text into a flat Tensor."""
        data = [mg.tensor(vocab(tokenizer(item)), dtype=mg.long) for item in raw_text_iter]
        return mg.cat(tuple(filter(lambda t: t.numel() > 0, data)))

    train_data = data_process(train_iter)
    val_data = data_process(corpus(8, seed=1))
    test_data = data_process(corpus(8, seed=2))
    batch_size = 4
    eval_batch_size = 2
    train_data = batchify(train_data, batch_size)  # shape ``[seq_len, batch_size]``
    val_data = batchify(val_data, eval_batch_size)
    test_data = batchify(test_data, eval_batch_size)

    ntokens = len(vocab)  # size of vocabulary
    emsize = 16  # embedding dimension
    d_hid = 32  # dimension of the feedforward network model in ``nn.TransformerEncoder``
    nlayers = 2  # number of ``nn.TransformerEncoderLayer`` in ``nn.TransformerEncoder``
    nhead = 2  # number of heads in ``nn.MultiheadAttention``
    model = TransformerModel(ntokens, emsize, nhead, d_hid, nlayers, args.dropout).to(device)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)

    criterion = nn.CrossEntropyLoss()
    lr = 5.0  # learning rate
    optimizer = mg.optim.SGD(model.parameters(), lr=lr)
    scheduler = mg.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)
    history = []

    def train(model: nn.Module) -> None:
        model.train()  # turn on train mode
        for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
            data, targets = get_batch(train_data, i, args.bptt)
            output = model(data)
            output_flat = output.view(-1, ntokens)
            loss = criterion(output_flat, targets)

            optimizer.zero_grad()
            loss.backward()
            mg.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            history.append(loss.item())

    def evaluate(model: nn.Module, eval_data: Tensor) -> float:
        model.eval()  # turn on evaluation mode
        total_loss = 0.
        with mg.no_grad():
            for i in range(0, eval_data.size(0) - 1, args.bptt):
                data, targets = get_batch(eval_data, i, args.bptt)
                seq_len = data.size(0)
                output = model(data)
                output_flat = output.view(-1, ntokens)
                total_loss += seq_len * criterion(output_flat, targets).item()
        return total_loss / (len(eval_data) - 1)

    best_val_loss = float('inf')
    with TemporaryDirectory() as tempdir:
        best_model_params_path = os.path.join(tempdir, "best_model_params.pt")

        for epoch in range(1, args.epochs + 1):
            train(model)
            val_loss = evaluate(model, val_data)
            val_ppl = math.exp(val_loss)
            print(f'| end of epoch {epoch:3d} | valid loss {val_loss:5.2f} | valid ppl {val_ppl:8.2f}')
            history += [val_loss, scheduler.get_last_lr()[0]]

            if val_loss < best_val_loss:
                best_val_loss = val_loss
                mg.save(model.state_dict(), best_model_params_path)

            scheduler.step()
        model.load_state_dict(mg.load(best_model_params_path))  # load best model states

    test_loss = evaluate(model, test_data)
    test_ppl = math.exp(test_loss)
    print(f'| End of training | test loss {test_loss:5.2f} | test ppl {test_ppl:8.2f}')
    return history + [test_loss], model


if __name__ == '__main__':
    main()
