"""kjsman's stable-diffusion-pytorch (``attention.py``, ``clip.py``, ``encoder.py``, ``decoder.py``,
``diffusion.py``, ``samplers/*.py``, ``util.py`` and ``pipeline.py``'s ``generate``), ported to
minigrad_ckpt by a mechanical rename, at tiny widths with random weights (no model download).

    python examples/ported/stable_diffusion.py --sampler k_lms --double

Text-to-image and image-to-image sampling: a CLIP text encoder (token and learned position
embeddings, causal self-attention masked by ``masked_fill_`` with ``-inf``, QuickGELU), the
VAE's encoder (``chunk`` into mean and log-variance, ``clamp``, the 0.18215 scale written in place)
and decoder (``nn.Upsample``, GroupNorm, one-head self-attention), and the U-Net (GroupNorm with
``eps=1e-6``, self- and cross-attention on the text context, GEGLU, skips joined by ``cat``,
nearest ``F.interpolate``); classifier-free guidance (the batch ``repeat``-ed, the output
``chunk``-ed); the k-diffusion samplers, whose arithmetic mixes tensors with NumPy float64
scalars (``latents += lms_coeff * output``, ``np.interp`` of the log-sigmas, the LMS coefficients
by ``np.trapz``), Euler ancestral's noise drawn from a seeded ``Generator``; then the images
rescaled in place and cast ``to('cpu', uint8)``.  Made small: widths 32/64/128 (320/640/1280),
a 32-wide CLIP of 2 layers and 4 heads over 8 tokens of a 100-word vocabulary, 64x64 images
(8x8 latents), 4 inference steps.
"""

import argparse
import math

import numpy as np

from local_data import default_dtype

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.nn import functional as F

# widths: 320->32, 640->64, 1280->128, 768 (CLIP and the context)->32, the VAE's 128/256/512->32/64/128
C1, C2, C3, DC, V1, V2, V3 = 32, 64, 128, 32, 32, 64, 128
NV, NT, NH, NL = 100, 8, 4, 2   # CLIP: vocabulary (49408), tokens (77), heads (12), layers (12)
NTE = 16                        # time-embedding frequencies (160)

if not hasattr(np, "trapz"):  # NumPy 2.4 removed the name the source calls; the same function
    np.trapz = np.trapezoid


# ---- attention.py



class SelfAttention(nn.Module):
    def __init__(self, n_heads, d_embed, in_proj_bias=True, out_proj_bias=True):
        super().__init__()
        self.in_proj = nn.Linear(d_embed, 3 * d_embed, bias=in_proj_bias)
        self.out_proj = nn.Linear(d_embed, d_embed, bias=out_proj_bias)
        self.n_heads = n_heads
        self.d_head = d_embed // n_heads

    def forward(self, x, causal_mask=False):
        input_shape = x.shape
        batch_size, sequence_length, d_embed = input_shape
        interim_shape = (batch_size, sequence_length, self.n_heads, self.d_head)
        q, k, v = self.in_proj(x).chunk(3, dim=-1)
        q = q.view(interim_shape).transpose(1, 2)
        k = k.view(interim_shape).transpose(1, 2)
        v = v.view(interim_shape).transpose(1, 2)
        weight = q @ k.transpose(-1, -2)
        if causal_mask:
            mask = mg.ones_like(weight, dtype=mg.bool).triu(1)
            weight.masked_fill_(mask, -mg.inf)
        weight /= math.sqrt(self.d_head)
        weight = F.softmax(weight, dim=-1)
        output = weight @ v
        output = output.transpose(1, 2)
        output = output.reshape(input_shape)
        output = self.out_proj(output)
        return output

