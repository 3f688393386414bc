"""Karpathy's "Neural Networks: Zero to Hero", makemore part 5 ("Building makemore Part 5: Building a
WaveNet"), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/makemore_wavenet.py

The "torchified" layers written by hand, not ``nn.Module``s: ``Linear`` (``self.out += self.bias`` in
place), ``BatchNorm1d`` (its statistics over ``dim = (0,1)`` when ``x.ndim == 3``, the running buffers
replaced under ``torch.no_grad()``), ``Tanh``, ``Embedding`` (``self.weight[IX]``), ``FlattenConsecutive``
(``x.view(B, T//self.n, C*self.n)`` and ``x.squeeze(1)`` when one step is left) and ``Sequential``; the
hierarchical model over contexts of 8, ``torch.manual_seed(42)`` before the draws without a generator, the
last layer's ``weight *= 0.1`` under ``no_grad``, the parameters collected by list comprehension and each
given ``p.requires_grad = True``, the training loop with its learning-rate decay, ``torch.tensor(lossi).view(-1,
...).mean(1)`` (the plotted curve), ``layer.training = False`` for the evaluation (``@torch.no_grad()``) and
the samples; and the notebook's cells that check the flattening (``e.view(4, 4, 20) == torch.cat([e[:, ::2,
:], e[:, 1::2, :]], dim=2)``) and print each layer's output shape.  Small: 55 names (``makemore_names.py``),
embeddings of 6 (24), 16 hidden units (128), a few steps; the lines that differ are listed in
``README.md``.  ``main`` returns the numbers the notebook prints or plots (and the last step's gradients).
"""

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from local_data import default_dtype
from makemore_names import dataset, options


# -----------------------------------------------------------------------------------------------
class Linear:

    def __init__(self, fan_in, fan_out, bias=True, generator=None):  # (part 3's draws from its generator)
        self.weight = mg.randn((fan_in, fan_out), generator=generator) / fan_in**0.5  # note: kaiming init
        self.bias = mg.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out += self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


# -----------------------------------------------------------------------------------------------
class BatchNorm1d:

    def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps = eps
        self.momentum = momentum
        self.training = True
        # parameters (trained with backprop)
        self.gamma = mg.ones(dim)
        self.beta = mg.zeros(dim)
        # buffers (trained with a running 'momentum update')
        self.running_mean = mg.zeros(dim)
        self.running_var = mg.ones(dim)

    def __call__(self, x):
        # calculate the forward pass
        if self.training:
            if x.ndim == 2:
                dim = 0
            elif x.ndim == 3:
                dim = (0, 1)
            xmean = x.mean(dim, keepdim=True)  # batch mean
            xvar = x.var(dim, keepdim=True)  # batch variance
        else:
            xmean = self.running_mean
            xvar = self.running_var
        xhat = (x - xmean) / mg.sqrt(xvar + self.eps)  # normalize to unit variance
        self.out = self.gamma * xhat + self.beta
        # update the buffers
        if self.training:
            with mg.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


# -----------------------------------------------------------------------------------------------
class Tanh:
    def __call__(self, x):
        self.out = mg.tanh(x)
        return self.out

    def parameters(self):
        return []


# -----------------------------------------------------------------------------------------------
class Embedding:

    def __init__(self, num_embeddings, embedding_dim):
        self.weight = mg.randn((num_embeddings, embedding_dim))

    def __call__(self, IX):
        self.out = self.weight[IX]
        return self.out

    def parameters(self):
        return [self.weight]


