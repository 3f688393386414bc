"""The names the makemore ports train on: 50 of ``names.txt``'s (the first names of the US Social Security
records that Karpathy's makemore series reads with ``open('names.txt', 'r').read().splitlines()``), with a
few more so that every letter of the alphabet appears and the vocabulary is the series' 27 characters;
and the dataset the notebooks of parts 2 to 5 build from them (``dataset``)."""

import argparse
import random

import minigrad_ckpt as mg

WORDS = """emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily elizabeth mila ella
avery sofia camila aria scarlett victoria madison luna grace chloe penelope layla riley zoey nora lily eleanor
hannah lillian addison aubrey ellie stella natalie zoe leah hazel violet aurora savannah audrey brooklyn bella
claire skylar jaxon quinn felix wyatt kai""".split()


def dataset(block_size):
    """The notebooks' vocabulary and ``build_dataset``: each name's contexts of ``block_size`` characters
    (``.`` padded) and the next character, split 80/10/10 after ``random.seed(42); random.shuffle(words)``."""
    words = list(WORDS)
    chars = sorted(list(set(''.join(words))))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi['.'] = 0
    itos = {i: s for s, i in stoi.items()}
    vocab_size = len(itos)

    def build_dataset(words):
        X, Y = [], []
        for w in words:
            context = [0] * block_size
            for ch in w + '.':
                ix = stoi[ch]
                X.append(context)
                Y.append(ix)
                context = context[1:] + [ix]  # crop and append
        X = mg.tensor(X)
        Y = mg.tensor(Y)
        print(X.shape, Y.shape)
        return X, Y

    random.seed(42)
    random.shuffle(words)
    n1 = int(0.8 * len(words))
    n2 = int(0.9 * len(words))
    return dict(itos=itos, vocab_size=vocab_size, block_size=block_size, train=build_dataset(words[:n1]),
                val=build_dataset(words[n1:n2]), test=build_dataset(words[n2:]))


def options(argv, **defaults):
    """The ports' command line: an int option per keyword (``max_len=8``: ``--max-len``, where a sampled
    name also ends, not in the notebooks), and ``--double`` (float64)."""
    parser = argparse.ArgumentParser()
    for name, default in defaults.items():
        parser.add_argument("--" + name.replace("_", "-"), type=int, default=default)
    parser.add_argument("--double", action="store_true")
    return parser.parse_args(argv)