class CrossAttention(nn.Module):
    def __init__(self, n_heads, d_embed, d_cross, in_proj_bias=True, out_proj_bias=True):
        super().__init__()
        self.q_proj = nn.Linear(d_embed, d_embed, bias=in_proj_bias)
        self.k_proj = nn.Linear(d_cross, d_embed, bias=in_proj_bias)
        self.v_proj = nn.Linear(d_cross, d_embed, bias=in_proj_bias)
        self.out_proj = nn.Linear(d_embed, d_embed, bias=out_proj_bias)
        self.n_heads = n_heads
        self.d_head = d_embed // n_heads

    def forward(self, x, y):
        input_shape = x.shape
        batch_size, sequence_length, d_embed = input_shape
        interim_shape = (batch_size, -1, self.n_heads, self.d_head)
        q = self.q_proj(x)
        k = self.k_proj(y)
        v = self.v_proj(y)
        q = q.view(interim_shape).transpose(1, 2)
        k = k.view(interim_shape).transpose(1, 2)
        v = v.view(interim_shape).transpose(1, 2)
        weight = q @ k.transpose(-1, -2)
        weight /= math.sqrt(self.d_head)
        weight = F.softmax(weight, dim=-1)
        output = weight @ v
        output = output.transpose(1, 2).contiguous()
        output = output.view(input_shape)
        output = self.out_proj(output)
        return output

# ---- clip.py


class CLIPEmbedding(nn.Module):
    def __init__(self, n_vocab: int, n_embd: int, n_token: int):
        super().__init__()
        self.token_embedding = nn.Embedding(n_vocab, n_embd)
        self.position_value = nn.Parameter(mg.zeros((n_token, n_embd)))

    def forward(self, tokens):
        x = self.token_embedding(tokens)
        x += self.position_value
        return x

class CLIPLayer(nn.Module):
    def __init__(self, n_head: int, n_embd: int):
        super().__init__()
        self.layernorm_1 = nn.LayerNorm(n_embd)
        self.attention = SelfAttention(n_head, n_embd)
        self.layernorm_2 = nn.LayerNorm(n_embd)
        self.linear_1 = nn.Linear(n_embd, 4 * n_embd)
        self.linear_2 = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x):
        residue = x
        x = self.layernorm_1(x)
        x = self.attention(x, causal_mask=True)
        x += residue
        residue = x
        x = self.layernorm_2(x)
        x = self.linear_1(x)
        x = x * mg.sigmoid(1.702 * x)
        x = self.linear_2(x)
        x += residue
        return x

