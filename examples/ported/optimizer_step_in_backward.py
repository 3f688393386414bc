"""PyTorch's "How to save memory by fusing the optimizer step into the backward pass" tutorial (pytorch/tutorials
``intermediate_source/optimizer_step_in_backward_tutorial.py``), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/optimizer_step_in_backward.py

The tutorial trains a vision transformer with ``Adam``: first as usual (``loss.sum().backward()``,
``optimizer.step()``, ``optimizer.zero_grad()``), then with one ``Adam([p], foreach=False)`` per parameter
stepped by a ``register_post_accumulate_grad_hook`` as soon as the parameter's gradient is accumulated -- the
optimizer step fused into the backward pass, so no gradient outlives its parameter's update.  Made small: the
model is ``TinyViT`` (a patch embedding, one ``nn.TransformerEncoderLayer``, a head; torchvision's
``vit_l_16`` without weights) on 8x8 images, ``torch.rand`` images -> a fixed formula, ``--steps`` (3) steps
of each way, both from the same weights; the CUDA memory snapshots are left out (their point, the memory, is
reported as whether any ``.grad`` is left after the fused backward).  The lines that differ from the
tutorial are listed in ``README.md``.
"""

import argparse

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn

log = []
IMAGE_SIZE = 8


def show(*args):
    log.append(" ".join(str(a) for a in args))


class TinyViT(nn.Module):
    """``vit_l_16``'s layout, small: 4x4 patches embedded by a strided convolution, a class token and
    position embeddings, one pre-norm encoder layer, a layer norm and a linear head."""

    def __init__(self, dim=16, heads=2, classes=10):
        super().__init__()
        self.conv_proj = nn.Conv2d(3, dim, kernel_size=4, stride=4)
        self.class_token = nn.Parameter(mg.zeros(1, 1, dim))
        self.pos_embedding = nn.Parameter(mg.zeros(1, (IMAGE_SIZE // 4) ** 2 + 1, dim))
        self.encoder = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=2 * dim, dropout=0.0,
                                                  activation="gelu", batch_first=True, norm_first=True)
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.conv_proj(x).flatten(2).transpose(1, 2)
        x = mg.cat([self.class_token.expand(x.shape[0], -1, -1), x], dim=1) + self.pos_embedding
        return self.head(self.ln(self.encoder(x))[:, 0])


def fake_images(step, dtype):
    """The tutorial's ``torch.rand(1, 3, IMAGE_SIZE, IMAGE_SIZE)``: fixed values in [0, 1)."""
    n = 3 * IMAGE_SIZE * IMAGE_SIZE
    return ((mg.arange(n, dtype=dtype) * 0.7548776662 + step).sin() * 0.5 + 0.5).reshape(1, 3, IMAGE_SIZE, IMAGE_SIZE)


def train(model, optimizer, step, dtype):
    # create our fake image input: tensor shape is batch_size, channels, height, width
    fake_image = fake_images(step, dtype)

    # call our forward and backward
    loss = model.forward(fake_image)
    loss.sum().backward()

    # optimizer update
    optimizer.step()
    optimizer.zero_grad()
    return loss.sum().item()


def train_fused(model, step, dtype):
    # create our fake image input: tensor shape is batch_size, channels, height, width
    fake_image = fake_images(step, dtype)

    # call our forward and backward
    loss = model.forward(fake_image)
    loss.sum().backward()

    # optimizer update --> no longer needed!
    return loss.sum().item()


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description="optimizer step in backward")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--double", action="store_true")
    args = parser.parse_args(argv)
    log.clear()
    dtype = mg.float64 if args.double else mg.float32
    history = []

    mg.manual_seed(0)
    model = TinyViT().to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init("vit", model)
    start = {k: v.clone() for k, v in model.state_dict().items()}
    optimizer = mg.optim.Adam(model.parameters())
    for step in range(args.steps):
        history.append(train(model, optimizer, step, dtype))

    fused = TinyViT().to(dtype)
    fused.load_state_dict(start)  # the same start, to compare the two ways

    # Instead of having just *one* optimizer, we will have a ``dict`` of optimizers
    # for every parameter so we could reference them in our hook.
    optimizer_dict = {p: mg.optim.Adam([p], foreach=False) for p in fused.parameters()}

    # Define our hook, which will call the optimizer ``step()`` and ``zero_grad()``
    def optimizer_hook(parameter) -> None:
        optimizer_dict[parameter].step()
        optimizer_dict[parameter].zero_grad()

    # Register the hook onto every parameter
    for p in fused.parameters():
        p.register_post_accumulate_grad_hook(optimizer_hook)

    for step in range(args.steps):
        history.append(train_fused(fused, step, dtype))
    show("gradients left after the fused backward:", sum(p.grad is not None for p in fused.parameters()))
    show("the same weights:", all(mg.allclose(a, b, rtol=1e-4 if dtype == mg.float32 else 1e-12)
                                  for a, b in zip(model.state_dict().values(), fused.state_dict().values())))
    for line in log:
        print(line)
    return history, (model, fused)


if __name__ == "__main__":
    main()
