"""zalandoresearch's ``pytorch-vq-vae`` notebook (``vq-vae.ipynb``), ported to minigrad_ckpt by a
mechanical rename.

    python examples/ported/vqvae.py --decay 0.99

A VQ-VAE: an encoder of strided convolutions and residual blocks (whose first ``ReLU(True)``
rewrites the block's input in place before ``x + self._block(x)`` reads it), a codebook lookup by
the ``argmin`` of squared distances, one-hot encodings by ``scatter_``, the straight-through
estimator ``inputs + (quantized - inputs).detach()``, the codebook and commitment losses and the
perplexity; with ``--decay`` the codebook is the exponential moving average of its assignments
(a buffer re-assigned each step, Laplace smoothing, ``self._ema_w`` and the embedding's weight
replaced by new ``nn.Parameter``s, which the optimizer then no longer holds); a decoder of
``ConvTranspose2d``; Adam.  Made small: 3x16x16 images, 8 hidden channels, 8 codes of 4 dimensions,
3 steps; the lines that differ are listed in ``README.md``.
"""

import argparse

import numpy as np

from local_data import default_dtype

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F
import minigrad_ckpt.optim as optim
from minigrad_ckpt.utils.data import DataLoader, TensorDataset


class VectorQuantizer(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost):
        super(VectorQuantizer, self).__init__()
        self._embedding_dim = embedding_dim
        self._num_embeddings = num_embeddings
        self._embedding = nn.Embedding(self._num_embeddings, self._embedding_dim)
        self._embedding.weight.data.uniform_(-1/self._num_embeddings, 1/self._num_embeddings)
        self._commitment_cost = commitment_cost

    def forward(self, inputs):
        # convert inputs from BCHW -> BHWC
        inputs = inputs.permute(0, 2, 3, 1).contiguous()
        input_shape = inputs.shape
        # Flatten input
        flat_input = inputs.view(-1, self._embedding_dim)
        # Calculate distances
        distances = (mg.sum(flat_input**2, dim=1, keepdim=True)
                     + mg.sum(self._embedding.weight**2, dim=1)
                     - 2 * mg.matmul(flat_input, self._embedding.weight.t()))
        # Encoding
        encoding_indices = mg.argmin(distances, dim=1).unsqueeze(1)
        encodings = mg.zeros(encoding_indices.shape[0], self._num_embeddings, device=inputs.device)
        encodings.scatter_(1, encoding_indices, 1)
        # Quantize and unflatten
        quantized = mg.matmul(encodings, self._embedding.weight).view(input_shape)
        # Loss
        e_latent_loss = F.mse_loss(quantized.detach(), inputs)
        q_latent_loss = F.mse_loss(quantized, inputs.detach())
        loss = q_latent_loss + self._commitment_cost * e_latent_loss
        quantized = inputs + (quantized - inputs).detach()
        avg_probs = mg.mean(encodings, dim=0)
        perplexity = mg.exp(-mg.sum(avg_probs * mg.log(avg_probs + 1e-10)))
        # convert quantized from BHWC -> BCHW
        return loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings


class VectorQuantizerEMA(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, commitment_cost, decay, epsilon=1e-5):
        super(VectorQuantizerEMA, self).__init__()
        self._embedding_dim = embedding_dim
        self._num_embeddings = num_embeddings
        self._embedding = nn.Embedding(self._num_embeddings, self._embedding_dim)
        self._embedding.weight.data.normal_()
        self._commitment_cost = commitment_cost
        self.register_buffer('_ema_cluster_size', mg.zeros(num_embeddings))
        self._ema_w = nn.Parameter(mg.Tensor(num_embeddings, self._embedding_dim))
        self._ema_w.data.normal_()
        self._decay = decay
        self._epsilon = epsilon

    def forward(self, inputs):
        # convert inputs from BCHW -> BHWC
        inputs = inputs.permute(0, 2, 3, 1).contiguous()
        input_shape = inputs.shape
        # Flatten input
        flat_input = inputs.view(-1, self._embedding_dim)
        # Calculate distances
        distances = (mg.sum(flat_input**2, dim=1, keepdim=True)
                     + mg.sum(self._embedding.weight**2, dim=1)
                     - 2 * mg.matmul(flat_input, self._embedding.weight.t()))
        # Encoding
        encoding_indices = mg.argmin(distances, dim=1).unsqueeze(1)
        encodings = mg.zeros(encoding_indices.shape[0], self._num_embeddings, device=inputs.device)
        encodings.scatter_(1, encoding_indices, 1)
        # Quantize and unflatten
        quantized = mg.matmul(encodings, self._embedding.weight).view(input_shape)
        # Use EMA to update the embedding vectors
        if self.training:
            self._ema_cluster_size = self._ema_cluster_size * self._decay + \
                                     (1 - self._decay) * mg.sum(encodings, 0)
            # Laplace smoothing of the cluster size
            n = mg.sum(self._ema_cluster_size.data)
            self._ema_cluster_size = (
                (self._ema_cluster_size + self._epsilon)
                / (n + self._num_embeddings * self._epsilon) * n)
            dw = mg.matmul(encodings.t(), flat_input)
            self._ema_w = nn.Parameter(self._ema_w * self._decay + (1 - self._decay) * dw)
            self._embedding.weight = nn.Parameter(self._ema_w / self._ema_cluster_size.unsqueeze(1))
        # Loss
        e_latent_loss = F.mse_loss(quantized.detach(), inputs)
        loss = self._commitment_cost * e_latent_loss
        # Straight Through Estimator
        quantized = inputs + (quantized - inputs).detach()
        avg_probs = mg.mean(encodings, dim=0)
        perplexity = mg.exp(-mg.sum(avg_probs * mg.log(avg_probs + 1e-10)))
        # convert quantized from BHWC -> BCHW
        return loss, quantized.permute(0, 3, 1, 2).contiguous(), perplexity, encodings


class Residual(nn.Module):
    def __init__(self, in_channels, num_hiddens, num_residual_hiddens):
        super(Residual, self).__init__()
        self._block = nn.Sequential(
            nn.ReLU(True),
            nn.Conv2d(in_channels=in_channels, out_channels=num_residual_hiddens,
                      kernel_size=3, stride=1, padding=1, bias=False),
            nn.ReLU(True),
            nn.Conv2d(in_channels=num_residual_hiddens, out_channels=num_hiddens,
                      kernel_size=1, stride=1, bias=False)
        )

    def forward(self, x):
        return x + self._block(x)


class ResidualStack(nn.Module):
    def __init__(self, in_channels, num_hiddens, num_residual_layers, num_residual_hiddens):
        super(ResidualStack, self).__init__()
        self._num_residual_layers = num_residual_layers
        self._layers = nn.ModuleList([Residual(in_channels, num_hiddens, num_residual_hiddens)
                                      for _ in range(self._num_residual_layers)])

    def forward(self, x):
        for i in range(self._num_residual_layers):
            x = self._layers[i](x)
        return F.relu(x)


class Encoder(nn.Module):
    def __init__(self, in_channels, num_hiddens, num_residual_layers, num_residual_hiddens):
        super(Encoder, self).__init__()
        self._conv_1 = nn.Conv2d(in_channels=in_channels, out_channels=num_hiddens//2,
                                 kernel_size=4, stride=2, padding=1)
        self._conv_2 = nn.Conv2d(in_channels=num_hiddens//2, out_channels=num_hiddens,
                                 kernel_size=4, stride=2, padding=1)
        self._conv_3 = nn.Conv2d(in_channels=num_hiddens, out_channels=num_hiddens,
                                 kernel_size=3, stride=1, padding=1)
        self._residual_stack = ResidualStack(in_channels=num_hiddens, num_hiddens=num_hiddens,
                                             num_residual_layers=num_residual_layers,
                                             num_residual_hiddens=num_residual_hiddens)

    def forward(self, inputs):
        x = self._conv_1(inputs)
        x = F.relu(x)
        x = self._conv_2(x)
        x = F.relu(x)
        x = self._conv_3(x)
        return self._residual_stack(x)


class Decoder(nn.Module):
    def __init__(self, in_channels, num_hiddens, num_residual_layers, num_residual_hiddens):
        super(Decoder, self).__init__()
        self._conv_1 = nn.Conv2d(in_channels=in_channels, out_channels=num_hiddens,
                                 kernel_size=3, stride=1, padding=1)
        self._residual_stack = ResidualStack(in_channels=num_hiddens, num_hiddens=num_hiddens,
                                             num_residual_layers=num_residual_layers,
                                             num_residual_hiddens=num_residual_hiddens)
        self._conv_trans_1 = nn.ConvTranspose2d(in_channels=num_hiddens, out_channels=num_hiddens//2,
                                                kernel_size=4, stride=2, padding=1)
        self._conv_trans_2 = nn.ConvTranspose2d(in_channels=num_hiddens//2, out_channels=3,
                                                kernel_size=4, stride=2, padding=1)

    def forward(self, inputs):
        x = self._conv_1(inputs)
        x = self._residual_stack(x)
        x = self._conv_trans_1(x)
        x = F.relu(x)
        return self._conv_trans_2(x)


