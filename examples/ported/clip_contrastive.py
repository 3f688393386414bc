"""A CLIP-style contrastive model (openai/CLIP's and open_clip's ``CLIP``: an image encoder and a text
transformer with a causal mask whose end-of-text token is picked by ``text.argmax(dim=-1)``, both
projected and ``F.normalize``d, a learnable ``logit_scale`` initialised to ``log(1 / 0.07)``; open_clip's
``ClipLoss``: the symmetric cross-entropy over ``arange`` labels, here with ``label_smoothing``; a
training loop with gradient accumulation over micro-batches, ``clip_grad_norm_``, and the logit scale
clamped after each step); ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/clip_contrastive.py --double
    python examples/ported/clip_contrastive.py --double --clamp forward   # torch.clamp(scale.exp(), max=)

Made small: 8x8 three-channel images of NumPy-made shapes, "captions" of 6 tokens naming their colour
and shape, widths 16, embeddings of 8, one text layer; batches of 6 as 3 micro-batches of 2, a few AdamW
steps.  ``--clamp data`` (the default) clamps ``logit_scale.data`` in place after the step (open_clip's
``unwrap_model(model).logit_scale.clamp_(0, math.log(100))`` under ``no_grad``, the tutorial's
``.data.clamp_``); ``--clamp forward`` clamps the scale in the forward pass instead (the original CLIP's
``torch.clamp(logit_scale.exp(), max=100)``).  The maximum is 10 here (below the start, 1 / 0.07) so that the clamp binds.
The history records each micro-batch's loss, each step's total gradient norm and logit scale, and two
sums of each parameter's gradient.
"""

import argparse
import math

import numpy as np

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
import minigrad_ckpt.nn.functional as F


class ImageEncoder(nn.Module):
    def __init__(self, width, embed_dim):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, kernel_size=3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, kernel_size=3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.proj = nn.Linear(width, embed_dim)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.gelu(self.conv2(x))
        return self.proj(self.pool(x).flatten(1))


