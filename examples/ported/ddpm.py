"""The Annotated Diffusion Model (Hugging Face's blog notebook, after lucidrains'
denoising-diffusion-pytorch), ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/ddpm.py --double

A DDPM training loop: a small U-Net (sinusoidal time embeddings, weight-standardized
convolutions, GroupNorm, SiLU, a time MLP giving each ResNet block a scale and shift,
linear and full attention by ``einsum``, strided-convolution down-sampling, nearest
``nn.Upsample`` and ``ConvTranspose2d`` up-sampling, skips joined by ``mg.cat``), the linear
beta schedule (``linspace``, ``cumprod``, ``F.pad``, ``gather`` by timestep), the loss on the
predicted noise, AdamW and gradient clipping; then the reverse process of three steps under
``no_grad``.  Made small: 8x8 one-channel images, ``dim`` 8, two resolutions, 3 timesteps;
``einops``' ``rearrange`` is written with ``view``/``permute`` (the lines that differ are listed
in ``README.md``).
"""

import argparse
import math
from functools import partial

import numpy as np

from local_data import default_dtype

import minigrad_ckpt as mg
import minigrad_ckpt.nn.functional as F
from minigrad_ckpt import einsum, nn


def exists(x):
    return x is not None


def default(val, d):
    if exists(val):
        return val
    return d() if callable(d) else d


class Residual(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x, *args, **kwargs):
        return self.fn(x, *args, **kwargs) + x


def Upsample(dim, dim_out=None):
    return nn.Sequential(
        nn.Upsample(scale_factor=2, mode="nearest"),
        nn.Conv2d(dim, default(dim_out, dim), 3, padding=1),
    )


def Downsample(dim, dim_out=None):
    # the notebook's older version: a strided convolution (the newer one rearranges 2x2 patches)
    return nn.Conv2d(dim, default(dim_out, dim), 4, 2, 1)


class SinusoidalPositionEmbeddings(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, time):
        device = time.device
        half_dim = self.dim // 2
        embeddings = math.log(10000) / (half_dim - 1)
        embeddings = mg.exp(mg.arange(half_dim, device=device) * -embeddings)
        embeddings = time[:, None] * embeddings[None, :]
        embeddings = mg.cat((embeddings.sin(), embeddings.cos()), dim=-1)
        return embeddings


