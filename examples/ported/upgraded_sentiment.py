"""bentrevett's "pytorch-sentiment-analysis", notebook 2 ("Upgraded Sentiment Analysis"), ported to
minigrad_ckpt by a mechanical rename.

    python examples/ported/upgraded_sentiment.py --rnn lstm

A multi-layer bidirectional LSTM over packed padded sequences (``pack_padded_sequence`` ->
``pad_packed_sequence``), an ``Embedding`` with ``padding_idx`` loaded from "pretrained" vectors
(``weight.data.copy_``, the ``<unk>``/``<pad>`` rows zeroed through ``weight.data[i] = ...``), the last
layer's two directions' final hidden states concatenated, ``BCEWithLogitsLoss``, ``Adam``, the
notebook's ``binary_accuracy`` and ``predict_sentiment``.  Made small: torchtext's IMDb and GloVe ->
``sentences``, a synthetic vocabulary of 20 words whose labels follow the count of "good" and "bad"
words, and fixed "pretrained" vectors; 2 layers of 8 hidden units, embeddings of 6, batches of 4, two
epochs.  The batches are not sorted by length (the notebook's ``BucketIterator`` sorts them within the
batch): ``pack_padded_sequence(..., enforce_sorted=False)`` sorts them.  ``--rnn gru`` runs the GRU
variant the notebook suggests (``hidden`` only); ``--double`` runs in float64; dropout is 0 by default
(two engines' masks differ).  The lines that differ from the notebook are listed in ``README.md``.
"""

import argparse
import math

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.optim as optim

WORDS = ["<unk>", "<pad>", "good", "great", "fine", "bad", "awful", "poor", "the", "a", "film", "movie",
         "plot", "was", "is", "and", "but", "very", "not", "actors"]
POSITIVE, NEGATIVE = {"good", "great", "fine"}, {"bad", "awful", "poor"}
UNK_IDX, PAD_IDX = 0, 1


def sentences(n, seed):
    """``n`` token lists of 3 to 9 words and their labels (1.0 where more good words than bad)."""
    data = []
    for i in range(n):
        length = 3 + (i * 7 + seed) % 7
        tokens = [WORDS[2 + (i * 13 + j * 5 + seed * 3 + (i * j) % 7) % (len(WORDS) - 2)] for j in range(length)]
        score = sum(t in POSITIVE for t in tokens) - sum(t in NEGATIVE for t in tokens)
        data.append((tokens, 1.0 if score > 0 or (score == 0 and i % 2) else 0.0))
    return data


def pretrained_vectors(dim):
    return mg.tensor([[math.sin(0.37 * (i + 1) * (j + 1)) for j in range(dim)] for i in range(len(WORDS))])


def batches(data, batch_size, dtype):
    for start in range(0, len(data), batch_size):
        chunk = data[start:start + batch_size]
        lengths = [len(tokens) for tokens, _ in chunk]
        text = mg.full((max(lengths), len(chunk)), PAD_IDX, dtype=mg.long)
        for b, (tokens, _) in enumerate(chunk):
            text[:len(tokens), b] = mg.tensor([WORDS.index(t) for t in tokens])
        yield text, mg.tensor(lengths), mg.tensor([label for _, label in chunk], dtype=dtype)


class RNN(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_dim, output_dim, n_layers,
                 bidirectional, dropout, pad_idx, rnn="lstm"):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_idx)
        kind = nn.LSTM if rnn == "lstm" else nn.GRU
        self.rnn = kind(embedding_dim,
                        hidden_dim,
                        num_layers=n_layers,
                        bidirectional=bidirectional,
                        dropout=dropout)
        self.fc = nn.Linear(hidden_dim * 2, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, text, text_lengths):
        # text = [sent len, batch size]
        embedded = self.dropout(self.embedding(text))
        # embedded = [sent len, batch size, emb dim]
        # pack sequence; lengths need to be on CPU!
        packed_embedded = nn.utils.rnn.pack_padded_sequence(embedded, text_lengths.to('cpu'),
                                                            enforce_sorted=False)
        if isinstance(self.rnn, nn.LSTM):
            packed_output, (hidden, cell) = self.rnn(packed_embedded)
        else:
            packed_output, hidden = self.rnn(packed_embedded)
        # unpack sequence
        output, output_lengths = nn.utils.rnn.pad_packed_sequence(packed_output)
        # output = [sent len, batch size, hid dim * num directions]
        # hidden = [num layers * num directions, batch size, hid dim]
        hidden = self.dropout(mg.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1))
        # hidden = [batch size, hid dim * num directions]
        return self.fc(hidden), output.abs().sum() + output_lengths.sum()