# -----------------------------------------------------------------------------------------------
class FlattenConsecutive:

    def __init__(self, n):
        self.n = n

    def __call__(self, x):
        B, T, C = x.shape
        x = x.view(B, T//self.n, C*self.n)
        if x.shape[1] == 1:
            x = x.squeeze(1)
        self.out = x
        return self.out

    def parameters(self):
        return []


# -----------------------------------------------------------------------------------------------
class Sequential:

    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        self.out = x
        return self.out

    def parameters(self):
        # get parameters of all layers and stretch them out into one list
        return [p for layer in self.layers for p in layer.parameters()]


def main(argv=None, init=None):
    args = options(argv, steps=4, embd=6, hidden=16, samples=2, max_len=8)
    with default_dtype(args.double):
        return run(args)


def run(args):
    history, tensors = [], {}
    block_size = 8  # context length: how many characters do we take to predict the next one?
    data = dataset(block_size)
    vocab_size, itos = data["vocab_size"], data["itos"]
    Xtr, Ytr = data["train"]
    for x, y in zip(Xtr[:20], Ytr[:20]):
        print(''.join(itos[ix.item()] for ix in x), '-->', itos[y.item()])

    mg.manual_seed(42)  # seed rng for reproducibility

    # hierarchical network
    n_embd = args.embd  # the dimensionality of the character embedding vectors
    n_hidden = args.hidden  # the number of neurons in the hidden layer of the MLP
    model = Sequential([
        Embedding(vocab_size, n_embd),
        FlattenConsecutive(2), Linear(n_embd * 2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
        FlattenConsecutive(2), Linear(n_hidden*2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
        FlattenConsecutive(2), Linear(n_hidden*2, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
        Linear(n_hidden, vocab_size),
    ])

    # parameter init
    with mg.no_grad():
        model.layers[-1].weight *= 0.1  # last layer make less confident

    parameters = model.parameters()
    print(sum(p.nelement() for p in parameters))  # number of parameters in total
    history.append(sum(p.nelement() for p in parameters))
    for p in parameters:
        p.requires_grad = True

    shapes(model, Xtr, history)
    train(args, model, parameters, Xtr, Ytr, history, tensors)
    evaluate(args, model, data, history, tensors)
    return history, tensors


def shapes(model, Xtr, history):
    e = mg.randn(4, 8, 10)  # goal: want this to be (4, 4, 20) where consecutive 10-d vectors get concatenated
    explicit = mg.cat([e[:, ::2, :], e[:, 1::2, :]], dim=2)  # (4, 4, 20)
    history.append((e.view(4, 4, 20) == explicit).all().item())

    # look at a batch of just 4 examples
    ix = mg.randint(0, Xtr.shape[0], (4,))
    Xb = Xtr[ix]
    logits = model(Xb)
    print(Xb.shape)
    history.append(logits.sum().item())
    for layer in model.layers:
        print(layer.__class__.__name__, ':', tuple(layer.out.shape))
        history += tuple(layer.out.shape)
    history += tuple(model.layers[3].running_mean.shape)


def train(args, model, parameters, Xtr, Ytr, history, tensors):
    # same optimization as last time
    max_steps = args.steps
    batch_size = 32
    lossi = []

    for i in range(max_steps):

        # minibatch construct
        ix = mg.randint(0, Xtr.shape[0], (batch_size,))
        Xb, Yb = Xtr[ix], Ytr[ix]  # batch X,Y

        # forward pass
        logits = model(Xb)
        loss = F.cross_entropy(logits, Yb)  # loss function

        # backward pass
        for p in parameters:
            p.grad = None
        loss.backward()

        # update: simple SGD
        lr = 0.1 if i < 150000 else 0.01  # step learning rate decay
        for p in parameters:
            p.data += -lr * p.grad

        # track stats
        if i % 10000 == 0:  # print every once in a while
            print(f'{i:7d}/{max_steps:7d}: {loss.item():.4f}')
        lossi.append(loss.log10().item())
        history.append(loss.item())
    for i, p in enumerate(parameters):
        tensors[f"param{i}.grad"] = p.grad  # not in the notebook: the last step's gradients
    history += mg.tensor(lossi).view(-1, 2).mean(1).tolist()  # (the notebook's: view(-1, 1000))


def evaluate(args, model, data, history, tensors):
    # put layers into eval mode (needed for batchnorm especially)
    for layer in model.layers:
        layer.training = False

    # evaluate the loss
    @mg.no_grad()  # this decorator disables gradient tracking inside pytorch
    def split_loss(split):
        x, y = {
            'train': data["train"],
            'val': data["val"],
            'test': data["test"],
        }[split]
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        print(split, loss.item())
        history.append(loss.item())

    split_loss('train')
    split_loss('val')
    for i, layer in enumerate(model.layers):
        if isinstance(layer, BatchNorm1d):
            tensors[f"layer{i}.running_mean"] = layer.running_mean
            tensors[f"layer{i}.running_var"] = layer.running_var

    # sample from the model
    block_size, itos = 8, data["itos"]
    for _ in range(args.samples):
        out = []
        context = [0] * block_size  # initialize with all ...
        while True:
            # forward pass the neural net
            logits = model(mg.tensor([context]))
            probs = F.softmax(logits, dim=1)
            # sample from the distribution
            ix = mg.multinomial(probs, num_samples=1).item()
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