class CLIP(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = CLIPEmbedding(NV, DC, NT)
        self.layers = nn.ModuleList([CLIPLayer(NH, DC) for i in range(NL)])
        self.layernorm = nn.LayerNorm(DC)

    def forward(self, tokens):
        tokens = tokens.type(mg.long)
        state = self.embedding(tokens)
        for layer in self.layers:
            state = layer(state)
        output = self.layernorm(state)
        return output

# ---- decoder.py (the VAE's blocks, encoder.py's too)


class VAEAttentionBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.groupnorm = nn.GroupNorm(32, channels)
        self.attention = SelfAttention(1, channels)

    def forward(self, x):
        residue = x
        x = self.groupnorm(x)
        n, c, h, w = x.shape
        x = x.view((n, c, h * w))
        x = x.transpose(-1, -2)
        x = self.attention(x)
        x = x.transpose(-1, -2)
        x = x.view((n, c, h, w))
        x += residue
        return x

class VAEResidualBlock(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.groupnorm_1 = nn.GroupNorm(32, in_channels)
        self.conv_1 = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.groupnorm_2 = nn.GroupNorm(32, out_channels)
        self.conv_2 = nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1)
        if in_channels == out_channels:
            self.residual_layer = nn.Identity()
        else:
            self.residual_layer = nn.Conv2d(in_channels, out_channels, kernel_size=1, padding=0)

    def forward(self, x):
        residue = x
        x = self.groupnorm_1(x)
        x = F.silu(x)
        x = self.conv_1(x)
        x = self.groupnorm_2(x)
        x = F.silu(x)
        x = self.conv_2(x)
        return x + self.residual_layer(residue)

class Decoder(nn.Sequential):
    def __init__(self):
        super().__init__(
            nn.Conv2d(4, 4, kernel_size=1, padding=0), nn.Conv2d(4, V3, kernel_size=3, padding=1),
            VAEResidualBlock(V3, V3), VAEAttentionBlock(V3), VAEResidualBlock(V3, V3),
            nn.Upsample(scale_factor=2), nn.Conv2d(V3, V3, kernel_size=3, padding=1),
            VAEResidualBlock(V3, V2),
            nn.Upsample(scale_factor=2), nn.Conv2d(V2, V2, kernel_size=3, padding=1),
            VAEResidualBlock(V2, V1),
            nn.Upsample(scale_factor=2), nn.Conv2d(V1, V1, kernel_size=3, padding=1),
            VAEResidualBlock(V1, V1),
            nn.GroupNorm(32, V1), nn.SiLU(), nn.Conv2d(V1, 3, kernel_size=3, padding=1))

    def forward(self, x):
        x /= 0.18215
        for module in self:
            x = module(x)
        return x

# ---- encoder.py


class Encoder(nn.Sequential):
    def __init__(self):
        super().__init__(
            nn.Conv2d(3, V1, kernel_size=3, padding=1), VAEResidualBlock(V1, V1),
            nn.Conv2d(V1, V1, kernel_size=3, stride=2, padding=1), VAEResidualBlock(V1, V2),
            nn.Conv2d(V2, V2, kernel_size=3, stride=2, padding=1), VAEResidualBlock(V2, V3),
            nn.Conv2d(V3, V3, kernel_size=3, stride=2, padding=1), VAEResidualBlock(V3, V3),
            VAEAttentionBlock(V3), VAEResidualBlock(V3, V3),
            nn.GroupNorm(32, V3), nn.SiLU(),
            nn.Conv2d(V3, 8, kernel_size=3, padding=1), nn.Conv2d(8, 8, kernel_size=1, padding=0))

    def forward(self, x, noise):
        for module in self:
            x = module(x)
        mean, log_variance = mg.chunk(x, 2, dim=1)
        log_variance = mg.clamp(log_variance, -30, 20)
        variance = log_variance.exp()
        stdev = variance.sqrt()
        x = mean + stdev * noise
        x *= 0.18215
        return x

# ---- diffusion.py


class TimeEmbedding(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.linear_1 = nn.Linear(n_embd, 4 * n_embd)
        self.linear_2 = nn.Linear(4 * n_embd, 4 * n_embd)

    def forward(self, x):
        x = self.linear_1(x)
        x = F.silu(x)
        x = self.linear_2(x)
        return x

class ResidualBlock(nn.Module):
    def __init__(self, in_channels, out_channels, n_time=4 * C1):
        super().__init__()
        self.groupnorm_feature = nn.GroupNorm(32, in_channels)
        self.conv_feature = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)
        self.linear_time = nn.Linear(n_time, out_channels)
        self.groupnorm_merged = nn.GroupNorm(32, out_channels)
        self.conv_merged = nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1)
        if in_channels == out_channels:
            self.residual_layer = nn.Identity()
        else:
            self.residual_layer = nn.Conv2d(in_channels, out_channels, kernel_size=1, padding=0)

    def forward(self, feature, time):
        residue = feature
        feature = self.groupnorm_feature(feature)
        feature = F.silu(feature)
        feature = self.conv_feature(feature)
        time = F.silu(time)
        time = self.linear_time(time)
        merged = feature + time.unsqueeze(-1).unsqueeze(-1)
        merged = self.groupnorm_merged(merged)
        merged = F.silu(merged)
        merged = self.conv_merged(merged)
        return merged + self.residual_layer(residue)

