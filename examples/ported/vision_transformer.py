"""A Vision Transformer written as the common from-scratch PyTorch tutorials write it, ported to
minigrad_ckpt by a mechanical rename.

    python examples/ported/vision_transformer.py

Patches embedded by a ``Conv2d`` whose stride is the patch size, ``flatten(2).transpose(1, 2)`` to
(batch, patches, width), a class token (an ``nn.Parameter`` ``expand``-ed over the batch) and a
learned position embedding, ``nn.TransformerEncoder`` of pre-norm GELU layers with
``batch_first=True``, and a ``LayerNorm`` + ``Linear`` head on the class token; trained with
``CrossEntropyLoss(label_smoothing=...)``, ``AdamW`` and ``CosineAnnealingLR``.  Made small:
:mod:`local_data`'s synthetic 28x28 digits, patches of 7 (16 patches), width 16, 2 heads, 2 layers,
dropout 0 by default (two engines' masks differ); ``--double`` runs in float64.  The lines that
differ from the tutorials' usual text are listed in ``README.md``.
"""

import argparse

import minigrad_ckpt as mg
import minigrad_ckpt.nn as nn
from local_data import datasets, transforms


class PatchEmbedding(nn.Module):
    def __init__(self, img_size, patch_size, in_chans, embed_dim):
        super().__init__()
        self.num_patches = (img_size // patch_size) ** 2
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)

    def forward(self, x):
        x = self.proj(x)  # (B, E, H/P, W/P)
        x = x.flatten(2).transpose(1, 2)  # (B, N, E)
        return x


class VisionTransformer(nn.Module):
    def __init__(self, img_size=28, patch_size=7, in_chans=1, num_classes=10, embed_dim=16, depth=2,
                 num_heads=2, mlp_ratio=2.0, drop_rate=0.0):
        super().__init__()
        self.patch_embed = PatchEmbedding(img_size, patch_size, in_chans, embed_dim)
        num_patches = self.patch_embed.num_patches
        self.cls_token = nn.Parameter(mg.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(mg.zeros(1, 1 + num_patches, embed_dim))
        self.pos_drop = nn.Dropout(p=drop_rate)
        encoder_layer = nn.TransformerEncoderLayer(
            d_model=embed_dim, nhead=num_heads, dim_feedforward=int(embed_dim * mlp_ratio),
            dropout=drop_rate, activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(encoder_layer, num_layers=depth)
        self.norm = nn.LayerNorm(embed_dim)
        self.head = nn.Linear(embed_dim, num_classes)
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)

    def forward(self, x):
        B = x.shape[0]
        x = self.patch_embed(x)
        cls_tokens = self.cls_token.expand(B, -1, -1)
        x = mg.cat((cls_tokens, x), dim=1)
        x = x + self.pos_embed
        x = self.pos_drop(x)
        x = self.encoder(x)
        x = self.norm(x)
        return self.head(x[:, 0])


def train(model, loader, criterion, optimizer, scheduler, dtype):
    model.train()
    losses = []
    for images, labels in loader:
        images = images.to(dtype)
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    scheduler.step()
    return losses


@mg.no_grad()
def evaluate(model, loader, criterion, dtype):
    model.eval()
    total, correct, loss_sum = 0, 0, 0.0
    for images, labels in loader:
        outputs = model(images.to(dtype))
        loss_sum += criterion(outputs, labels).item() * labels.size(0)
        _, predicted = outputs.max(1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
    return loss_sum / total, correct / total


def main(argv=None, init=None):
    parser = argparse.ArgumentParser(description='Vision Transformer')
    parser.add_argument('--epochs', type=int, default=2)
    parser.add_argument('--dropout', type=float, default=0.0)
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    mg.manual_seed(0)
    dtype = mg.float64 if args.double else mg.float32
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_loader = mg.utils.data.DataLoader(
        datasets.MNIST('./data', train=True, download=True, transform=transform, size=32),
        batch_size=16, shuffle=False)
    test_loader = mg.utils.data.DataLoader(
        datasets.MNIST('./data', train=False, download=True, transform=transform, size=16),
        batch_size=16, shuffle=False)

    model = VisionTransformer(drop_rate=args.dropout).to(dtype)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    optimizer = mg.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
    scheduler = mg.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    history = []
    for epoch in range(args.epochs):
        history += train(model, train_loader, criterion, optimizer, scheduler, dtype)
        test_loss, test_acc = evaluate(model, test_loader, criterion, dtype)
        history += [test_loss, test_acc, scheduler.get_last_lr()[0]]
        print(f"epoch {epoch + 1}: test loss {test_loss:.4f}, accuracy {test_acc:.3f}")
    return history, model


if __name__ == '__main__':
    main()
