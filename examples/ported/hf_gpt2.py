"""GPT-2 as Hugging Face ``transformers`` writes it (``models/gpt2/modeling_gpt2.py``: ``GPT2Attention``
with its ``_attn``, ``_upcast_and_reordered_attn`` and the SDPA path, ``GPT2MLP`` with ``gelu_new``,
``GPT2Block``, ``GPT2Model``, ``GPT2LMHeadModel``; ``pytorch_utils.Conv1D``; ``activations.NewGELUActivation``;
``optimization.get_linear_schedule_with_warmup``), trained a few AdamW steps and decoded greedily with
and without the key/value cache; ported to minigrad_ckpt by a mechanical rename.

    python examples/ported/hf_gpt2.py --double
    python examples/ported/hf_gpt2.py --double --upcast     # reorder_and_upcast_attn: baddbmm in float32
    python examples/ported/hf_gpt2.py --attn sdpa           # GPT2SdpaAttention's scaled_dot_product_attention

Made small: 2 layers of width 16, 4 heads, a vocabulary of 17 and 24 positions, a NumPy-made token stream
(a cycle with noise) instead of a tokenized corpus; ``GPT2Config`` is a class of plain attributes and
``PreTrainedModel`` is left out (the test hook gives the weights their start; ``lm_head`` is tied to
``wte`` as ``tie_weights`` does).  Dropout is 0 unless ``--dropout`` says otherwise (the two engines'
masks differ).  The lines that differ are listed in ``README.md``.
"""

import argparse
import math

import numpy as np

import minigrad_ckpt as mg
from minigrad_ckpt import nn
from minigrad_ckpt.cuda.amp import autocast


class GPT2Config:
    def __init__(self, **kwargs):
        self.vocab_size, self.n_positions, self.n_embd, self.n_layer, self.n_head = 17, 24, 16, 2, 4
        self.n_inner, self.activation_function, self.layer_norm_epsilon = None, "gelu_new", 1e-5
        self.resid_pdrop = self.embd_pdrop = self.attn_pdrop = 0.0
        self.scale_attn_weights, self.scale_attn_by_inverse_layer_idx, self.reorder_and_upcast_attn = True, False, False
        self._attn_implementation = "eager"
        self.__dict__.update(kwargs)
        self.hidden_size, self.max_position_embeddings = self.n_embd, self.n_positions
        self.num_attention_heads, self.num_hidden_layers = self.n_head, self.n_layer


class Conv1D(nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(mg.empty(nx, nf))
        self.bias = nn.Parameter(mg.zeros(nf))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = mg.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        x = x.view(size_out)
        return x


class NewGELUActivation(nn.Module):
    def forward(self, input):
        return 0.5 * input * (1.0 + mg.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * mg.pow(input, 3.0))))


ACT2FN = {"gelu_new": NewGELUActivation()}