class AttentionBlock(nn.Module):
    def __init__(self, n_head: int, n_embd: int, d_context=DC):
        super().__init__()
        channels = n_head * n_embd
        self.groupnorm = nn.GroupNorm(32, channels, eps=1e-6)
        self.conv_input = nn.Conv2d(channels, channels, kernel_size=1, padding=0)
        self.layernorm_1 = nn.LayerNorm(channels)
        self.attention_1 = SelfAttention(n_head, channels, in_proj_bias=False)
        self.layernorm_2 = nn.LayerNorm(channels)
        self.attention_2 = CrossAttention(n_head, channels, d_context, in_proj_bias=False)
        self.layernorm_3 = nn.LayerNorm(channels)
        self.linear_geglu_1 = nn.Linear(channels, 4 * channels * 2)
        self.linear_geglu_2 = nn.Linear(4 * channels, channels)
        self.conv_output = nn.Conv2d(channels, channels, kernel_size=1, padding=0)

    def forward(self, x, context):
        residue_long = x
        x = self.groupnorm(x)
        x = self.conv_input(x)
        n, c, h, w = x.shape
        x = x.view((n, c, h * w))
        x = x.transpose(-1, -2)
        residue_short = x
        x = self.layernorm_1(x)
        x = self.attention_1(x)
        x += residue_short
        residue_short = x
        x = self.layernorm_2(x)
        x = self.attention_2(x, context)
        x += residue_short
        residue_short = x
        x = self.layernorm_3(x)
        x, gate = self.linear_geglu_1(x).chunk(2, dim=-1)
        x = x * F.gelu(gate)
        x = self.linear_geglu_2(x)
        x += residue_short
        x = x.transpose(-1, -2)
        x = x.view((n, c, h, w))
        return self.conv_output(x) + residue_long

class Upsample(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1)

    def forward(self, x):
        x = F.interpolate(x, scale_factor=2, mode='nearest')
        return self.conv(x)

class SwitchSequential(nn.Sequential):
    def forward(self, x, context, time):
        for layer in self:
            if isinstance(layer, AttentionBlock):
                x = layer(x, context)
            elif isinstance(layer, ResidualBlock):
                x = layer(x, time)
            else:
                x = layer(x)
        return x

H1, H2, H3 = C1 // 8, C2 // 8, C3 // 8  # AttentionBlock(8, 40/80/160) in the source

class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoders = nn.ModuleList([
            SwitchSequential(nn.Conv2d(4, C1, kernel_size=3, padding=1)),
            SwitchSequential(ResidualBlock(C1, C1), AttentionBlock(8, H1)),
            SwitchSequential(ResidualBlock(C1, C1), AttentionBlock(8, H1)),
            SwitchSequential(nn.Conv2d(C1, C1, kernel_size=3, stride=2, padding=1)),
            SwitchSequential(ResidualBlock(C1, C2), AttentionBlock(8, H2)),
            SwitchSequential(ResidualBlock(C2, C2), AttentionBlock(8, H2)),
            SwitchSequential(nn.Conv2d(C2, C2, kernel_size=3, stride=2, padding=1)),
            SwitchSequential(ResidualBlock(C2, C3), AttentionBlock(8, H3)),
            SwitchSequential(ResidualBlock(C3, C3), AttentionBlock(8, H3)),
            SwitchSequential(nn.Conv2d(C3, C3, kernel_size=3, stride=2, padding=1)),
            SwitchSequential(ResidualBlock(C3, C3)),
            SwitchSequential(ResidualBlock(C3, C3)),
        ])
        self.bottleneck = SwitchSequential(ResidualBlock(C3, C3), AttentionBlock(8, H3), ResidualBlock(C3, C3))
        self.decoders = nn.ModuleList([
            SwitchSequential(ResidualBlock(2 * C3, C3)),
            SwitchSequential(ResidualBlock(2 * C3, C3)),
            SwitchSequential(ResidualBlock(2 * C3, C3), Upsample(C3)),
            SwitchSequential(ResidualBlock(2 * C3, C3), AttentionBlock(8, H3)),
            SwitchSequential(ResidualBlock(2 * C3, C3), AttentionBlock(8, H3)),
            SwitchSequential(ResidualBlock(C3 + C2, C3), AttentionBlock(8, H3), Upsample(C3)),
            SwitchSequential(ResidualBlock(C3 + C2, C2), AttentionBlock(8, H2)),
            SwitchSequential(ResidualBlock(2 * C2, C2), AttentionBlock(8, H2)),
            SwitchSequential(ResidualBlock(C2 + C1, C2), AttentionBlock(8, H2), Upsample(C2)),
            SwitchSequential(ResidualBlock(C2 + C1, C1), AttentionBlock(8, H1)),
            SwitchSequential(ResidualBlock(2 * C1, C1), AttentionBlock(8, H1)),
            SwitchSequential(ResidualBlock(2 * C1, C1), AttentionBlock(8, H1)),
        ])

    def forward(self, x, context, time):
        skip_connections = []
        for layers in self.encoders:
            x = layers(x, context, time)
            skip_connections.append(x)
        x = self.bottleneck(x, context, time)
        for layers in self.decoders:
            x = mg.cat((x, skip_connections.pop()), dim=1)
            x = layers(x, context, time)
        return x

