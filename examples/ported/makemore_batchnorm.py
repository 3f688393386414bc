"""Karpathy's "Neural Networks: Zero to Hero", makemore part 3 ("Building makemore Part 3: Activations &
Gradients, BatchNorm"), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/makemore_batchnorm.py

Its two halves.  ``handwritten``: the MLP with a batch normalization written out (``bnmeani =
hpreact.mean(0, keepdim=True)``, ``bnstdi = hpreact.std(0, keepdim=True)``, the running statistics updated
under ``with torch.no_grad():``), the kaiming-scaled ``W1 = torch.randn(...) * (5/3)/((n_embd *
block_size)**0.5)``, a zeroed ``b2 = torch.randn(...) * 0``, the statistics calibrated over the whole
training set, and ``split_loss`` under the ``@torch.no_grad()`` decorator.  ``pytorchified``: the hand-written
``Linear``, ``BatchNorm1d`` (``x.var(0, keepdim=True)``) and ``Tanh`` classes (no ``nn.Module``; ``self.out
+= self.bias`` in place), the last layer's ``gamma *= 0.1`` and the other weights' ``*= 5/3`` under
``no_grad``, every ``layer.out.retain_grad()``, the update-to-data ratios ``((lr*p.grad).std() /
p.data.std()).log10().item()``, the activation and gradient statistics and ``torch.histogram(t,
density=True)`` the notebook plots, then ``layer.training = False`` for the evaluation and the samples.
Small: 55 names (``makemore_names.py``), 16 hidden units (200 and 100), three hidden layers (five), a few
steps; the lines that differ are listed in ``README.md``.  ``main`` returns the numbers the notebook
prints or plots (and each recorded step's gradients).
"""

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from local_data import default_dtype
from makemore_names import dataset, options
from makemore_wavenet import BatchNorm1d, Linear, Tanh


def main(argv=None, init=None):
    args = options(argv, steps=3, hidden=16, samples=2, max_len=8)
    history, tensors = [], {}
    with default_dtype(args.double):
        data = dataset(block_size=3)  # context length: how many characters do we take to predict the next one?
        handwritten(args, data, history, tensors)
        pytorchified(args, data, history, tensors)
    return history, tensors