class GPT2Attention(nn.Module):
    def __init__(self, config, layer_idx=None):
        super().__init__()
        max_positions = config.max_position_embeddings
        self.register_buffer(
            "bias",
            mg.tril(mg.ones((max_positions, max_positions), dtype=mg.bool)).view(1, 1, max_positions, max_positions),
            persistent=False,
        )
        self.register_buffer("masked_bias", mg.tensor(-1e4), persistent=False)
        self.embed_dim = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.split_size = self.embed_dim
        self.scale_attn_weights = config.scale_attn_weights
        self.scale_attn_by_inverse_layer_idx = config.scale_attn_by_inverse_layer_idx
        self.layer_idx = layer_idx
        self.reorder_and_upcast_attn = config.reorder_and_upcast_attn
        self.sdpa = config._attn_implementation == "sdpa"
        self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim)
        self.c_proj = Conv1D(self.embed_dim, self.embed_dim)
        self.attn_dropout = nn.Dropout(config.attn_pdrop)
        self.resid_dropout = nn.Dropout(config.resid_pdrop)

    def _attn(self, query, key, value, attention_mask=None, head_mask=None):
        attn_weights = mg.matmul(query, key.transpose(-1, -2))
        if self.scale_attn_weights:
            attn_weights = attn_weights / mg.full(
                [], value.size(-1) ** 0.5, dtype=attn_weights.dtype, device=attn_weights.device
            )
        if self.scale_attn_by_inverse_layer_idx:
            attn_weights = attn_weights / float(self.layer_idx + 1)
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length : key_length, :key_length]
        mask_value = mg.finfo(attn_weights.dtype).min
        mask_value = mg.full([], mask_value, dtype=attn_weights.dtype).to(attn_weights.device)
        attn_weights = mg.where(causal_mask, attn_weights.to(attn_weights.dtype), mask_value)
        if attention_mask is not None:
            attn_weights = attn_weights + attention_mask
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_weights = attn_weights.type(value.dtype)
        attn_weights = self.attn_dropout(attn_weights)
        if head_mask is not None:
            attn_weights = attn_weights * head_mask
        attn_output = mg.matmul(attn_weights, value)
        return attn_output, attn_weights

    def _upcast_and_reordered_attn(self, query, key, value, attention_mask=None, head_mask=None):
        bsz, num_heads, q_seq_len, dk = query.size()
        _, _, k_seq_len, _ = key.size()
        attn_weights = mg.empty(bsz * num_heads, q_seq_len, k_seq_len, dtype=mg.float32, device=query.device)
        scale_factor = 1.0
        if self.scale_attn_weights:
            scale_factor /= float(value.size(-1)) ** 0.5
        if self.scale_attn_by_inverse_layer_idx:
            scale_factor /= float(self.layer_idx + 1)
        with autocast(enabled=False):
            q, k = query.reshape(-1, q_seq_len, dk), key.transpose(-1, -2).reshape(-1, dk, k_seq_len)
            attn_weights = mg.baddbmm(attn_weights, q.float(), k.float(), beta=0, alpha=scale_factor)
            attn_weights = attn_weights.reshape(bsz, num_heads, q_seq_len, k_seq_len)
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length : key_length, :key_length]
        mask_value = mg.finfo(attn_weights.dtype).min
        mask_value = mg.tensor(mask_value, dtype=attn_weights.dtype).to(attn_weights.device)
        attn_weights = mg.where(causal_mask, attn_weights, mask_value)
        if attention_mask is not None:
            attn_weights = attn_weights + attention_mask
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        if attn_weights.dtype != mg.float32:
            raise RuntimeError("Error with upcasting, attn_weights does not have dtype torch.float32")
        attn_weights = attn_weights.type(value.dtype)
        attn_weights = self.attn_dropout(attn_weights)
        if head_mask is not None:
            attn_weights = attn_weights * head_mask
        attn_output = mg.matmul(attn_weights, value)
        return attn_output, attn_weights

    def _split_heads(self, tensor, num_heads, attn_head_size):
        new_shape = tensor.size()[:-1] + (num_heads, attn_head_size)
        tensor = tensor.view(new_shape)
        return tensor.permute(0, 2, 1, 3)  # (batch, head, seq_length, head_features)

    def _merge_heads(self, tensor, num_heads, attn_head_size):
        tensor = tensor.permute(0, 2, 1, 3).contiguous()
        new_shape = tensor.size()[:-2] + (num_heads * attn_head_size,)
        return tensor.view(new_shape)

    def forward(self, hidden_states, layer_past=None, attention_mask=None, head_mask=None, use_cache=False,
                output_attentions=False):
        query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
        query = self._split_heads(query, self.num_heads, self.head_dim)
        key = self._split_heads(key, self.num_heads, self.head_dim)
        value = self._split_heads(value, self.num_heads, self.head_dim)
        if layer_past is not None:
            past_key, past_value = layer_past
            key = mg.cat((past_key, key), dim=-2)
            value = mg.cat((past_value, value), dim=-2)
        if use_cache is True:
            present = (key, value)
        else:
            present = None
        if self.sdpa and not output_attentions and head_mask is None:  # GPT2SdpaAttention.forward
            is_causal = True if attention_mask is None and query.shape[-2] > 1 else False
            attn_output = nn.functional.scaled_dot_product_attention(
                query, key, value, attn_mask=attention_mask,
                dropout_p=self.attn_dropout.p if self.training else 0.0, is_causal=is_causal)
            attn_weights = None
        elif self.reorder_and_upcast_attn:
            attn_output, attn_weights = self._upcast_and_reordered_attn(query, key, value, attention_mask, head_mask)
        else:
            attn_output, attn_weights = self._attn(query, key, value, attention_mask, head_mask)
        attn_output = self._merge_heads(attn_output, self.num_heads, self.head_dim)
        attn_output = self.c_proj(attn_output)
        attn_output = self.resid_dropout(attn_output)
        outputs = (attn_output, present)
        if output_attentions:
            outputs += (attn_weights,)
        return outputs  # a, present, (attentions)


class GPT2MLP(nn.Module):
    def __init__(self, intermediate_size, config):
        super().__init__()
        embed_dim = config.hidden_size
        self.c_fc = Conv1D(intermediate_size, embed_dim)
        self.c_proj = Conv1D(embed_dim, intermediate_size)
        self.act = ACT2FN[config.activation_function]
        self.dropout = nn.Dropout(config.resid_pdrop)

    def forward(self, hidden_states):
        hidden_states = self.c_fc(hidden_states)
        hidden_states = self.act(hidden_states)
        hidden_states = self.c_proj(hidden_states)
        hidden_states = self.dropout(hidden_states)
        return hidden_states