class TextEncoder(nn.Module):
    def __init__(self, vocab_size, context_length, width, heads, embed_dim):
        super().__init__()
        self.context_length = context_length
        self.token_embedding = nn.Embedding(vocab_size, width)
        self.positional_embedding = nn.Parameter(mg.empty(context_length, width))
        layer = nn.TransformerEncoderLayer(width, heads, 2 * width, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.transformer = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.ln_final = nn.LayerNorm(width)
        self.text_projection = nn.Parameter(mg.empty(width, embed_dim))
        self.register_buffer("attn_mask", self.build_attention_mask(), persistent=False)
        nn.init.normal_(self.positional_embedding, std=0.01)
        nn.init.normal_(self.text_projection, std=width ** -0.5)

    def build_attention_mask(self):
        # lazily create causal attention mask, with full attention between the vision tokens
        # pytorch uses additive attention mask; fill with -inf
        mask = mg.empty(self.context_length, self.context_length)
        mask.fill_(float("-inf"))
        mask.triu_(1)  # zero out the lower diagonal
        return mask

    def forward(self, text):
        x = self.token_embedding(text)  # [batch_size, n_ctx, d_model]
        x = x + self.positional_embedding
        x = self.transformer(x, mask=self.attn_mask.to(x.dtype))
        x = self.ln_final(x)
        # take features from the eot embedding (eot_token is the highest number in each sequence)
        x = x[mg.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection
        return x


class CLIP(nn.Module):
    def __init__(self, embed_dim=8, width=16, vocab_size=12, context_length=6, clamp_in_forward=False):
        super().__init__()
        self.visual = ImageEncoder(width, embed_dim)
        self.text = TextEncoder(vocab_size, context_length, width, 2, embed_dim)
        self.logit_scale = nn.Parameter(mg.ones([]) * np.log(1 / 0.07))
        self.clamp_in_forward = clamp_in_forward

    def encode_image(self, image, normalize=False):
        features = self.visual(image)
        return F.normalize(features, dim=-1) if normalize else features

    def encode_text(self, text, normalize=False):
        features = self.text(text)
        return F.normalize(features, dim=-1) if normalize else features

    def forward(self, image, text):
        image_features = self.encode_image(image, normalize=True)
        text_features = self.encode_text(text, normalize=True)
        if self.clamp_in_forward:
            return image_features, text_features, mg.clamp(self.logit_scale.exp(), max=10)
        return image_features, text_features, self.logit_scale.exp()


class ClipLoss(nn.Module):
    def __init__(self, label_smoothing=0.0):
        super().__init__()
        self.label_smoothing = label_smoothing

    def get_logits(self, image_features, text_features, logit_scale):
        logits_per_image = logit_scale * image_features @ text_features.T
        logits_per_text = logit_scale * text_features @ image_features.T
        return logits_per_image, logits_per_text

    def forward(self, image_features, text_features, logit_scale):
        device = image_features.device
        logits_per_image, logits_per_text = self.get_logits(image_features, text_features, logit_scale)
        labels = mg.arange(logits_per_image.shape[0], device=device, dtype=mg.long)
        total_loss = (
            F.cross_entropy(logits_per_image, labels, label_smoothing=self.label_smoothing)
            + F.cross_entropy(logits_per_text, labels, label_smoothing=self.label_smoothing)
        ) / 2
        return total_loss


def pairs(n, rng):
    """8x8 images of a coloured square or cross, and 6-token captions: [start, colour, shape, pad.., end]
    (the end token 11 is the largest id, as CLIP's)."""
    colours = rng.integers(0, 3, n)
    shapes = rng.integers(0, 2, n)
    images = 0.1 * rng.standard_normal((n, 3, 8, 8))
    for i in range(n):
        r, c = rng.integers(1, 4, 2)
        if shapes[i] == 0:
            images[i, colours[i], r:r + 4, c:c + 4] += 1.0
        else:
            images[i, colours[i], r + 1, c:c + 4] += 1.0
            images[i, colours[i], r:r + 4, c + 1] += 1.0
    text = np.zeros((n, 6), dtype=np.int64)
    text[:, 0], text[:, 1], text[:, 2], text[:, 3] = 1, 2 + colours, 5 + shapes, 11
    return images, text


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='CLIP-style contrastive training')
    parser.add_argument('--steps', type=int, default=3)
    parser.add_argument('--batch-size', type=int, default=6)
    parser.add_argument('--accum-freq', type=int, default=3)
    parser.add_argument('--clamp', choices=['data', 'forward'], default='data')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    rng = np.random.default_rng(0)
    images, text = pairs(args.steps * args.batch_size, rng)
    images, text = mg.from_numpy(images).to(dtype), mg.from_numpy(text)
    model = CLIP(clamp_in_forward=args.clamp == 'forward').to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    loss_fn = ClipLoss(label_smoothing=0.1)
    optimizer = mg.optim.AdamW(model.parameters(), lr=0.05, betas=(0.9, 0.98), eps=1e-6, weight_decay=0.2)
    history = []
    model.train()
    micro = args.batch_size // args.accum_freq
    for step in range(args.steps):
        optimizer.zero_grad()
        for j in range(args.accum_freq):
            start = step * args.batch_size + j * micro
            image_features, text_features, logit_scale = model(images[start:start + micro], text[start:start + micro])
            total_loss = loss_fn(image_features, text_features, logit_scale)
            (total_loss / args.accum_freq).backward()
            history.append(total_loss.item())
        grad_norm = mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0, norm_type=2.0)
        history.append(grad_norm.item())
        for p in model.parameters():
            history.extend([p.grad.sum().item(), p.grad.abs().sum().item()])
        optimizer.step()
        # Note: we clamp to 4.6052 = ln(100), as in the original paper (10 here).
        if args.clamp == 'data':
            model.logit_scale.data.clamp_(0, math.log(10))
        history.append(model.logit_scale.item())
    return history, model


if __name__ == '__main__':
    print(main()[0][:4])