class Model(nn.Module):
    def __init__(self, num_hiddens, num_residual_layers, num_residual_hiddens,
                 num_embeddings, embedding_dim, commitment_cost, decay=0):
        super(Model, self).__init__()
        self._encoder = Encoder(3, num_hiddens, num_residual_layers, num_residual_hiddens)
        self._pre_vq_conv = nn.Conv2d(in_channels=num_hiddens, out_channels=embedding_dim,
                                      kernel_size=1, stride=1)
        if decay > 0.0:
            self._vq_vae = VectorQuantizerEMA(num_embeddings, embedding_dim, commitment_cost, decay)
        else:
            self._vq_vae = VectorQuantizer(num_embeddings, embedding_dim, commitment_cost)
        self._decoder = Decoder(embedding_dim, num_hiddens, num_residual_layers, num_residual_hiddens)

    def forward(self, x):
        z = self._encoder(x)
        z = self._pre_vq_conv(z)
        loss, quantized, perplexity, _ = self._vq_vae(z)
        x_recon = self._decoder(quantized)
        return loss, x_recon, perplexity


def images(n, seed=0):
    """Colour gradients and blobs in [-0.5, 0.5], 3x16x16 (the stand-in for CIFAR-10, normalized as the
    notebook's ``Normalize((0.5, 0.5, 0.5), (1.0, 1.0, 1.0))``)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:16, 0:16] / 15.0
    cy, cx = rng.uniform(0, 1, (2, n, 1, 1, 1))
    colour = rng.uniform(0, 1, (n, 3, 1, 1))
    img = colour * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) * 6.0)
    return (img - 0.5).astype(np.float32)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--decay', type=float, default=0.0)
    parser.add_argument('--steps', type=int, default=3)
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    with default_dtype(args.double):
        return train_vqvae(args, init)


def train_vqvae(args, init):
    mg.manual_seed(0)
    batch_size = 4
    num_hiddens, num_residual_hiddens, num_residual_layers = 8, 4, 2
    embedding_dim, num_embeddings = 4, 8
    commitment_cost = 0.25
    learning_rate = 1e-3
    training_data = images(batch_size * args.steps).astype(np.float64 if args.double else np.float32)
    data_variance = np.var(training_data + 0.5)
    training_loader = DataLoader(TensorDataset(mg.from_numpy(training_data)), batch_size=batch_size,
                                 shuffle=False, pin_memory=True)
    model = Model(num_hiddens, num_residual_layers, num_residual_hiddens,
                  num_embeddings, embedding_dim, commitment_cost, args.decay)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    with mg.no_grad():  # the codebook starts at latents of the first batch, spread over its positions
        first = model._pre_vq_conv(model._encoder(next(iter(training_loader))[0]))
        first = first.permute(0, 2, 3, 1).reshape(-1, embedding_dim)
        model._vq_vae._embedding.weight.data.copy_(first[::first.shape[0] // num_embeddings])
        if args.decay > 0.0:
            model._vq_vae._ema_w.data.copy_(model._vq_vae._embedding.weight.data)
    optimizer = optim.Adam(model.parameters(), lr=learning_rate, amsgrad=False)
    model.train()
    train_res_recon_error = []
    train_res_perplexity = []
    for (data,) in training_loader:
        optimizer.zero_grad()
        vq_loss, data_recon, perplexity = model(data)
        recon_error = F.mse_loss(data_recon, data) / data_variance
        loss = recon_error + vq_loss
        loss.backward()
        optimizer.step()
        train_res_recon_error.append(recon_error.item())
        train_res_perplexity.append(perplexity.item())
    model.eval()
    with mg.no_grad():
        valid_originals = next(iter(training_loader))[0]
        vq_output_eval = model._pre_vq_conv(model._encoder(valid_originals))
        _, valid_quantize, _, encodings = model._vq_vae(vq_output_eval)
        valid_reconstructions = model._decoder(valid_quantize)
    codes = encodings.argmax(dim=1).tolist()
    return train_res_recon_error + train_res_perplexity + codes + [valid_reconstructions.sum().item()], model


if __name__ == '__main__':
    print(main()[0])