def binary_accuracy(preds, y):
    """Returns accuracy per batch, i.e. if you get 8/10 right, this returns 0.8, NOT 8"""
    # round predictions to the closest integer
    rounded_preds = mg.round(mg.sigmoid(preds))
    correct = (rounded_preds == y).float()  # convert into float for division
    acc = correct.sum() / len(correct)
    return acc


def train(model, iterator, optimizer, criterion):
    epoch_loss = 0
    epoch_acc = 0
    checks = 0
    model.train()
    for n, (text, text_lengths, label) in enumerate(iterator, 1):
        optimizer.zero_grad()
        out, check = model(text, text_lengths)
        predictions = out.squeeze(1)
        loss = criterion(predictions, label)
        acc = binary_accuracy(predictions, label)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        epoch_acc += acc.item()
        checks += check.item()
    return epoch_loss / n, epoch_acc / n, checks


def evaluate(model, iterator, criterion):
    epoch_loss = 0
    epoch_acc = 0
    model.eval()
    with mg.no_grad():
        for n, (text, text_lengths, label) in enumerate(iterator, 1):
            predictions = model(text, text_lengths)[0].squeeze(1)
            loss = criterion(predictions, label)
            acc = binary_accuracy(predictions, label)
            epoch_loss += loss.item()
            epoch_acc += acc.item()
    return epoch_loss / n, epoch_acc / n


def predict_sentiment(model, sentence, dtype):
    model.eval()
    tokenized = sentence.split()
    indexed = [WORDS.index(t) if t in WORDS else UNK_IDX for t in tokenized]
    length = [len(indexed)]
    tensor = mg.LongTensor(indexed)
    tensor = tensor.unsqueeze(1)
    length_tensor = mg.LongTensor(length)
    prediction = mg.sigmoid(model(tensor, length_tensor)[0])
    return prediction.item()


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="upgraded sentiment analysis")
    parser.add_argument("--rnn", default="lstm", choices=["lstm", "gru"])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    EMBEDDING_DIM, HIDDEN_DIM, OUTPUT_DIM, N_LAYERS, BIDIRECTIONAL = 6, 8, 1, 2, True
    model = RNN(len(WORDS), EMBEDDING_DIM, HIDDEN_DIM, OUTPUT_DIM, N_LAYERS, BIDIRECTIONAL, args.dropout, PAD_IDX,
                args.rnn).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init("model", model)
    pretrained_embeddings = pretrained_vectors(EMBEDDING_DIM)
    model.embedding.weight.data.copy_(pretrained_embeddings)
    model.embedding.weight.data[UNK_IDX] = mg.zeros(EMBEDDING_DIM)
    model.embedding.weight.data[PAD_IDX] = mg.zeros(EMBEDDING_DIM)
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    criterion = nn.BCEWithLogitsLoss()
    train_data, valid_data = sentences(16, 0), sentences(8, 1)
    history = []
    for epoch in range(args.epochs):
        train_loss, train_acc, checks = train(model, batches(train_data, 4, dtype), optimizer, criterion)
        valid_loss, valid_acc = evaluate(model, batches(valid_data, 4, dtype), criterion)
        history += [train_loss, train_acc, checks, valid_loss, valid_acc]
        print(f'Epoch: {epoch + 1:02} | Train Loss: {train_loss:.3f} | Train Acc: {train_acc * 100:.2f}% | '
              f'Val. Loss: {valid_loss:.3f} | Val. Acc: {valid_acc * 100:.2f}%')
    history.append(predict_sentiment(model, "This film is terrible", dtype))
    history.append(predict_sentiment(model, "the film was very good and great", dtype))
    return history, model


if __name__ == "__main__":
    main()
