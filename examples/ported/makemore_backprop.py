"""Karpathy's "Neural Networks: Zero to Hero", makemore part 4 ("Building makemore Part 4: Becoming a
Backprop Ninja"), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/makemore_backprop.py

The MLP with a batch normalization, its forward pass "chunkated into smaller steps that are possible to
backward one at a time" (``logit_maxes = logits.max(1, keepdim=True).values``, ``counts_sum**-1``,
``bnvar = 1/(n-1)*(bndiff2).sum(0, keepdim=True)`` with Bessel's correction, ``(bnvar + 1e-5)**-0.5``,
``-logprobs[range(n), Yb].mean()``), every intermediate's ``retain_grad()``, and the four exercises: the
manual backward pass through each of them (``torch.zeros_like``, ``dlogprobs[range(n), Yb] = -1.0/n``,
``F.one_hot(logits.max(1).indices, num_classes=logits.shape[1])``, ``.sum(0, keepdim=True)``, ``dC[ix] +=
demb[k,j]``), checked by ``cmp``'s ``torch.all(dt == t.grad)`` (exact) and ``torch.allclose(dt, t.grad)``
against autograd's; the cross entropy's and the batch norm's backward passes in one formula each; and the
training loop with the manual backward pass alone, under ``torch.no_grad()``, then the samples.  Small: 55
names (``makemore_names.py``), 16 hidden units (64 and 200), a few steps; the lines that differ are listed
in ``README.md``.  ``main`` returns what ``cmp`` and the notebook print.
"""

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from local_data import default_dtype
from makemore_names import dataset, options


def main(argv=None, init=None):
    args = options(argv, steps=3, hidden=16, samples=2, max_len=8)
    history, tensors = [], {}
    with default_dtype(args.double):
        data = dataset(block_size=3)  # context length: how many characters do we take to predict the next one?
        exercises(args, data, history, tensors)
        training(args, data, history, tensors)
    return history, tensors


def make_parameters(n_embd, n_hidden, vocab_size, block_size):
    g = mg.Generator().manual_seed(2147483647)  # for reproducibility
    C = mg.randn((vocab_size, n_embd), generator=g)
    # Layer 1
    W1 = mg.randn((n_embd * block_size, n_hidden), generator=g) * (5/3)/((n_embd * block_size)**0.5)
    b1 = mg.randn(n_hidden, generator=g) * 0.1  # using b1 just for fun, it's useless because of BN
    # Layer 2
    W2 = mg.randn((n_hidden, vocab_size), generator=g) * 0.1
    b2 = mg.randn(vocab_size, generator=g) * 0.1
    # BatchNorm parameters
    bngain = mg.randn((1, n_hidden))*0.1 + 1.0
    bnbias = mg.randn((1, n_hidden))*0.1

    # Note: I am initializating many of these parameters in non-standard ways
    # because sometimes initializating with e.g. all zeros could mask an incorrect
    # implementation of the backward pass.

    parameters = [C, W1, b1, W2, b2, bngain, bnbias]
    print(sum(p.nelement() for p in parameters))  # number of parameters in total
    for p in parameters:
        p.requires_grad = True
    return g, parameters