class GPT2Block(nn.Module):
    def __init__(self, config, layer_idx=None):
        super().__init__()
        hidden_size = config.hidden_size
        inner_dim = config.n_inner if config.n_inner is not None else 4 * hidden_size
        self.ln_1 = nn.LayerNorm(hidden_size, eps=config.layer_norm_epsilon)
        self.attn = GPT2Attention(config, layer_idx=layer_idx)
        self.ln_2 = nn.LayerNorm(hidden_size, eps=config.layer_norm_epsilon)
        self.mlp = GPT2MLP(inner_dim, config)

    def forward(self, hidden_states, layer_past=None, attention_mask=None, head_mask=None, use_cache=False,
                output_attentions=False):
        residual = hidden_states
        hidden_states = self.ln_1(hidden_states)
        attn_outputs = self.attn(hidden_states, layer_past=layer_past, attention_mask=attention_mask,
                                 head_mask=head_mask, use_cache=use_cache, output_attentions=output_attentions)
        attn_output = attn_outputs[0]  # output_attn: a, present, (attentions)
        outputs = attn_outputs[1:]
        hidden_states = attn_output + residual
        residual = hidden_states
        hidden_states = self.ln_2(hidden_states)
        feed_forward_hidden_states = self.mlp(hidden_states)
        hidden_states = residual + feed_forward_hidden_states
        if use_cache:
            outputs = (hidden_states,) + outputs
        else:
            outputs = (hidden_states,) + outputs[1:]
        return outputs  # hidden_states, present, (attentions)


class GPT2Model(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.embed_dim = config.hidden_size
        self.wte = nn.Embedding(config.vocab_size, self.embed_dim)
        self.wpe = nn.Embedding(config.max_position_embeddings, self.embed_dim)
        self.drop = nn.Dropout(config.embd_pdrop)
        self.h = nn.ModuleList([GPT2Block(config, layer_idx=i) for i in range(config.num_hidden_layers)])
        self.ln_f = nn.LayerNorm(self.embed_dim, eps=config.layer_norm_epsilon)

    @property
    def dtype(self):  # ModuleUtilsMixin.dtype
        return next(self.parameters()).dtype

    def forward(self, input_ids, past_key_values=None, attention_mask=None, position_ids=None, use_cache=None,
                output_attentions=False):
        input_shape = input_ids.size()
        input_ids = input_ids.view(-1, input_shape[-1])
        batch_size = input_ids.shape[0]
        device = input_ids.device
        if past_key_values is None:
            past_length = 0
            past_key_values = tuple([None] * len(self.h))
        else:
            past_length = past_key_values[0][0].size(-2)
        if position_ids is None:
            position_ids = mg.arange(past_length, input_shape[-1] + past_length, dtype=mg.long, device=device)
            position_ids = position_ids.unsqueeze(0).view(-1, input_shape[-1])
        if attention_mask is not None:
            attention_mask = attention_mask.view(batch_size, -1)
            attention_mask = attention_mask[:, None, None, :]
            attention_mask = attention_mask.to(dtype=self.dtype)  # fp16 compatibility
            attention_mask = (1.0 - attention_mask) * mg.finfo(self.dtype).min
        inputs_embeds = self.wte(input_ids)
        position_embeds = self.wpe(position_ids)
        hidden_states = inputs_embeds + position_embeds
        hidden_states = self.drop(hidden_states)
        output_shape = (-1,) + input_shape[1:] + (hidden_states.size(-1),)
        presents = () if use_cache else None
        all_self_attentions = () if output_attentions else None
        for i, (block, layer_past) in enumerate(zip(self.h, past_key_values)):
            outputs = block(hidden_states, layer_past=layer_past, attention_mask=attention_mask, use_cache=use_cache,
                            output_attentions=output_attentions)
            hidden_states = outputs[0]
            if use_cache is True:
                presents = presents + (outputs[1],)
            if output_attentions:
                all_self_attentions = all_self_attentions + (outputs[2 if use_cache else 1],)
        hidden_states = self.ln_f(hidden_states)
        hidden_states = hidden_states.view(output_shape)
        return hidden_states, presents, all_self_attentions


class GPT2LMHeadModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.transformer = GPT2Model(config)
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight  # PreTrainedModel.tie_weights

    def forward(self, input_ids, past_key_values=None, attention_mask=None, labels=None, use_cache=None,
                output_attentions=False):
        hidden_states, presents, attentions = self.transformer(
            input_ids, past_key_values=past_key_values, attention_mask=attention_mask, use_cache=use_cache,
            output_attentions=output_attentions)
        lm_logits = self.lm_head(hidden_states)
        loss = None
        if labels is not None:
            shift_logits = lm_logits[..., :-1, :].contiguous()
            shift_labels = labels[..., 1:].contiguous()
            loss_fct = nn.CrossEntropyLoss()
            loss = loss_fct(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))
        return loss, lm_logits, presents, attentions


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps, last_epoch=-1):
    def lr_lambda(current_step: int):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))

    return mg.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda, last_epoch)


