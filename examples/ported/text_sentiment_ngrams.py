"""pytorch/tutorials ``beginner_source/text_sentiment_ngrams_tutorial.py`` ("Text classification
with the torchtext library"), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/text_sentiment_ngrams.py

``TextClassificationModel``: an ``nn.EmbeddingBag`` (mode ``"mean"``) fed one flat tensor of
tokens with the ``offsets`` of each text (``collate_batch``'s ``cumsum``), then a ``Linear``;
weights set by ``.data.uniform_`` and ``.data.zero_()``; ``CrossEntropyLoss``, ``SGD`` (lr 5),
``clip_grad_norm_(..., 0.1)`` and ``StepLR(optimizer, 1.0, gamma=0.1)`` stepped when the
validation accuracy falls; a ``random_split`` into training and validation sets, shuffled
``DataLoader``s; ``predict`` on one text with ``offsets`` ``tensor([0])``.  Small: the news
texts, tokenizer and vocabulary are made here (no ``AG_NEWS``, no torchtext), 8-wide embeddings,
a few epochs; the lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.utils.data import DataLoader
from minigrad_ckpt.utils.data.dataset import random_split
from local_data import default_dtype

device = mg.device("cpu")

TOPICS = {  # the label (1..4, as AG_NEWS's) and the words its texts are made of
    1: "world government election minister war peace country president",
    2: "sports game team win season player coach match",
    3: "business market stock company price bank trade profit",
    4: "science technology computer software research space data phone",
}
COMMON = "the a of in on to and is for with".split()
BATCH_SIZE = 8  # batch size for training


def news(n, seed):
    """(label, text) pairs like AG_NEWS's: a topic's words mixed with common ones."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        label = int(rng.integers(1, 5))
        words = TOPICS[label].split() + COMMON
        out.append((label, " ".join(words[i] for i in rng.integers(0, len(words), rng.integers(3, 9)))))
    return out


def get_tokenizer(name):
    assert name == "basic_english"
    return lambda line: line.lower().split()


def build_vocab_from_iterator(iterator, specials):
    """torchtext's vocabulary: the specials first, then the tokens by decreasing count, ties in order of appearance."""
    counts = {}
    for tokens in iterator:
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
    itos = specials + sorted((t for t in counts if t not in specials), key=lambda t: -counts[t])
    stoi = {t: i for i, t in enumerate(itos)}

    class Vocab:
        default = None

        def set_default_index(self, index):
            self.default = index

        def __call__(self, tokens):
            return [stoi.get(t, self.default) for t in tokens]

        def __len__(self):
            return len(itos)

    return Vocab()


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size, embed_dim, num_class):
        super(TextClassificationModel, self).__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, embed_dim, sparse=False)
        self.fc = nn.Linear(embed_dim, num_class)
        self.init_weights()

    def init_weights(self):
        initrange = 0.5
        self.embedding.weight.data.uniform_(-initrange, initrange)
        self.fc.weight.data.uniform_(-initrange, initrange)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        embedded = self.embedding(text, offsets)
        return self.fc(embedded)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--emsize", type=int, default=8)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    with default_dtype(args.double):
        return _run(args, init)


def _run(args, init):
    tokenizer = get_tokenizer("basic_english")
    train_iter, test_iter = news(40, seed=0), news(12, seed=1)

    def yield_tokens(data_iter):
        for _, text in data_iter:
            yield tokenizer(text)

    vocab = build_vocab_from_iterator(yield_tokens(train_iter), specials=["<unk>"])
    vocab.set_default_index(0)

    def text_pipeline(x):
        return vocab(tokenizer(x))

    def label_pipeline(x):
        return int(x) - 1

    def collate_batch(batch):
        label_list, text_list, offsets = [], [], [0]
        for _label, _text in batch:
            label_list.append(label_pipeline(_label))
            processed_text = mg.tensor(text_pipeline(_text), dtype=mg.int64)
            text_list.append(processed_text)
            offsets.append(processed_text.size(0))
        label_list = mg.tensor(label_list, dtype=mg.int64)
        offsets = mg.tensor(offsets[:-1]).cumsum(dim=0)
        text_list = mg.cat(text_list)
        return label_list.to(device), text_list.to(device), offsets.to(device)

    num_class = len(set([label for (label, text) in train_iter]))
    vocab_size = len(vocab)
    model = TextClassificationModel(vocab_size, args.emsize, num_class).to(device)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)

    criterion = mg.nn.CrossEntropyLoss()
    optimizer = mg.optim.SGD(model.parameters(), lr=5)
    scheduler = mg.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.1)
    history = []

    def train(dataloader):
        model.train()
        total_acc, total_count = 0, 0
        for idx, (label, text, offsets) in enumerate(dataloader):
            optimizer.zero_grad()
            predicted_label = model(text, offsets)
            loss = criterion(predicted_label, label)
            loss.backward()
            mg.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            optimizer.step()
            total_acc += (predicted_label.argmax(1) == label).sum().item()
            total_count += label.size(0)
            history.append(loss.item())
        return total_acc / total_count

    def evaluate(dataloader):
        model.eval()
        total_acc, total_count = 0, 0

        with mg.no_grad():
            for idx, (label, text, offsets) in enumerate(dataloader):
                predicted_label = model(text, offsets)
                loss = criterion(predicted_label, label)
                total_acc += (predicted_label.argmax(1) == label).sum().item()
                total_count += label.size(0)
                history.append(loss.item())
        return total_acc / total_count

    total_accu = None
    num_train = int(len(train_iter) * 0.75)
    split_train_, split_valid_ = random_split(train_iter, [num_train, len(train_iter) - num_train])

    train_dataloader = DataLoader(split_train_, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch)
    valid_dataloader = DataLoader(split_valid_, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch)
    test_dataloader = DataLoader(test_iter, batch_size=BATCH_SIZE, shuffle=True, collate_fn=collate_batch)

    for epoch in range(1, args.epochs + 1):
        train_acc = train(train_dataloader)
        accu_val = evaluate(valid_dataloader)
        if total_accu is not None and total_accu > accu_val:
            scheduler.step()
        else:
            total_accu = accu_val
        print(f"| end of epoch {epoch:3d} | train accuracy {train_acc:8.3f} | valid accuracy {accu_val:8.3f} "
              f"| lr {scheduler.get_last_lr()[0]:g}")
        history += [train_acc, accu_val, scheduler.get_last_lr()[0]]

    accu_test = evaluate(test_dataloader)
    print("test accuracy {:8.3f}".format(accu_test))

    def predict(text, text_pipeline):
        with mg.no_grad():
            text = mg.tensor(text_pipeline(text))
            output = model(text, mg.tensor([0]))
            return output.argmax(1).item() + 1

    history += [accu_test, predict("the team win the match", text_pipeline),
                predict("stock market price of the company", text_pipeline)]
    return history, model


if __name__ == '__main__':
    main()
