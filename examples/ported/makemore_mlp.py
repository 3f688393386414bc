"""Karpathy's "Neural Networks: Zero to Hero", makemore part 2 ("Building makemore Part 2: MLP"): Bengio et
al.'s character MLP, ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/makemore_mlp.py

The notebook's idioms: ``torch.Generator().manual_seed(2147483647)`` handed to every draw, the embedding
table ``C = torch.randn((27, 10), generator=g)`` indexed by a tensor of contexts (``C[X]``), ``emb.view(-1,
30) @ W1 + b1``, ``torch.tanh``, ``F.cross_entropy``, minibatches by ``torch.randint(0, Xtr.shape[0], (32,),
generator=g)``, ``p.grad = None`` and the manual SGD ``p.data += -lr * p.grad``, the learning-rate search
``lrs = 10**torch.linspace(-3, 0, 1000)`` read one 0-d tensor at a time, ``loss.log10().item()``, and names
sampled by ``torch.multinomial(probs, num_samples=1, generator=g).item()``.  Small: 55 names
(``makemore_names.py``), a hidden layer of 16 (200), a few steps; the lines that differ are listed in
``README.md``.  ``main`` returns the numbers the notebook prints (and more: each step's gradients).
"""

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from local_data import default_dtype
from makemore_names import dataset, options


def main(argv=None, init=None):
    args = options(argv, find_steps=2, steps=3, hidden=16, samples=3, max_len=12)  # --find-steps: the learning-rate search
    with default_dtype(args.double):
        return run(args)


def run(args):
    history, tensors = [], {}
    block_size = 3  # context length: how many characters do we take to predict the next one?
    data = dataset(block_size)  # (the notebook's build_dataset, in makemore_names.py)
    itos = data["itos"]
    (Xtr, Ytr), (Xdev, Ydev), (Xte, Yte) = data["train"], data["val"], data["test"]

    n_hidden = args.hidden
    g = mg.Generator().manual_seed(2147483647)  # for reproducibility
    C = mg.randn((27, 10), generator=g)
    W1 = mg.randn((30, n_hidden), generator=g)
    b1 = mg.randn(n_hidden, generator=g)
    W2 = mg.randn((n_hidden, 27), generator=g)
    b2 = mg.randn(27, generator=g)
    parameters = [C, W1, b1, W2, b2]
    history.append(sum(p.nelement() for p in parameters))  # number of parameters in total
    for p in parameters:
        p.requires_grad = True

    lre = mg.linspace(-3, 0, 1000)
    lrs = 10**lre
    lri, lossi, stepi = [], [], []
    for i in range(args.find_steps + args.steps):
        # minibatch construct
        ix = mg.randint(0, Xtr.shape[0], (32,), generator=g)

        # forward pass
        emb = C[Xtr[ix]]  # (32, 3, 10)
        h = mg.tanh(emb.view(-1, 30) @ W1 + b1)  # (32, 100)
        logits = h @ W2 + b2  # (32, 27)
        loss = F.cross_entropy(logits, Ytr[ix])

        # backward pass
        for p in parameters:
            p.grad = None
        loss.backward()

        # update
        lr = lrs[i] if i < args.find_steps else 0.1
        for p in parameters:
            p.data += -lr * p.grad

        # track stats
        if i < args.find_steps:
            lri.append(lre[i])
        stepi.append(i)
        lossi.append(loss.log10().item())
        history.append(loss.item())
        if i in (0, args.find_steps):  # not in the notebook: the gradients of two steps
            for name, p in zip(["C", "W1", "b1", "W2", "b2"], parameters):
                tensors[f"step{i}.{name}.grad"] = p.grad.clone()
    history += [float(lr) for lr in lri] + lossi

    for name, (x, y) in [("train", (Xtr, Ytr)), ("dev", (Xdev, Ydev)), ("test", (Xte, Yte))]:
        emb = C[x]  # (N, 3, 10)
        h = mg.tanh(emb.view(-1, 30) @ W1 + b1)  # (N, 100)
        logits = h @ W2 + b2  # (N, 27)
        loss = F.cross_entropy(logits, y)
        print(name, loss.item())
        history.append(loss.item())

    # sample from the model
    g = mg.Generator().manual_seed(2147483647 + 10)
    for _ in range(args.samples):
        out = []
        context = [0] * block_size  # initialize with all ...
        while True:
            emb = C[mg.tensor([context])]  # (1,block_size,d)
            h = mg.tanh(emb.view(1, -1) @ W1 + b1)
            logits = h @ W2 + b2
            probs = F.softmax(logits, dim=1)
            ix = mg.multinomial(probs, num_samples=1, generator=g).item()
            history.append(probs[0, ix].item())  # not in the notebook: what the model gave the drawn letter
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0 or len(out) == args.max_len:
                break
        print(''.join(itos[i] for i in out))
        history += out
    for name, p in zip(["C", "W1", "b1", "W2", "b2"], parameters):
        tensors[name] = p.detach()
    return history, tensors


if __name__ == '__main__':
    main()