class FinalLayer(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.groupnorm = nn.GroupNorm(32, in_channels)
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1)

    def forward(self, x):
        x = self.groupnorm(x)
        x = F.silu(x)
        x = self.conv(x)
        return x

class Diffusion(nn.Module):
    def __init__(self):
        super().__init__()
        self.time_embedding = TimeEmbedding(C1)
        self.unet = UNet()
        self.final = FinalLayer(C1, 4)

    def forward(self, latent, context, time):
        time = self.time_embedding(time)
        output = self.unet(latent, context, time)
        output = self.final(output)
        return output


# ---- util.py


def get_time_embedding(timestep):
    freqs = mg.pow(10000, -mg.arange(start=0, end=NTE, dtype=mg.float32) / NTE)
    x = mg.tensor([timestep], dtype=mg.float32)[:, None] * freqs[None]
    return mg.cat([mg.cos(x), mg.sin(x)], dim=-1)


def get_alphas_cumprod(beta_start=0.00085, beta_end=0.0120, n_training_steps=1000):
    betas = np.linspace(beta_start ** 0.5, beta_end ** 0.5, n_training_steps, dtype=np.float32) ** 2
    alphas = 1.0 - betas
    alphas_cumprod = np.cumprod(alphas, axis=0)
    return alphas_cumprod


def move_channel(image, to):
    if to == "first":
        return image.permute(0, 3, 1, 2)  # (N, H, W, C) -> (N, C, H, W)
    elif to == "last":
        return image.permute(0, 2, 3, 1)  # (N, C, H, W) -> (N, H, W, C)
    else:
        raise ValueError("to must be one of the following: first, last")


def rescale(x, old_range, new_range, clamp=False):
    old_min, old_max = old_range
    new_min, new_max = new_range
    x -= old_min
    x *= (new_max - new_min) / (old_max - old_min)
    x += new_min
    if clamp:
        x = x.clamp(new_min, new_max)
    return x


# ---- samplers/*.py (their shared __init__, get_input_scale and set_strength written once)


class _KSampler():
    def __init__(self, n_inference_steps=50, n_training_steps=1000):
        timesteps = np.linspace(n_training_steps - 1, 0, n_inference_steps)
        alphas_cumprod = get_alphas_cumprod(n_training_steps=n_training_steps)
        sigmas = ((1 - alphas_cumprod) / alphas_cumprod) ** 0.5
        log_sigmas = np.log(sigmas)
        log_sigmas = np.interp(timesteps, range(n_training_steps), log_sigmas)
        sigmas = np.exp(log_sigmas)
        sigmas = np.append(sigmas, 0)
        self.sigmas = sigmas
        self.initial_scale = sigmas.max()
        self.timesteps = timesteps
        self.n_inference_steps = n_inference_steps
        self.n_training_steps = n_training_steps
        self.step_count = 0

    def get_input_scale(self, step_count=None):
        if step_count is None:
            step_count = self.step_count
        sigma = self.sigmas[step_count]
        return 1 / (sigma ** 2 + 1) ** 0.5

    def set_strength(self, strength=1):
        start_step = self.n_inference_steps - int(self.n_inference_steps * strength)
        self.timesteps = np.linspace(self.n_training_steps - 1, 0, self.n_inference_steps)
        self.timesteps = self.timesteps[start_step:]
        self.initial_scale = self.sigmas[start_step]
        self.step_count = start_step