def exercises(args, data, history, tensors):
    vocab_size, block_size = data["vocab_size"], data["block_size"]
    Xtr, Ytr = data["train"]
    n_embd = 10  # the dimensionality of the character embedding vectors
    n_hidden = args.hidden  # the number of neurons in the hidden layer of the MLP
    g, parameters = make_parameters(n_embd, n_hidden, vocab_size, block_size)
    C, W1, b1, W2, b2, bngain, bnbias = parameters

    batch_size = 32
    n = batch_size  # a shorter variable also, for convenience
    # construct a minibatch
    ix = mg.randint(0, Xtr.shape[0], (batch_size,), generator=g)
    Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

    # forward pass, "chunkated" into smaller steps that are possible to backward one at a time

    emb = C[Xb]  # embed the characters into vectors
    embcat = emb.view(emb.shape[0], -1)  # concatenate the vectors
    # Linear layer 1
    hprebn = embcat @ W1 + b1  # hidden layer pre-activation
    # BatchNorm layer
    bnmeani = 1/n*hprebn.sum(0, keepdim=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff**2
    bnvar = 1/(n-1)*(bndiff2).sum(0, keepdim=True)  # note: Bessel's correction (dividing by n-1, not n)
    bnvar_inv = (bnvar + 1e-5)**-0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw + bnbias
    # Non-linearity
    h = mg.tanh(hpreact)  # hidden layer
    # Linear layer 2
    logits = h @ W2 + b2  # output layer
    # cross entropy loss (same as F.cross_entropy(logits, Yb))
    logit_maxes = logits.max(1, keepdim=True).values
    norm_logits = logits - logit_maxes  # subtract max for numerical stability
    counts = norm_logits.exp()
    counts_sum = counts.sum(1, keepdims=True)
    counts_sum_inv = counts_sum**-1  # if I use (1.0 / counts_sum) instead then I can't get backprop to be bit exact...
    probs = counts * counts_sum_inv
    logprobs = probs.log()
    loss = -logprobs[range(n), Yb].mean()

    # PyTorch backward pass
    for p in parameters:
        p.grad = None
    for t in [logprobs, probs, counts, counts_sum, counts_sum_inv,  # afaik there is no cleaner way
              norm_logits, logit_maxes, logits, h, hpreact, bnraw,
              bnvar_inv, bnvar, bndiff2, bndiff, hprebn, bnmeani,
              embcat, emb]:
        t.retain_grad()
    loss.backward()
    print(loss)
    history.append(loss.item())

    # utility function we will use later when comparing manual gradients to PyTorch gradients
    def cmp(s, dt, t):
        ex = mg.all(dt == t.grad).item()
        app = mg.allclose(dt, t.grad)
        maxdiff = (dt - t.grad).abs().max().item()
        print(f'{s:15s} | exact: {str(ex):5s} | approximate: {str(app):5s} | maxdiff: {maxdiff}')
        cmps.append((s, ex, app, maxdiff))  # not in the notebook: what it prints, kept

    cmps = []

    # Exercise 1: backprop through the whole thing manually,
    # backpropagating through exactly all of the variables
    # as they are defined in the forward pass above, one by one

    dlogprobs = mg.zeros_like(logprobs)
    dlogprobs[range(n), Yb] = -1.0/n
    dprobs = (1.0 / probs) * dlogprobs
    dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
    dcounts = counts_sum_inv * dprobs
    dcounts_sum = (-counts_sum**-2) * dcounts_sum_inv
    dcounts += mg.ones_like(counts) * dcounts_sum
    dnorm_logits = counts * dcounts
    dlogits = dnorm_logits.clone()
    dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
    dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
    dh = dlogits @ W2.T
    dW2 = h.T @ dlogits
    db2 = dlogits.sum(0)
    dhpreact = (1.0 - h**2) * dh
    dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
    dbnraw = bngain * dhpreact
    dbnbias = dhpreact.sum(0, keepdim=True)
    dbndiff = bnvar_inv * dbnraw
    dbnvar_inv = (bndiff * dbnraw).sum(0, keepdim=True)
    dbnvar = (-0.5*(bnvar + 1e-5)**-1.5) * dbnvar_inv
    dbndiff2 = (1.0/(n-1))*mg.ones_like(bndiff2) * dbnvar
    dbndiff += (2*bndiff) * dbndiff2
    dhprebn = dbndiff.clone()
    dbnmeani = (-dbndiff).sum(0)
    dhprebn += 1.0/n * (mg.ones_like(hprebn) * dbnmeani)
    dembcat = dhprebn @ W1.T
    dW1 = embcat.T @ dhprebn
    db1 = dhprebn.sum(0)
    demb = dembcat.view(emb.shape)
    dC = mg.zeros_like(C)
    for k in range(Xb.shape[0]):
        for j in range(Xb.shape[1]):
            ix = Xb[k, j]
            dC[ix] += demb[k, j]

    cmp('logprobs', dlogprobs, logprobs)
    cmp('probs', dprobs, probs)
    cmp('counts_sum_inv', dcounts_sum_inv, counts_sum_inv)
    cmp('counts_sum', dcounts_sum, counts_sum)
    cmp('counts', dcounts, counts)
    cmp('norm_logits', dnorm_logits, norm_logits)
    cmp('logit_maxes', dlogit_maxes, logit_maxes)
    cmp('logits', dlogits, logits)
    cmp('h', dh, h)
    cmp('W2', dW2, W2)
    cmp('b2', db2, b2)
    cmp('hpreact', dhpreact, hpreact)
    cmp('bngain', dbngain, bngain)
    cmp('bnbias', dbnbias, bnbias)
    cmp('bnraw', dbnraw, bnraw)
    cmp('bnvar_inv', dbnvar_inv, bnvar_inv)
    cmp('bnvar', dbnvar, bnvar)
    cmp('bndiff2', dbndiff2, bndiff2)
    cmp('bndiff', dbndiff, bndiff)
    cmp('bnmeani', dbnmeani, bnmeani)
    cmp('hprebn', dhprebn, hprebn)
    cmp('embcat', dembcat, embcat)
    cmp('W1', dW1, W1)
    cmp('b1', db1, b1)
    cmp('emb', demb, emb)
    cmp('C', dC, C)

    # Exercise 2: backprop through cross_entropy but all in one go
    # to complete this challenge look at the mathematical expression of the loss,
    # take the derivative, simplify the expression, and just write it out

    # now:
    loss_fast = F.cross_entropy(logits, Yb)
    print(loss_fast.item(), 'diff:', (loss_fast - loss).item())
    history += [loss_fast.item(), (loss_fast - loss).item()]

    # backward pass
    dlogits = F.softmax(logits, 1)
    dlogits[range(n), Yb] -= 1
    dlogits /= n

    cmp('logits', dlogits, logits)  # I can only get approximate to be true, my maxdiff is 6e-9

    # Exercise 3: backprop through batchnorm but all in one go
    # to complete this challenge look at the mathematical expression of the output of batchnorm,
    # take the derivative w.r.t. its input, simplify the expression, and just write it out

    # now:
    hpreact_fast = bngain * (hprebn - hprebn.mean(0, keepdim=True)) / mg.sqrt(
        hprebn.var(0, keepdim=True, unbiased=True) + 1e-5) + bnbias
    print('max diff:', (hpreact_fast - hpreact).abs().max())
    history.append((hpreact_fast - hpreact).abs().max().item())

    # backward pass
    dhprebn = bngain*bnvar_inv/n * (n*dhpreact - dhpreact.sum(0) - n/(n-1)*bnraw*(dhpreact*bnraw).sum(0))

    cmp('hprebn', dhprebn, hprebn)  # I can only get approximate to be true, my maxdiff is 9e-10
    for i, (s, ex, app, maxdiff) in enumerate(cmps):
        tensors[f"cmp{i}.{s}"] = mg.tensor([ex, app, maxdiff], dtype=mg.float64)
    for name, t in zip(["C", "W1", "b1", "W2", "b2", "bngain", "bnbias"], parameters):
        tensors[f"exercise.{name}.grad"] = t.grad


def training(args, data, history, tensors):
    # Exercise 4: putting it all together!
    # Train the MLP neural net with your own backward pass
    vocab_size, block_size = data["vocab_size"], data["block_size"]
    Xtr, Ytr = data["train"]
    n_embd = 10  # the dimensionality of the character embedding vectors
    n_hidden = args.hidden  # the number of neurons in the hidden layer of the MLP
    g, parameters = make_parameters(n_embd, n_hidden, vocab_size, block_size)
    C, W1, b1, W2, b2, bngain, bnbias = parameters

    # same optimization as last time
    max_steps = args.steps
    batch_size = 32
    n = batch_size  # convenience
    lossi = []

    # use this context manager for efficiency once your backward pass is written (TODO)
    with mg.no_grad():

        # kick off optimization
        for i in range(max_steps):

            # minibatch construct
            ix = mg.randint(0, Xtr.shape[0], (batch_size,), generator=g)
            Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

            # forward pass
            emb = C[Xb]  # embed the characters into vectors
            embcat = emb.view(emb.shape[0], -1)  # concatenate the vectors
            # Linear layer
            hprebn = embcat @ W1 + b1  # hidden layer pre-activation
            # BatchNorm layer
            # -------------------------------------------------------------
            bnmean = hprebn.mean(0, keepdim=True)
            bnvar = hprebn.var(0, keepdim=True, unbiased=True)
            bnvar_inv = (bnvar + 1e-5)**-0.5
            bnraw = (hprebn - bnmean) * bnvar_inv
            hpreact = bngain * bnraw + bnbias
            # -------------------------------------------------------------
            # Non-linearity
            h = mg.tanh(hpreact)  # hidden layer
            logits = h @ W2 + b2  # output layer
            loss = F.cross_entropy(logits, Yb)  # loss function

            # backward pass
            for p in parameters:
                p.grad = None
            # loss.backward() # use this for correctness comparisons, delete it later!

            # manual backprop! #swole_doge_meme
            # -----------------
            dlogits = F.softmax(logits, 1)
            dlogits[range(n), Yb] -= 1
            dlogits /= n
            # 2nd layer backprop
            dh = dlogits @ W2.T
            dW2 = h.T @ dlogits
            db2 = dlogits.sum(0)
            # tanh
            dhpreact = (1.0 - h**2) * dh
            # batchnorm backprop
            dbngain = (bnraw * dhpreact).sum(0, keepdim=True)
            dbnbias = dhpreact.sum(0, keepdim=True)
            dhprebn = bngain*bnvar_inv/n * (n*dhpreact - dhpreact.sum(0) - n/(n-1)*bnraw*(dhpreact*bnraw).sum(0))
            # 1st layer
            dembcat = dhprebn @ W1.T
            dW1 = embcat.T @ dhprebn
            db1 = dhprebn.sum(0)
            # embedding
            demb = dembcat.view(emb.shape)
            dC = mg.zeros_like(C)
            for k in range(Xb.shape[0]):
                for j in range(Xb.shape[1]):
                    ix = Xb[k, j]
                    dC[ix] += demb[k, j]
            grads = [dC, dW1, db1, dW2, db2, dbngain, dbnbias]
            # -----------------

            # update
            lr = 0.1 if i < 100000 else 0.01  # step learning rate decay
            for p, grad in zip(parameters, grads):
                # p.data += -lr * p.grad # old way of cheems doge (using PyTorch grad from .backward())
                p.data += -lr * grad  # new way of swole doge TODO: enable

            # track stats
            if i % 10000 == 0:  # print every once in a while
                print(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
            lossi.append(loss.log10().item())
            history.append(loss.item())
            history.append(p.grad is None)
    history += lossi
    for name, grad in zip(["C", "W1", "b1", "W2", "b2", "bngain", "bnbias"], grads):
        tensors[f"manual.{name}.grad"] = grad  # not in the notebook: the last step's gradients
    evaluate(args, data, parameters, history)


def evaluate(args, data, parameters, history):
    C, W1, b1, W2, b2, bngain, bnbias = parameters
    Xtr = data["train"][0]
    # calibrate the batch norm at the end of training
    with mg.no_grad():
        # pass the training set through
        emb = C[Xtr]
        embcat = emb.view(emb.shape[0], -1)
        hpreact = embcat @ W1 + b1
        # measure the mean/std over the entire training set
        bnmean = hpreact.mean(0, keepdim=True)
        bnvar = hpreact.var(0, keepdim=True, unbiased=True)

    # evaluate train and val loss
    @mg.no_grad()  # this decorator disables gradient tracking
    def split_loss(split):
        x, y = {
            'train': data["train"],
            'val': data["val"],
            'test': data["test"],
        }[split]
        emb = C[x]  # (N, block_size, n_embd)
        embcat = emb.view(emb.shape[0], -1)  # concat into (N, block_size * n_embd)
        hpreact = embcat @ W1 + b1
        hpreact = bngain * (hpreact - bnmean) * (bnvar + 1e-5)**-0.5 + bnbias
        h = mg.tanh(hpreact)  # (N, n_hidden)
        logits = h @ W2 + b2  # (N, vocab_size)
        loss = F.cross_entropy(logits, y)
        print(split, loss.item())
        history.append(loss.item())

    split_loss('train')
    split_loss('val')

    # sample from the model
    g = mg.Generator().manual_seed(2147483647 + 10)
    block_size, itos = data["block_size"], data["itos"]
    for _ in range(args.samples):
        out = []
        context = [0] * block_size  # initialize with all ...
        while True:
            # ------------
            # forward pass:
            # Embedding
            emb = C[mg.tensor([context])]  # (1,block_size,d)
            embcat = emb.view(emb.shape[0], -1)  # concat into (N, block_size * n_embd)
            hpreact = embcat @ W1 + b1
            hpreact = bngain * (hpreact - bnmean) * (bnvar + 1e-5)**-0.5 + bnbias
            h = mg.tanh(hpreact)  # (N, n_hidden)
            logits = h @ W2 + b2  # (N, vocab_size)
            # ------------
            # Sample
            probs = F.softmax(logits, dim=1)
            ix = mg.multinomial(probs, num_samples=1, generator=g).item()
            history.append(probs[0, ix].item())  # not in the notebook: what the model gave the drawn letter
            context = context[1:] + [ix]
            out.append(ix)
            if ix == 0 or len(out) == args.max_len:
                break
        print(''.join(itos[i] for i in out))
        history += out


if __name__ == '__main__':
    main()
