"""Karpathy's "Neural Networks: Zero to Hero", makemore part 1 ("The spelled-out intro to language
modeling: building makemore"), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/makemore_bigram.py

The counting bigram model: ``N = torch.zeros((27, 27), dtype=torch.int32)`` filled by ``N[ix1, ix2] += 1``,
``P = (N+1).float()`` normalized in place by ``P /= P.sum(1, keepdims=True)`` (NumPy's spelling of the
keyword), names sampled by ``torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()``
(and the notebook's first look at it, ``p = torch.rand(3, generator=g)``), the log likelihood summed in
a Python loop of 0-d tensors; then the same model as a one-layer network: ``xenc = F.one_hot(xs,
num_classes=27).float()``, ``W = torch.randn((27, 27), generator=g, requires_grad=True)``, the softmax
written out (``counts = logits.exp()``, ``counts.sum(1, keepdims=True)``), ``probs[torch.arange(num),
ys]``, the regularization ``0.01*(W**2).mean()``, ``W.grad = None`` and ``W.data += -50 * W.grad``.  Small:
55 names (``makemore_names.py``), a few steps; the lines that differ are listed in ``README.md``.
``main`` returns the numbers the notebook prints (and the gradients).
"""


import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from local_data import default_dtype
from makemore_names import WORDS, options


def main(argv=None, init=None):
    args = options(argv, steps=3, samples=3)
    with default_dtype(args.double):
        return run(args)


def run(args):
    history, tensors = [], {}
    words = list(WORDS)
    N = mg.zeros((27, 27), dtype=mg.int32)
    chars = sorted(list(set(''.join(words))))
    stoi = {s: i+1 for i, s in enumerate(chars)}
    stoi['.'] = 0
    itos = {i: s for s, i in stoi.items()}
    for w in words:
        chs = ['.'] + list(w) + ['.']
        for ch1, ch2 in zip(chs, chs[1:]):
            ix1 = stoi[ch1]
            ix2 = stoi[ch2]
            N[ix1, ix2] += 1
    tensors["N"] = N
    history.append(N[0, 1].item())

    p = N[0].float()
    p = p / p.sum()
    history += p.tolist()

    g = mg.Generator().manual_seed(2147483647)
    p = mg.rand(3, generator=g)
    p = p / p.sum()
    tensors["multinomial"] = mg.multinomial(p, num_samples=100, replacement=True, generator=g)

    P = (N+1).float()
    P /= P.sum(1, keepdims=True)
    tensors["P"] = P
    history.append(P[0].sum().item())

    g = mg.Generator().manual_seed(2147483647)
    for i in range(args.samples):
        out = []
        ix = 0
        while True:
            p = P[ix]
            ix = mg.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            history.append(p[ix].item())  # not in the notebook: what the model gave the drawn letter
            out.append(itos[ix])
            if ix == 0:
                break
        print(''.join(out))
        history.append(len(out))

    # GOAL: maximize likelihood of the data w.r.t. model parameters (statistical modeling)
    log_likelihood = 0.0
    n = 0
    for w in words:
        chs = ['.'] + list(w) + ['.']
        for ch1, ch2 in zip(chs, chs[1:]):
            ix1 = stoi[ch1]
            ix2 = stoi[ch2]
            prob = P[ix1, ix2]
            logprob = mg.log(prob)
            log_likelihood += logprob
            n += 1
    print(f'{log_likelihood=}')
    nll = -log_likelihood
    print(f'{nll=}')
    print(f'{nll/n}')
    history += [log_likelihood.item(), nll.item(), (nll/n).item()]
    network(args, words, stoi, history, tensors)
    return history, tensors


def network(args, words, stoi, history, tensors):
    # create the dataset
    xs, ys = [], []
    for w in words:
        chs = ['.'] + list(w) + ['.']
        for ch1, ch2 in zip(chs, chs[1:]):
            ix1 = stoi[ch1]
            ix2 = stoi[ch2]
            xs.append(ix1)
            ys.append(ix2)
    xs = mg.tensor(xs)
    ys = mg.tensor(ys)
    num = xs.nelement()
    print('number of examples: ', num)

    # initialize the 'network'
    g = mg.Generator().manual_seed(2147483647)
    W = mg.randn((27, 27), generator=g, requires_grad=True)

    # gradient descent
    for k in range(args.steps):

        # forward pass
        xenc = F.one_hot(xs, num_classes=27).float()  # input to the network: one-hot encoding
        if args.double:  # (not in the notebook: W is float64 then, and a product takes one dtype)
            xenc = xenc.double()
        logits = xenc @ W  # predict log-counts
        counts = logits.exp()  # counts, equivalent to N
        probs = counts / counts.sum(1, keepdims=True)  # probabilities for next character
        loss = -probs[mg.arange(num), ys].log().mean() + 0.01*(W**2).mean()
        print(loss.item())
        history.append(loss.item())

        # backward pass
        W.grad = None  # set to zero the gradient
        loss.backward()
        tensors[f"step{k}.W.grad"] = W.grad.clone()  # not in the notebook

        # update
        W.data += -50 * W.grad
    history.append(xenc.dtype == mg.float32)
    tensors["W"] = W.detach()


if __name__ == '__main__':
    main()