class KEulerSampler(_KSampler):
    def step(self, latents, output):
        t = self.step_count
        self.step_count += 1
        sigma_from = self.sigmas[t]
        sigma_to = self.sigmas[t + 1]
        latents += output * (sigma_to - sigma_from)
        return latents


class KEulerAncestralSampler(_KSampler):
    def __init__(self, n_inference_steps=50, n_training_steps=1000, generator=None):
        super().__init__(n_inference_steps, n_training_steps)
        self.generator = generator

    def step(self, latents, output):
        t = self.step_count
        self.step_count += 1
        sigma_from = self.sigmas[t]
        sigma_to = self.sigmas[t + 1]
        sigma_up = sigma_to * (1 - (sigma_to ** 2 / sigma_from ** 2)) ** 0.5
        sigma_down = sigma_to ** 2 / sigma_from
        latents += output * (sigma_down - sigma_from)
        noise = mg.randn(latents.shape, generator=self.generator, device=latents.device)
        latents += noise * sigma_up
        return latents


class KLMSSampler(_KSampler):
    def __init__(self, n_inference_steps=50, n_training_steps=1000, lms_order=4):
        super().__init__(n_inference_steps, n_training_steps)
        self.lms_order = lms_order
        self.outputs = []

    def step(self, latents, output):
        t = self.step_count
        self.step_count += 1
        self.outputs = [output] + self.outputs[:self.lms_order - 1]
        order = len(self.outputs)
        for i, output in enumerate(self.outputs):
            # Integrate polynomial by trapezoidal approx. method for 81 points.
            x = np.linspace(self.sigmas[t], self.sigmas[t + 1], 81)
            y = np.ones(81)
            for j in range(order):
                if i == j:
                    continue
                y *= x - self.sigmas[t - j]
                y /= self.sigmas[t - i] - self.sigmas[t - j]
            lms_coeff = np.trapz(y=y, x=x)
            latents += lms_coeff * output
        return latents


# ---- pipeline.py's generate (the tokenizer's ids given; PIL images as uint8 arrays; no tqdm)


def digest(t):
    """A tensor as three numbers for the history: its mean, its mean magnitude, and its sum against a
    fixed random pattern (which any change of any element moves); summed in float64, so that what
    is compared is the elements' values and not the order of a float32 sum's additions."""
    t = t.double()
    pattern = mg.tensor(np.random.default_rng(0).standard_normal(tuple(t.shape)))
    return [t.mean().item(), t.abs().mean().item(), (t * pattern).sum().item()]