class WeightStandardizedConv2d(nn.Conv2d):
    """https://arxiv.org/abs/1903.10520 -- weight standardization works with group normalization."""

    def forward(self, x):
        eps = 1e-5 if x.dtype == mg.float32 else 1e-3
        weight = self.weight
        mean = weight.mean(dim=(1, 2, 3), keepdim=True)
        var = mg.var(weight, dim=(1, 2, 3), keepdim=True, unbiased=False)
        normalized_weight = (weight - mean) * (var + eps).rsqrt()
        return F.conv2d(x, normalized_weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Block(nn.Module):
    def __init__(self, dim, dim_out, groups=8):
        super().__init__()
        self.proj = WeightStandardizedConv2d(dim, dim_out, 3, padding=1)
        self.norm = nn.GroupNorm(groups, dim_out)
        self.act = nn.SiLU()

    def forward(self, x, scale_shift=None):
        x = self.proj(x)
        x = self.norm(x)
        if exists(scale_shift):
            scale, shift = scale_shift
            x = x * (scale + 1) + shift
        x = self.act(x)
        return x


class ResnetBlock(nn.Module):
    def __init__(self, dim, dim_out, *, time_emb_dim=None, groups=8):
        super().__init__()
        self.mlp = (nn.Sequential(nn.SiLU(), nn.Linear(time_emb_dim, dim_out * 2))
                    if exists(time_emb_dim) else None)
        self.block1 = Block(dim, dim_out, groups=groups)
        self.block2 = Block(dim_out, dim_out, groups=groups)
        self.res_conv = nn.Conv2d(dim, dim_out, 1) if dim != dim_out else nn.Identity()

    def forward(self, x, time_emb=None):
        scale_shift = None
        if exists(self.mlp) and exists(time_emb):
            time_emb = self.mlp(time_emb)
            time_emb = time_emb[:, :, None, None]  # rearrange(time_emb, "b c -> b c 1 1")
            scale_shift = time_emb.chunk(2, dim=1)
        h = self.block1(x, scale_shift=scale_shift)
        h = self.block2(h)
        return h + self.res_conv(x)


def heads_first(t, heads):
    """rearrange(t, "b (h c) x y -> b h c (x y)", h=heads)"""
    b, hc, x, y = t.shape
    return t.reshape(b, heads, hc // heads, x * y)


class Attention(nn.Module):
    def __init__(self, dim, heads=4, dim_head=32):
        super().__init__()
        self.scale = dim_head**-0.5
        self.heads = heads
        hidden_dim = dim_head * heads
        self.to_qkv = nn.Conv2d(dim, hidden_dim * 3, 1, bias=False)
        self.to_out = nn.Conv2d(hidden_dim, dim, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        qkv = self.to_qkv(x).chunk(3, dim=1)
        q, k, v = map(lambda t: heads_first(t, self.heads), qkv)
        q = q * self.scale
        sim = einsum("b h d i, b h d j -> b h i j", q, k)
        sim = sim - sim.amax(dim=-1, keepdim=True).detach()
        attn = sim.softmax(dim=-1)
        out = einsum("b h i j, b h d j -> b h i d", attn, v)
        out = out.permute(0, 1, 3, 2).reshape(b, -1, h, w)  # rearrange "b h (x y) d -> b (h d) x y"
        return self.to_out(out)


class LinearAttention(nn.Module):
    def __init__(self, dim, heads=4, dim_head=32):
        super().__init__()
        self.scale = dim_head**-0.5
        self.heads = heads
        hidden_dim = dim_head * heads
        self.to_qkv = nn.Conv2d(dim, hidden_dim * 3, 1, bias=False)
        self.to_out = nn.Sequential(nn.Conv2d(hidden_dim, dim, 1), nn.GroupNorm(1, dim))

    def forward(self, x):
        b, c, h, w = x.shape
        qkv = self.to_qkv(x).chunk(3, dim=1)
        q, k, v = map(lambda t: heads_first(t, self.heads), qkv)
        q = q.softmax(dim=-2)
        k = k.softmax(dim=-1)
        q = q * self.scale
        context = mg.einsum("b h d n, b h e n -> b h d e", k, v)
        out = mg.einsum("b h d e, b h d n -> b h e n", context, q)
        out = out.reshape(b, -1, h, w)  # rearrange "b h c (x y) -> b (h c) x y"
        return self.to_out(out)


class PreNorm(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.fn = fn
        self.norm = nn.GroupNorm(1, dim)

    def forward(self, x):
        x = self.norm(x)
        return self.fn(x)


class Unet(nn.Module):
    def __init__(self, dim, init_dim=None, out_dim=None, dim_mults=(1, 2, 4, 8), channels=3,
                 self_condition=False, resnet_block_groups=4, heads=4, dim_head=32, transposed_up=False):
        super().__init__()
        self.channels = channels
        self.self_condition = self_condition
        input_channels = channels * (2 if self_condition else 1)
        init_dim = default(init_dim, dim)
        self.init_conv = nn.Conv2d(input_channels, init_dim, 1, padding=0)
        dims = [init_dim, *map(lambda m: dim * m, dim_mults)]
        in_out = list(zip(dims[:-1], dims[1:]))
        block_klass = partial(ResnetBlock, groups=resnet_block_groups)
        time_dim = dim * 4
        self.time_mlp = nn.Sequential(
            SinusoidalPositionEmbeddings(dim),
            nn.Linear(dim, time_dim),
            nn.GELU(),
            nn.Linear(time_dim, time_dim),
        )
        attend = dict(heads=heads, dim_head=dim_head)
        self.downs = nn.ModuleList([])
        self.ups = nn.ModuleList([])
        num_resolutions = len(in_out)
        for ind, (dim_in, dim_out) in enumerate(in_out):
            is_last = ind >= (num_resolutions - 1)
            self.downs.append(nn.ModuleList([
                block_klass(dim_in, dim_in, time_emb_dim=time_dim),
                block_klass(dim_in, dim_in, time_emb_dim=time_dim),
                Residual(PreNorm(dim_in, LinearAttention(dim_in, **attend))),
                Downsample(dim_in, dim_out) if not is_last else nn.Conv2d(dim_in, dim_out, 3, padding=1),
            ]))
        mid_dim = dims[-1]
        self.mid_block1 = block_klass(mid_dim, mid_dim, time_emb_dim=time_dim)
        self.mid_attn = Residual(PreNorm(mid_dim, Attention(mid_dim, **attend)))
        self.mid_block2 = block_klass(mid_dim, mid_dim, time_emb_dim=time_dim)
        for ind, (dim_in, dim_out) in enumerate(reversed(in_out)):
            is_last = ind == (len(in_out) - 1)
            if is_last:
                up = nn.Conv2d(dim_out, dim_in, 3, padding=1)
            elif transposed_up:  # the notebook's older Upsample
                up = nn.ConvTranspose2d(dim_out, dim_in, 4, 2, 1)
            else:
                up = Upsample(dim_out, dim_in)
            self.ups.append(nn.ModuleList([
                block_klass(dim_out + dim_in, dim_out, time_emb_dim=time_dim),
                block_klass(dim_out + dim_in, dim_out, time_emb_dim=time_dim),
                Residual(PreNorm(dim_out, LinearAttention(dim_out, **attend))),
                up,
            ]))
        self.out_dim = default(out_dim, channels)
        self.final_res_block = block_klass(dim * 2, dim, time_emb_dim=time_dim)
        self.final_conv = nn.Conv2d(dim, self.out_dim, 1)

    def forward(self, x, time, x_self_cond=None):
        if self.self_condition:
            x_self_cond = default(x_self_cond, lambda: mg.zeros_like(x))
            x = mg.cat((x_self_cond, x), dim=1)
        x = self.init_conv(x)
        r = x.clone()
        t = self.time_mlp(time)
        h = []
        for block1, block2, attn, downsample in self.downs:
            x = block1(x, t)
            h.append(x)
            x = block2(x, t)
            x = attn(x)
            h.append(x)
            x = downsample(x)
        x = self.mid_block1(x, t)
        x = self.mid_attn(x)
        x = self.mid_block2(x, t)
        for block1, block2, attn, upsample in self.ups:
            x = mg.cat((x, h.pop()), dim=1)
            x = block1(x, t)
            x = mg.cat((x, h.pop()), dim=1)
            x = block2(x, t)
            x = attn(x)
            x = upsample(x)
        x = mg.cat((x, r), dim=1)
        x = self.final_res_block(x, t)
        return self.final_conv(x)


# ------------------------------------------------------------------ the forward process
def cosine_beta_schedule(timesteps, s=0.008):
    steps = timesteps + 1
    x = mg.linspace(0, timesteps, steps)
    alphas_cumprod = mg.cos(((x / timesteps) + s) / (1 + s) * mg.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return mg.clip(betas, 0.0001, 0.9999)


def linear_beta_schedule(timesteps):
    beta_start = 0.0001
    beta_end = 0.02
    return mg.linspace(beta_start, beta_end, timesteps)


class Schedule:
    """The notebook's module-level constants, made for a given number of timesteps."""

    def __init__(self, timesteps, kind="linear"):
        self.timesteps = timesteps
        betas = linear_beta_schedule(timesteps) if kind == "linear" else cosine_beta_schedule(timesteps)
        alphas = 1. - betas
        alphas_cumprod = mg.cumprod(alphas, axis=0)
        alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
        self.betas = betas
        self.sqrt_recip_alphas = mg.sqrt(1.0 / alphas)
        self.sqrt_alphas_cumprod = mg.sqrt(alphas_cumprod)
        self.sqrt_one_minus_alphas_cumprod = mg.sqrt(1. - alphas_cumprod)
        self.posterior_variance = betas * (1. - alphas_cumprod_prev) / (1. - alphas_cumprod)


def extract(a, t, x_shape):
    batch_size = t.shape[0]
    out = a.gather(-1, t.cpu())
    return out.reshape(batch_size, *((1,) * (len(x_shape) - 1))).to(t.device)


def q_sample(sched, x_start, t, noise=None):
    if noise is None:
        noise = mg.randn_like(x_start)
    sqrt_alphas_cumprod_t = extract(sched.sqrt_alphas_cumprod, t, x_start.shape)
    sqrt_one_minus_alphas_cumprod_t = extract(sched.sqrt_one_minus_alphas_cumprod, t, x_start.shape)
    return sqrt_alphas_cumprod_t * x_start + sqrt_one_minus_alphas_cumprod_t * noise


def p_losses(sched, denoise_model, x_start, t, noise=None, loss_type="l1"):
    if noise is None:
        noise = mg.randn_like(x_start)
    x_noisy = q_sample(sched, x_start=x_start, t=t, noise=noise)
    predicted_noise = denoise_model(x_noisy, t)
    if loss_type == 'l1':
        loss = F.l1_loss(noise, predicted_noise)
    elif loss_type == 'l2':
        loss = F.mse_loss(noise, predicted_noise)
    elif loss_type == "huber":
        loss = F.smooth_l1_loss(noise, predicted_noise)
    else:
        raise NotImplementedError()
    return loss


# ------------------------------------------------------------------ the reverse process
@mg.no_grad()
def p_sample(sched, model, x, t, t_index):
    betas_t = extract(sched.betas, t, x.shape)
    sqrt_one_minus_alphas_cumprod_t = extract(sched.sqrt_one_minus_alphas_cumprod, t, x.shape)
    sqrt_recip_alphas_t = extract(sched.sqrt_recip_alphas, t, x.shape)
    # Equation 11 in the paper: the model (noise predictor) predicts the mean
    model_mean = sqrt_recip_alphas_t * (x - betas_t * model(x, t) / sqrt_one_minus_alphas_cumprod_t)
    if t_index == 0:
        return model_mean
    posterior_variance_t = extract(sched.posterior_variance, t, x.shape)
    noise = mg.randn_like(x)
    return model_mean + mg.sqrt(posterior_variance_t) * noise


@mg.no_grad()
def p_sample_loop(sched, model, shape):
    device = next(model.parameters()).device
    b = shape[0]
    img = mg.randn(shape, device=device)
    imgs = []
    for i in reversed(range(0, sched.timesteps)):
        img = p_sample(sched, model, img, mg.full((b,), i, device=device, dtype=mg.long), i)
        imgs.append(img.cpu().numpy())
    return imgs


@mg.no_grad()
def sample(sched, model, image_size, batch_size=16, channels=3):
    return p_sample_loop(sched, model, shape=(batch_size, channels, image_size, image_size))


def images(n, size, seed=0):
    """Soft discs in [-1, 1] (the stand-in for Fashion-MNIST, scaled as the notebook's transform does)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size]
    cy, cx = rng.uniform(2, size - 2, (2, n, 1, 1))
    img = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 3.0)
    return (img[:, None] * 2 - 1).astype(np.float32)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--steps', type=int, default=3)
    parser.add_argument('--batch-size', type=int, default=4)
    parser.add_argument('--image-size', type=int, default=8)
    parser.add_argument('--timesteps', type=int, default=3)
    parser.add_argument('--schedule', default='linear', choices=['linear', 'cosine'])
    parser.add_argument('--loss-type', default='huber', choices=['l1', 'l2', 'huber'])
    parser.add_argument('--transposed-up', action='store_true')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    with default_dtype(args.double):
        return train_ddpm(args, init)


def train_ddpm(args, init):
    mg.manual_seed(0)
    device = "cpu"
    sched = Schedule(args.timesteps, args.schedule)
    data = mg.from_numpy(images(args.batch_size * args.steps, args.image_size)).to(mg.get_default_dtype())
    model = Unet(dim=4, channels=1, dim_mults=(1, 2), heads=2, dim_head=4, transposed_up=args.transposed_up)
    model.to(device)
    if init is not None:  # a test hook: records or loads the starting weights
        init('model', model)
    optimizer = mg.optim.AdamW(model.parameters(), lr=1e-3)
    history = []
    for step, batch in enumerate(data.split(args.batch_size)):
        optimizer.zero_grad()
        batch_size = batch.shape[0]
        batch = batch.to(device)
        # Algorithm 1 line 3: sample t uniformly for every example in the batch
        t = mg.randint(0, args.timesteps, (batch_size,), device=device).long()
        loss = p_losses(sched, model, batch, t, loss_type=args.loss_type)
        print("Loss:", loss.item())
        loss.backward()
        history.append(loss.item())
        history.append(mg.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item())
        optimizer.step()
    samples = sample(sched, model, image_size=args.image_size, batch_size=2, channels=1)
    history.extend(float(s.mean()) for s in samples)
    history.append(float(np.abs(samples[-1]).sum()))
    return history, model


if __name__ == '__main__':
    print(main()[0])
