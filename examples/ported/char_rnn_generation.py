"""pytorch/tutorials ``intermediate_source/char_rnn_generation_tutorial.py`` ("NLP From Scratch:
Generating Names with a Character-Level RNN"), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/char_rnn_generation.py

The conditional ``RNN``: the category's one-hot, the letter's one-hot and the hidden state
concatenated into ``i2h``/``i2o``, then ``o2o``, dropout and ``nn.LogSoftmax``; trained one random
name at a time with the loss summed from ``torch.Tensor([0])`` by ``loss += l``, the target made
``LongTensor`` and ``unsqueeze_``-d in place, and the update ``p.data.add_(p.grad.data,
alpha=-learning_rate)``; names sampled by ``topk(1)`` under ``no_grad``.  Small: a few names of
three languages made here, 16 hidden units, a few steps, dropout 0 by default (two engines'
masks differ); the lines that differ are listed in ``README.md``.
"""

import argparse
import random
import string
import unicodedata

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
from local_data import default_dtype

all_letters = string.ascii_letters + " .,;'-"
n_letters = len(all_letters) + 1  # Plus EOS marker

category_lines = {
    "German": ["Müller", "Schmidt", "Schneider", "Fischer", "Weber"],
    "Spanish": ["García", "Martínez", "López", "Sánchez", "Pérez"],
    "Russian": ["Ivanov", "Smirnov", "Kuznetsov", "Popov", "Sokolov"],
}
all_categories = list(category_lines)
n_categories = len(all_categories)
max_length = 8


# Turn a Unicode string to plain ASCII, thanks to https://stackoverflow.com/a/518232/2809427
def unicodeToAscii(s):
    return ''.join(
        c for c in unicodedata.normalize('NFD', s)
        if unicodedata.category(c) != 'Mn'
        and c in all_letters
    )


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, dropout=0.1):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size

        self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
        self.o2o = nn.Linear(hidden_size + output_size, output_size)
        self.dropout = nn.Dropout(dropout)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, category, input, hidden):
        input_combined = mg.cat((category, input, hidden), 1)
        hidden = self.i2h(input_combined)
        output = self.i2o(input_combined)
        output_combined = mg.cat((hidden, output), 1)
        output = self.o2o(output_combined)
        output = self.dropout(output)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return mg.zeros(1, self.hidden_size)


# Random item from a list
def randomChoice(lst):
    return lst[random.randint(0, len(lst) - 1)]


# Get a random category and random line from that category
def randomTrainingPair():
    category = randomChoice(all_categories)
    line = unicodeToAscii(randomChoice(category_lines[category]))
    return category, line


# One-hot vector for category
def categoryTensor(category):
    li = all_categories.index(category)
    tensor = mg.zeros(1, n_categories)
    tensor[0][li] = 1
    return tensor


# One-hot matrix of first to last letters (not including EOS) for input
def inputTensor(line):
    tensor = mg.zeros(len(line), 1, n_letters)
    for li in range(len(line)):
        letter = line[li]
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


# ``LongTensor`` of second letter to end (EOS) for target
def targetTensor(line):
    letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
    letter_indexes.append(n_letters - 1)  # EOS
    return mg.LongTensor(letter_indexes)


# Make category, input, and target tensors from a random category, line pair
def randomTrainingExample():
    category, line = randomTrainingPair()
    category_tensor = categoryTensor(category)
    input_line_tensor = inputTensor(line)
    target_line_tensor = targetTensor(line)
    return category_tensor, input_line_tensor, target_line_tensor


def train(rnn, criterion, learning_rate, category_tensor, input_line_tensor, target_line_tensor):
    target_line_tensor.unsqueeze_(-1)
    hidden = rnn.initHidden()

    rnn.zero_grad()

    loss = mg.Tensor([0])  # you can also just simply use ``loss = 0``

    for i in range(input_line_tensor.size(0)):
        output, hidden = rnn(category_tensor, input_line_tensor[i], hidden)
        l = criterion(output, target_line_tensor[i])  # noqa: E741 (the tutorial's name)
        loss += l

    loss.backward()

    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)

    return output, loss.item() / input_line_tensor.size(0)


# Sample from a category and starting letter
def sample(rnn, category, start_letter='A'):
    with mg.no_grad():  # no need to track history in sampling
        category_tensor = categoryTensor(category)
        input = inputTensor(start_letter)
        hidden = rnn.initHidden()

        output_name = start_letter

        for i in range(max_length):
            output, hidden = rnn(category_tensor, input[0], hidden)
            topv, topi = output.topk(1)
            topi = topi[0][0]
            if topi == n_letters - 1:
                break
            else:
                letter = all_letters[topi]
                output_name += letter
            input = inputTensor(letter)

        return output_name


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=6)
    parser.add_argument("--hidden", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--dropout", type=float, default=0.0)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    random.seed(0)
    with default_dtype(args.double):
        rnn = RNN(n_letters, args.hidden, n_letters, args.dropout)
        if init is not None:  # a test hook: records or loads the starting weights
            init('rnn', rnn)
        criterion = nn.NLLLoss()
        history = []
        for iter in range(1, args.iters + 1):
            output, loss = train(rnn, criterion, args.lr, *randomTrainingExample())
            history.append(loss)
        rnn.eval()
        names = [sample(rnn, category, start) for category, start in
                 [("Russian", "R"), ("German", "G"), ("Spanish", "S")]]
        print(names)
        history += [ord(c) for c in ''.join(names)] + [len(n) for n in names]
    return history, rnn


if __name__ == '__main__':
    main()