def token_stream(n, vocab_size, seed=0):
    """A cycle through the vocabulary with one token in eight replaced at random (a corpus to learn)."""
    rng = np.random.default_rng(seed)
    tokens = np.arange(n) % vocab_size
    noise = rng.random(n) < 0.125
    tokens[noise] = rng.integers(0, vocab_size, noise.sum())
    return tokens


def greedy(model, input_ids, max_new_tokens, use_cache):
    """GenerationMixin's greedy search: the next token is the argmax of the last position's logits."""
    past_key_values, cur = None, input_ids
    with mg.no_grad():
        for _ in range(max_new_tokens):
            if use_cache:
                _, logits, past_key_values, _ = model(cur, past_key_values=past_key_values, use_cache=True)
            else:
                _, logits, _, _ = model(input_ids)
            next_tokens = mg.argmax(logits[:, -1, :], dim=-1)
            input_ids = mg.cat([input_ids, next_tokens[:, None]], dim=-1)
            cur = next_tokens[:, None]
    return input_ids, logits[:, -1, :]


def main(argv=None, init=None):
    parser = argparse.ArgumentParser()
    parser.add_argument('--attn', default='eager', choices=['eager', 'sdpa'])
    parser.add_argument('--upcast', action='store_true', help='reorder_and_upcast_attn (and scaling by layer)')
    parser.add_argument('--double', action='store_true')
    parser.add_argument('--dropout', type=float, default=0.0)
    parser.add_argument('--steps', type=int, default=6)
    args = parser.parse_args(argv)
    dtype = mg.float64 if args.double else mg.float32
    config = GPT2Config(_attn_implementation=args.attn, reorder_and_upcast_attn=args.upcast,
                        scale_attn_by_inverse_layer_idx=args.upcast,
                        resid_pdrop=args.dropout, embd_pdrop=args.dropout, attn_pdrop=args.dropout)
    model = GPT2LMHeadModel(config)
    if init is not None:
        init('gpt2', model)
    model.to(dtype)
    history = [float(model.lm_head.weight is model.transformer.wte.weight),
               float(sum(p.numel() for p in model.parameters()))]

    no_decay = ["bias", "ln_"]
    optimizer_grouped_parameters = [
        {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
         "weight_decay": 0.01},
        {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
    ]
    optimizer = mg.optim.AdamW(optimizer_grouped_parameters, lr=3e-3, eps=1e-8)
    scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=2, num_training_steps=args.steps)
    tokens = token_stream(args.steps * 3 * 9, config.vocab_size).reshape(args.steps, 3, 9)
    padding = np.ones((3, 9), dtype=np.int64)
    padding[2, 7:] = 0  # one row's tail is padding: the attention mask's (1.0 - mask) * finfo.min
    model.train()
    for step in range(args.steps):
        input_ids = mg.from_numpy(tokens[step])
        labels = input_ids.masked_fill(mg.from_numpy(padding) == 0, -100)
        loss, _, _, _ = model(input_ids, attention_mask=mg.from_numpy(padding), labels=labels)
        loss.backward()
        grad_norm = mg.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        history.extend([loss.item(), grad_norm.item(), scheduler.get_last_lr()[0]])

    model.eval()
    prompt = mg.from_numpy(tokens[0, :2, :4])
    with mg.no_grad():
        _, logits, _, attentions = model(prompt, output_attentions=args.attn == 'eager')
    history.extend(logits[:, -1, :].flatten().tolist())
    if attentions is not None:
        history.extend(attentions[-1][0, :, -1, :].flatten().tolist())  # the last query's weights, each head
    with_cache, last_with_cache = greedy(model, prompt, 5, use_cache=True)
    without_cache, last_without_cache = greedy(model, prompt, 5, use_cache=False)
    history.extend(with_cache.flatten().tolist())
    history.append(float(with_cache.equal(without_cache)))
    history.extend(last_with_cache.flatten().tolist())
    history.append(float((last_with_cache - last_without_cache).abs().max() < 1e-4))
    half_model = GPT2LMHeadModel(config)
    half_model.load_state_dict(model.state_dict())
    half_model.half().eval()
    with mg.no_grad():
        _, half_logits, _, _ = half_model(prompt, attention_mask=mg.ones_like(prompt))
    history.append(float(half_logits.dtype == mg.float16))
    history.append(float((half_logits.float() - logits.float()).abs().max() < 0.05))
    history.extend(half_logits.argmax(dim=-1).flatten().tolist())
    return history, model


if __name__ == '__main__':
    print(main()[0][:8])