def generate(prompts, uncond_prompts=None, input_images=None, strength=0.8, do_cfg=True, cfg_scale=7.5,
             height=512, width=512, sampler="k_lms", n_inference_steps=50, models={}, seed=None, device=None,
             history=None):
    with mg.no_grad():
        if not 0 < strength < 1:
            raise ValueError("strength must be between 0 and 1")
        if height % 8 or width % 8:
            raise ValueError("height and width must be a multiple of 8")
        if device is None:
            device = mg.device('cuda' if mg.cuda.is_available() else 'cpu')
        generator = mg.Generator(device=device)
        if seed is None:
            generator.seed()
        else:
            generator.manual_seed(seed)

        clip = models['clip']
        clip.to(device)
        if do_cfg:
            cond_tokens = mg.tensor(prompts, dtype=mg.long, device=device)
            cond_context = clip(cond_tokens)
            uncond_tokens = mg.tensor(uncond_prompts, dtype=mg.long, device=device)
            uncond_context = clip(uncond_tokens)
            context = mg.cat([cond_context, uncond_context])
        else:
            tokens = mg.tensor(prompts, dtype=mg.long, device=device)
            context = clip(tokens)
        history += digest(context)

        if sampler == "k_lms":
            sampler = KLMSSampler(n_inference_steps=n_inference_steps)
        elif sampler == "k_euler":
            sampler = KEulerSampler(n_inference_steps=n_inference_steps)
        elif sampler == "k_euler_ancestral":
            sampler = KEulerAncestralSampler(n_inference_steps=n_inference_steps, generator=generator)
        else:
            raise ValueError("Unknown sampler value %s. Accepted values are {k_lms, k_euler, k_euler_ancestral}"
                             % sampler)

        noise_shape = (len(prompts), 4, height // 8, width // 8)
        if input_images:
            encoder = models['encoder']
            encoder.to(device)
            processed_input_images = []
            for input_image in input_images:
                input_image = np.array(input_image)
                input_image = mg.tensor(input_image, dtype=mg.get_default_dtype())  # float32 in the source
                input_image = rescale(input_image, (0, 255), (-1, 1))
                processed_input_images.append(input_image)
            input_images_tensor = mg.stack(processed_input_images).to(device)
            input_images_tensor = move_channel(input_images_tensor, to="first")
            _, _, height, width = input_images_tensor.shape
            noise_shape = (len(prompts), 4, height // 8, width // 8)
            encoder_noise = mg.randn(noise_shape, generator=generator, device=device)
            latents = encoder(input_images_tensor, encoder_noise)
            history += digest(latents)
            latents_noise = mg.randn(noise_shape, generator=generator, device=device)
            sampler.set_strength(strength=strength)
            latents += latents_noise * sampler.initial_scale
        else:
            latents = mg.randn(noise_shape, generator=generator, device=device)
            latents *= sampler.initial_scale

        diffusion = models['diffusion']
        diffusion.to(device)
        for i, timestep in enumerate(sampler.timesteps):
            time_embedding = get_time_embedding(timestep).to(device, latents.dtype)  # .to(device)
            input_latents = latents * sampler.get_input_scale()
            if do_cfg:
                input_latents = input_latents.repeat(2, 1, 1, 1)
            output = diffusion(input_latents, context, time_embedding)
            if do_cfg:
                output_cond, output_uncond = output.chunk(2)
                output = cfg_scale * (output_cond - output_uncond) + output_uncond
            history += digest(output)
            latents = sampler.step(latents, output)
            history += digest(latents)

        decoder = models['decoder']
        decoder.to(device)
        images = decoder(latents)
        history += digest(images)
        images = rescale(images, (-1, 1), (0, 255), clamp=True)
        images = move_channel(images, to="last")
        images = images.to('cpu', mg.uint8).numpy()
        history += [float(images.mean())]
        return list(images)


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--sampler', default='k_lms', choices=['k_lms', 'k_euler', 'k_euler_ancestral'])
    parser.add_argument('--steps', type=int, default=4)
    parser.add_argument('--img2img', action='store_true', help='start from input images (strength 0.5)')
    parser.add_argument('--no-cfg', action='store_true')
    parser.add_argument('--double', action='store_true')
    args = parser.parse_args(argv)
    with default_dtype(args.double):
        return run(args, init)


def run(args, init):
    mg.manual_seed(0)
    models = {'clip': CLIP(), 'encoder': Encoder(), 'decoder': Decoder(), 'diffusion': Diffusion()}
    for key, model in models.items():
        if init is not None:  # a test hook: records or loads the starting weights
            init(key, model)
    rng = np.random.default_rng(5)  # the tokenizer's ids for two prompts and two empty ones
    prompts = rng.integers(0, NV, (2, NT)).tolist()
    uncond_prompts = rng.integers(0, NV, (2, NT)).tolist()
    input_images = [rng.integers(0, 256, (64, 64, 3)).astype(np.uint8) for _ in range(2)] if args.img2img else None
    history = []
    for module in models['diffusion'].modules():  # the text's effect, too small to see in the latents
        if isinstance(module, CrossAttention):    # at these weights, recorded where it enters
            module.register_forward_hook(lambda module, args, output: history.extend(digest(output)))
    images = generate(prompts, uncond_prompts, input_images=input_images, strength=0.5, do_cfg=not args.no_cfg,
                      height=64, width=64, sampler=args.sampler, n_inference_steps=args.steps, models=models,
                      seed=1, device='cpu', history=history)
    assert images[0].shape == (64, 64, 3) and images[0].dtype == np.uint8
    return history, tuple(models.values())


if __name__ == '__main__':
    print(main()[0])
