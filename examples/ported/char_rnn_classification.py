"""pytorch/tutorials ``intermediate_source/char_rnn_classification_tutorial.py`` ("NLP From
Scratch: Classifying Names with a Character-Level RNN"), ported to minigrad_ckpt by a mechanical
rename; both of its versions:

    python examples/ported/char_rnn_classification.py --model rnn     # today's: nn.RNN, SGD, clipping
    python examples/ported/char_rnn_classification.py --model cell    # the earlier hand-written cell

``--model rnn``: ``CharRNN`` (``nn.RNN`` over a one-hot ``(len, 1, n_letters)`` line, ``h2o`` on the
last hidden state, ``nn.LogSoftmax``), batches of summed ``NLLLoss``es, ``clip_grad_norm_(..., 3)``
and ``optim.SGD``.  ``--model cell``: the earlier ``RNN`` with ``i2h``/``h2h``/``h2o`` and
``F.tanh``, one random example a step, and the update written ``p.data.add_(p.grad.data,
alpha=-learning_rate)``.  Both end with ``evaluate`` and ``topk(1)`` predictions.  Small: a few
names of four languages made here (no ``data/names/*.txt``), 16 hidden units, a few steps; the
lines that differ are listed in ``README.md``.
"""

import argparse
import random
import string
import unicodedata

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from local_data import default_dtype

allowed_characters = string.ascii_letters + " .,;'"
n_letters = len(allowed_characters)

NAMES = {
    "English": ["Smith", "Jones", "Taylor", "Brown", "Walker", "Wright"],
    "French": ["Dubois", "Lefèvre", "Moreau", "Girard", "Bérenger", "Fournier"],
    "Italian": ["Rossi", "Bianchi", "Romano", "Ricci", "Bruno", "Gallo"],
    "Japanese": ["Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Ito"],
}


# Turn a Unicode string to plain ASCII, thanks to https://stackoverflow.com/a/518232/2809427
def unicodeToAscii(s):
    return ''.join(
        c for c in unicodedata.normalize('NFD', s)
        if unicodedata.category(c) != 'Mn'
        and c in allowed_characters
    )


# Find letter index from all_letters, e.g. "a" = 0
def letterToIndex(letter):
    return allowed_characters.find(letter)


# Turn a line into a <line_length x 1 x n_letters>,
# or an array of one-hot letter vectors
def lineToTensor(line):
    tensor = mg.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


class NamesDataset:
    def __init__(self):
        labels_set = set()
        self.data = []
        self.data_tensors = []
        self.labels = []
        self.labels_tensors = []
        for label, lines in NAMES.items():
            labels_set.add(label)
            for name in lines:
                self.data.append(unicodeToAscii(name))
                self.data_tensors.append(lineToTensor(unicodeToAscii(name)))
                self.labels.append(label)

        # Cache the tensor representation of the labels
        self.labels_uniq = sorted(labels_set)
        for idx in range(len(self.labels)):
            temp_tensor = mg.tensor([self.labels_uniq.index(self.labels[idx])], dtype=mg.long)
            self.labels_tensors.append(temp_tensor)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        return self.labels_tensors[idx], self.data_tensors[idx], self.labels[idx], self.data[idx]


class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(CharRNN, self).__init__()

        self.rnn = nn.RNN(input_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, line_tensor):
        rnn_out, hidden = self.rnn(line_tensor)
        output = self.h2o(hidden[0])
        output = self.softmax(output)

        return output


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()

        self.hidden_size = hidden_size

        self.i2h = nn.Linear(input_size, hidden_size)
        self.h2h = nn.Linear(hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        hidden = F.tanh(self.i2h(input) + self.h2h(hidden))
        output = self.h2o(hidden)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return mg.zeros(1, self.hidden_size)


def label_from_output(output, output_labels):
    top_n, top_i = output.topk(1)
    label_i = top_i[0].item()
    return output_labels[label_i], label_i


def train(rnn, training_data, n_epoch=10, n_batch_size=64, learning_rate=0.2, criterion=nn.NLLLoss()):
    """Learn on a batch of training_data for a specified number of iterations and reporting thresholds"""
    all_losses = []
    rnn.train()
    optimizer = mg.optim.SGD(rnn.parameters(), lr=learning_rate)

    for iter in range(1, n_epoch + 1):
        rnn.zero_grad()  # clear the gradients

        # create some minibatches
        # we cannot use dataloaders because each of our names is a different length
        batches = list(range(len(training_data)))
        random.shuffle(batches)
        batches = np.array_split(batches, len(batches) // n_batch_size)

        for idx, batch in enumerate(batches):
            batch_loss = 0
            for i in batch:  # for each example in this batch
                (label_tensor, text_tensor, label, text) = training_data[i]
                output = rnn.forward(text_tensor)
                loss = criterion(output, label_tensor)
                batch_loss += loss

            # optimize parameters
            batch_loss.backward()
            nn.utils.clip_grad_norm_(rnn.parameters(), 3)
            optimizer.step()
            optimizer.zero_grad()

            all_losses.append(batch_loss.item() / len(batch))
    return all_losses


def train_cell(rnn, criterion, category_tensor, line_tensor, learning_rate):
    hidden = rnn.initHidden()

    rnn.zero_grad()

    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)

    loss = criterion(output, category_tensor)
    loss.backward()

    # Add parameters' gradients to their values, multiplied by learning rate
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)

    return output, loss.item()


def evaluate(rnn, line_tensor):
    if isinstance(rnn, CharRNN):
        return rnn(line_tensor)
    hidden = rnn.initHidden()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    return output


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["rnn", "cell"], default="rnn")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    random.seed(2024)
    with default_dtype(args.double):
        alldata = NamesDataset()
        n_labels = len(alldata.labels_uniq)
        model = (CharRNN if args.model == "rnn" else RNN)(n_letters, args.hidden, n_labels)
        if init is not None:  # a test hook: records or loads the starting weights
            init(args.model, model)
        if args.model == "rnn":
            history = train(model, alldata, n_epoch=args.epochs, n_batch_size=8, learning_rate=0.15)
        else:
            criterion = nn.NLLLoss()
            history = []
            for _ in range(args.epochs * 4):
                i = random.randint(0, len(alldata) - 1)
                label_tensor, text_tensor, _, _ = alldata[i]
                output, loss = train_cell(model, criterion, label_tensor, text_tensor, 0.005)
                history.append(loss)
        model.eval()
        with mg.no_grad():
            for name in ["Satoshi", "Jackson", "Dupont"]:
                output = evaluate(model, lineToTensor(name))
                guess, guess_i = label_from_output(output, alldata.labels_uniq)
                print(f"{name} -> {guess}")
                history += [guess_i] + output.flatten().tolist()
    return history, model


if __name__ == '__main__':
    main()