def handwritten(args, data, history, tensors):
    vocab_size, block_size = data["vocab_size"], data["block_size"]
    Xtr, Ytr = data["train"]
    # MLP revisited
    n_embd = 10  # the dimensionality of the character embedding vectors
    n_hidden = args.hidden  # the number of neurons in the hidden layer of the MLP

    g = mg.Generator().manual_seed(2147483647)  # for reproducibility
    C = mg.randn((vocab_size, n_embd), generator=g)
    W1 = mg.randn((n_embd * block_size, n_hidden), generator=g) * (5/3)/((n_embd * block_size)**0.5)
    b1 = mg.randn(n_hidden, generator=g) * 0.01
    W2 = mg.randn((n_hidden, vocab_size), generator=g) * 0.01
    b2 = mg.randn(vocab_size, generator=g) * 0

    # BatchNorm parameters
    bngain = mg.ones((1, n_hidden))
    bnbias = mg.zeros((1, n_hidden))
    bnmean_running = mg.zeros((1, n_hidden))
    bnstd_running = mg.ones((1, n_hidden))

    parameters = [C, W1, W2, b2, bngain, bnbias]
    names = ["C", "W1", "W2", "b2", "bngain", "bnbias"]
    history.append(sum(p.nelement() for p in parameters))  # number of parameters in total
    for p in parameters:
        p.requires_grad = True

    # same optimization as last time
    max_steps = args.steps
    batch_size = 32
    lossi = []

    for i in range(max_steps):
        # minibatch construct
        ix = mg.randint(0, Xtr.shape[0], (batch_size,), generator=g)
        Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

        # forward pass
        emb = C[Xb]  # embed the characters into vectors
        embcat = emb.view(emb.shape[0], -1)  # concatenate the vectors
        # Linear layer
        hpreact = embcat @ W1  # + b1 # hidden layer pre-activation
        # BatchNorm layer
        # -------------------------------------------------------------
        bnmeani = hpreact.mean(0, keepdim=True)
        bnstdi = hpreact.std(0, keepdim=True)
        hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
        with mg.no_grad():
            bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
            bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
        # -------------------------------------------------------------
        # Non-linearity
        h = mg.tanh(hpreact)  # hidden layer
        logits = h @ W2 + b2  # output layer
        loss = F.cross_entropy(logits, Yb)  # loss function

        # backward pass
        for p in parameters:
            p.grad = None
        loss.backward()

        # update
        lr = 0.1 if i < 100000 else 0.01  # step learning rate decay
        for p in parameters:
            p.data += -lr * p.grad

        # track stats
        if i % 10000 == 0:  # print every once in a while
            print(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
        lossi.append(loss.log10().item())
        history.append(loss.item())
    for name, p in zip(names, parameters):
        tensors[f"hand.{name}.grad"] = p.grad.clone()  # not in the notebook: the last step's gradients
    history += lossi
    tensors["hand.bnmean_running"] = bnmean_running
    tensors["hand.bnstd_running"] = bnstd_running
    history.append(bnmean_running.requires_grad)

    # calibrate the batch norm at the end of training
    with mg.no_grad():
        # pass the training set through
        emb = C[Xtr]
        embcat = emb.view(emb.shape[0], -1)
        hpreact = embcat @ W1 + b1
        # measure the mean/std over the entire training set
        bnmean = hpreact.mean(0, keepdim=True)
        bnstd = hpreact.std(0, keepdim=True)
    tensors["hand.bnmean"] = bnmean
    tensors["hand.bnstd"] = bnstd

    @mg.no_grad()  # this decorator disables gradient tracking
    def split_loss(split):
        x, y = {
            'train': data["train"],
            'val': data["val"],
            'test': data["test"],
        }[split]
        emb = C[x]  # (N, block_size, n_embd)
        embcat = emb.view(emb.shape[0], -1)  # concat into (N, block_size * n_embd)
        hpreact = embcat @ W1  # + b1
        # hpreact = bngain * (hpreact - hpreact.mean(0, keepdim=True)) / hpreact.std(0, keepdim=True) + bnbias
        hpreact = bngain * (hpreact - bnmean_running) / bnstd_running + bnbias
        h = mg.tanh(hpreact)  # (N, n_hidden)
        logits = h @ W2 + b2  # (N, vocab_size)
        loss = F.cross_entropy(logits, y)
        print(split, loss.item())
        history.append(loss.item())
        history.append(loss.requires_grad)

    split_loss('train')
    split_loss('val')


# Let's train a deeper network: the notebook's Linear, BatchNorm1d and Tanh, as part 5 has them
# (makemore_wavenet.py; its BatchNorm1d also takes 3-D input, and its Linear draws from generator=g)


def pytorchified(args, data, history, tensors):
    vocab_size, block_size = data["vocab_size"], data["block_size"]
    Xtr, Ytr = data["train"]
    n_embd = 10  # the dimensionality of the character embedding vectors
    n_hidden = args.hidden  # the number of neurons in the hidden layer of the MLP
    g = mg.Generator().manual_seed(2147483647)  # for reproducibility

    C = mg.randn((vocab_size, n_embd), generator=g)
    layers = [
        Linear(n_embd * block_size, n_hidden, bias=False, generator=g), BatchNorm1d(n_hidden), Tanh(),
        Linear(n_hidden, n_hidden, bias=False, generator=g), BatchNorm1d(n_hidden), Tanh(),
        Linear(n_hidden, n_hidden, generator=g), Tanh(),
        Linear(n_hidden, vocab_size, bias=False, generator=g), BatchNorm1d(vocab_size),
    ]

    with mg.no_grad():
        # last layer: make less confident
        layers[-1].gamma *= 0.1
        # all other layers: apply gain
        for layer in layers[:-1]:
            if isinstance(layer, Linear):
                layer.weight *= 5/3

    parameters = [C] + [p for layer in layers for p in layer.parameters()]
    history.append(sum(p.nelement() for p in parameters))  # number of parameters in total
    for p in parameters:
        p.requires_grad = True

    # same optimization as last time
    max_steps = args.steps
    batch_size = 32
    lossi = []
    ud = []

    for i in range(max_steps):
        # minibatch construct
        ix = mg.randint(0, Xtr.shape[0], (batch_size,), generator=g)
        Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

        # forward pass
        emb = C[Xb]  # embed the characters into vectors
        x = emb.view(emb.shape[0], -1)  # concatenate the vectors
        for layer in layers:
            x = layer(x)
        loss = F.cross_entropy(x, Yb)  # loss function

        # backward pass
        for layer in layers:
            layer.out.retain_grad()  # AFTER_DEBUG: would take out retain_graph
        for p in parameters:
            p.grad = None
        loss.backward()

        # update
        lr = 0.1 if i < 150000 else 0.01  # step learning rate decay
        for p in parameters:
            p.data += -lr * p.grad

        # track stats
        if i % 10000 == 0:  # print every once in a while
            print(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
        lossi.append(loss.log10().item())
        with mg.no_grad():
            ud.append([((lr*p.grad).std() / p.data.std()).log10().item() for p in parameters])
        history.append(loss.item())
    history += lossi + [r for row in ud for r in row]
    statistics(layers, parameters, history, tensors)
    evaluate(args, data, C, layers, history)


def statistics(layers, parameters, history, tensors):
    # visualize histograms (the forward pass activations, then the backward pass gradients)
    for i, layer in enumerate(layers[:-1]):  # note: exclude the output layer
        if isinstance(layer, Tanh):
            t = layer.out
            print('layer %d (%10s): mean %+.2f, std %.2f, saturated: %.2f%%' % (
                i, layer.__class__.__name__, t.mean(), t.std(), (t.abs() > 0.97).float().mean()*100))
            hy, hx = mg.histogram(t, 100, density=True)  # mg.histogram: NumPy's 10 bins by default
            history += [t.mean().item(), t.std().item(), ((t.abs() > 0.97).float().mean()*100).item()]
            tensors[f"layer{i}.hist"] = hy
            tensors[f"layer{i}.edges"] = hx
    for i, layer in enumerate(layers[:-1]):  # note: exclude the output layer
        if isinstance(layer, Tanh):
            t = layer.out.grad
            print('layer %d (%10s): mean %+f, std %e' % (i, layer.__class__.__name__, t.mean(), t.std()))
            tensors[f"layer{i}.out.grad"] = t
    # visualize histograms (the weights' gradients)
    for i, p in enumerate(parameters):
        t = p.grad
        if p.ndim == 2:
            print('weight %10s | mean %+f | std %e | grad:data ratio %e' % (
                tuple(p.shape), t.mean(), t.std(), t.std() / p.std()))
            history += [t.mean().item(), t.std().item(), (t.std() / p.std()).item()]
        tensors[f"param{i}.grad"] = t


def evaluate(args, data, C, layers, history):
    @mg.no_grad()  # this decorator disables gradient tracking
    def split_loss(split):
        x, y = {
            'train': data["train"],
            'val': data["val"],
            'test': data["test"],
        }[split]
        emb = C[x]  # (N, block_size, n_embd)
        x = emb.view(emb.shape[0], -1)  # concat into (N, block_size * n_embd)
        for layer in layers:
            x = layer(x)
        loss = F.cross_entropy(x, y)
        print(split, loss.item())
        history.append(loss.item())

    # put layers into eval mode
    for layer in layers:
        layer.training = False
    split_loss('train')
    split_loss('val')

    # sample from the model
    g = mg.Generator().manual_seed(2147483647 + 10)
    block_size, itos = data["block_size"], data["itos"]
    for _ in range(args.samples):
        out = []
        context = [0] * block_size  # initialize with all ...
        while True:
            # forward pass the neural net
            emb = C[mg.tensor([context])]  # (1,block_size,n_embd)
            x = emb.view(emb.shape[0], -1)  # concatenate the vectors
            for layer in layers:
                x = layer(x)
            logits = x
            probs = F.softmax(logits, dim=1)
            # sample from the distribution
            ix = mg.multinomial(probs, num_samples=1, generator=g).item()
            history.append(probs[0, ix].item())  # not in the notebook: what the model gave the drawn letter
            # shift the context window and track the samples
            context = context[1:] + [ix]
            out.append(ix)
            # if we sample the special '.' token, break
            if ix == 0 or len(out) == args.max_len:
                break
        print(''.join(itos[i] for i in out))  # decode and print the generated word
        history += out


if __name__ == '__main__':
    main()
