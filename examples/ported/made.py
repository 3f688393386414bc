"""karpathy's ``pytorch-made`` (``made.py`` and ``run.py``), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/made.py --num-masks 3 --samples 2

MADE, the Masked Autoencoder for Distribution Estimation: ``MaskedLinear`` is an ``nn.Linear`` whose
weight is multiplied by a ``mask`` buffer, set from a NumPy boolean array by
``self.mask.data.copy_(torch.from_numpy(mask.astype(np.uint8).T))``; ``update_masks`` draws an input
order and hidden connectivities from a ``np.random.RandomState`` and cycles through ``num_masks`` of
them (order- and connectivity-agnostic training, resampled every ``resample_every`` steps; at test
time the logits of ``samples`` masks are averaged).  ``run.py``'s loop: ``torch.set_grad_enabled(split
== 'train')`` as a call, ``Variable``, ``F.binary_cross_entropy_with_logits(..., size_average=False)``,
``loss.data.item()``, Adam with weight decay and ``StepLR`` stepped with the epoch
(``scheduler.step(epoch)``).  ``made.py``'s own check that each output depends only on earlier inputs
(backprop of one output, ``xtr.grad[0].numpy() != 0``) runs first.  Made small: binary vectors of 12
made here (prototypes with flipped bits) instead of binarized MNIST, hidden layers of 16, batches of
20, 4 epochs; ``--double`` runs in float64.  The lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt.autograd import Variable

# ------------------------------------------------------------------------------ made.py


class MaskedLinear(nn.Linear):
    """ same as Linear except has a configurable mask on the weights """

    def __init__(self, in_features, out_features, bias=True):
        super().__init__(in_features, out_features, bias)
        self.register_buffer('mask', mg.ones(out_features, in_features))

    def set_mask(self, mask):
        self.mask.data.copy_(mg.from_numpy(mask.astype(np.uint8).T))

    def forward(self, input):
        return F.linear(input, self.mask * self.weight, self.bias)


class MADE(nn.Module):
    def __init__(self, nin, hidden_sizes, nout, num_masks=1, natural_ordering=False):
        super().__init__()
        self.nin = nin
        self.nout = nout
        self.hidden_sizes = hidden_sizes
        assert self.nout % self.nin == 0, "nout must be integer multiple of nin"

        # define a simple MLP neural net
        self.net = []
        hs = [nin] + hidden_sizes + [nout]
        for h0, h1 in zip(hs, hs[1:]):
            self.net.extend([
                MaskedLinear(h0, h1),
                nn.ReLU(),
            ])
        self.net.pop()  # pop the last ReLU for the output layer
        self.net = nn.Sequential(*self.net)

        # seeds for orders/connectivities of the model ensemble
        self.natural_ordering = natural_ordering
        self.num_masks = num_masks
        self.seed = 0  # for cycling through num_masks orderings

        self.m = {}
        self.update_masks()  # builds the initial self.m connectivity

    def update_masks(self):
        if self.m and self.num_masks == 1:
            return  # only a single seed, skip for efficiency
        L = len(self.hidden_sizes)

        # fetch the next seed and construct a random stream
        rng = np.random.RandomState(self.seed)
        self.seed = (self.seed + 1) % self.num_masks

        # sample the order of the inputs and the connectivity of all neurons
        self.m[-1] = np.arange(self.nin) if self.natural_ordering else rng.permutation(self.nin)
        for l in range(L):  # noqa: E741 (the original's name)
            self.m[l] = rng.randint(self.m[l - 1].min(), self.nin - 1, size=self.hidden_sizes[l])

        # construct the mask matrices
        masks = [self.m[l - 1][:, None] <= self.m[l][None, :] for l in range(L)]  # noqa: E741
        masks.append(self.m[L - 1][:, None] < self.m[-1][None, :])

        # handle the case where nout = nin * k, for integer k > 1
        if self.nout > self.nin:
            k = int(self.nout / self.nin)
            # replicate the mask across the other outputs
            masks[-1] = np.concatenate([masks[-1]] * k, axis=1)

        # set the masks in all MaskedLinear layers
        layers = [l for l in self.net.modules() if isinstance(l, MaskedLinear)]  # noqa: E741
        for l, m in zip(layers, masks):  # noqa: E741
            l.set_mask(m)

    def forward(self, x):
        return self.net(x)


def check_autoregressive(dtype, init=None):
    """``made.py``'s ``__main__``: which inputs each output depends on; returns, per configuration,
    the number of outputs that depend only on earlier inputs, and the dependency counts."""
    D = 10
    rng = np.random.RandomState(14)
    x = (rng.rand(1, D) > 0.5).astype(dtype)
    configs = [
        (D, [], D, False),                 # test various hidden sizes
        (D, [20], D, False),
        (D, [20, 22], D, False),
        (D, [20, 22], D, True),            # natural ordering test
        (D, [20, 22], 2 * D, True),        # test nout > nin
    ]
    out = []
    for nin, hiddens, nout, natural_ordering in configs:
        model = MADE(nin, hiddens, nout, natural_ordering=natural_ordering)
        if init is not None:  # a test hook: records or loads the starting weights
            init('check', model)
        res = []
        for k in range(nout):
            xtr = Variable(mg.from_numpy(x), requires_grad=True)
            xtrhat = model(xtr)
            loss = xtrhat[0, k]
            loss.backward()

            depends = (xtr.grad[0].numpy() != 0).astype(np.uint8)
            depends_ix = list(np.where(depends)[0])
            isok = k % nin not in depends_ix
            res.append((len(depends_ix), k, depends_ix, isok))
        res.sort()
        out += [sum(r[3] for r in res)] + [r[0] for r in res]
    return out

# ------------------------------------------------------------------------------ run.py


def binarized_data(n_train, n_test, D, dtype):
    """Instead of binarized MNIST: four random prototypes of ``D`` bits, each bit flipped with probability 0.1."""
    rng = np.random.RandomState(0)
    proto = rng.rand(4, D) > 0.5

    def sample(n):
        c = rng.randint(4, size=n)
        return (proto[c] ^ (rng.rand(n, D) < 0.1)).astype(dtype)
    return sample(n_train), sample(n_test)


def run_epoch(split, model, opt, xtr, xte, args, upto=None):
    mg.set_grad_enabled(split == 'train')  # enable/disable grad for efficiency of forwarding test batches
    model.train() if split == 'train' else model.eval()
    nsamples = 1 if split == 'train' else args.samples
    x = xtr if split == 'train' else xte
    N, D = x.size()
    B = 20  # batch size
    nsteps = N // B if upto is None else min(N // B, upto)
    lossfs = []
    for step in range(nsteps):

        # fetch the next batch of data
        xb = Variable(x[step * B:step * B + B])

        # get the logits, potentially run the same batch a number of times, resampling each time
        xbhat = mg.zeros_like(xb)
        for s in range(nsamples):
            # perform order/connectivity-agnostic training by resampling the masks
            if step % args.resample_every == 0 or split == 'test':  # if in test, cycle masks every time
                model.update_masks()
            # forward the model
            xbhat += model(xb)
        xbhat /= nsamples

        # evaluate the binary cross entropy loss
        loss = F.binary_cross_entropy_with_logits(xbhat, xb, size_average=False) / B
        lossf = loss.data.item()
        lossfs.append(lossf)

        # backward/update
        if split == 'train':
            opt.zero_grad()
            loss.backward()
            opt.step()

    print("%s epoch average loss: %f" % (split, np.mean(lossfs)))
    return lossfs


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('-q', '--hiddens', type=str, default='16,16',
                        help="Comma separated sizes for hidden layers, e.g. 500, or 500,500")
    parser.add_argument('-n', '--num-masks', type=int, default=1,
                        help="Number of orderings for order/connection-agnostic training")
    parser.add_argument('-r', '--resample-every', type=int, default=2,
                        help="For efficiency we can choose to resample orders/masks only once every this many steps")
    parser.add_argument('-s', '--samples', type=int, default=1,
                        help="How many samples of connectivity/masks to average logits over during inference")
    parser.add_argument('--epochs', type=int, default=4)
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    dtype = np.float64 if args.double else np.float32
    mg.set_default_dtype(mg.float64 if args.double else mg.float32)
    try:
        # reproducibility is good
        np.random.seed(42)
        mg.manual_seed(42)
        history = check_autoregressive(dtype, init)

        xtr, xte = binarized_data(100, 40, 12, dtype)
        xtr = mg.from_numpy(xtr)
        xte = mg.from_numpy(xte)

        hidden_list = list(map(int, args.hiddens.split(',')))
        model = MADE(xtr.size(1), hidden_list, xtr.size(1), num_masks=args.num_masks)
        if init is not None:  # a test hook: records or loads the starting weights
            init('model', model)
        print("number of model parameters:", sum([np.prod(p.size()) for p in model.parameters()]))

        opt = mg.optim.Adam(model.parameters(), 1e-3, weight_decay=1e-4)
        scheduler = mg.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)

        for epoch in range(args.epochs):
            print("epoch %d" % (epoch, ))
            scheduler.step(epoch)
            history += run_epoch('test', model, opt, xtr, xte, args, upto=2)
            history += run_epoch('train', model, opt, xtr, xte, args)

        print("optimization done. full test set eval:")
        history += run_epoch('test', model, opt, xtr, xte, args)
        history.append(model.seed)
    finally:
        mg.set_grad_enabled(True)
        mg.set_default_dtype(mg.float32)
    return history, model


if __name__ == '__main__':
    main()
