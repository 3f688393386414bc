"""The main job: ``minigrad-ckpt demo`` trains a small character-level
causal transformer on the bundled corpus, shows a live progress bar, and
prints generated text and the final loss.

Everything it uses is public API (``mg.nn``, ``mg.optim``); the training
loop is :func:`train`, written so that activation checkpointing and
snapshots plug in as options of :class:`DemoConfig`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from . import creation, memory, nn, optim
from . import functional as mf
from . import random as _random
from .backend import host_numpy as np  # host-side data preparation (the corpus, batch offsets)
from .executor import Executor
from .grad_mode import no_grad
from .snapshot import SnapshotManager
from .tensor import Tensor

__all__ = ["DemoConfig", "CharTransformer", "CharTokenizer", "load_corpus", "train", "main"]

CORPUS_PATH = Path(__file__).with_name("data") / "corpus.txt"


def load_corpus(path: str | Path | None = None) -> str:
    """The training text: the bundled corpus, or the file at ``path``."""
    p = Path(path) if path is not None else CORPUS_PATH
    text = p.read_text(encoding="utf-8")
    if len(text) < 2:
        raise ValueError(f"corpus {p} is too short to train on ({len(text)} characters)")
    return text


class CharTokenizer:
    """Characters <-> integer ids, over the characters that occur in ``text``."""

    def __init__(self, text: str) -> None:
        self.chars = sorted(set(text))
        self.stoi = {c: i for i, c in enumerate(self.chars)}

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, s: str) -> list[int]:
        try:
            return [self.stoi[c] for c in s]
        except KeyError as exc:
            raise ValueError(f"character {exc.args[0]!r} is not in the corpus vocabulary") from None

    def decode(self, ids: Any) -> str:
        return "".join(self.chars[int(i)] for i in ids)


class CharTransformer(nn.Module):
    """Token + position embeddings, ``n_layers`` causal pre-norm blocks, a final
    LayerNorm and a linear head over the vocabulary: (B, T) ids -> (B, T, vocab) logits."""

    def __init__(self, vocab_size: int, block_size: int = 64, d_model: int = 64, n_heads: int = 4,
                 n_layers: int = 2, dropout: float = 0.1) -> None:
        super().__init__()
        self.block_size = block_size
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(block_size, d_model)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.Sequential(*[nn.TransformerBlock(d_model, n_heads, dropout=dropout, causal=True,
                                                          activation="gelu_tanh")
                                      for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, ids: Tensor) -> Tensor:
        t = ids.shape[-1]
        if t > self.block_size:
            raise ValueError(f"CharTransformer: sequence of length {t} exceeds block_size={self.block_size}")
        positions = creation.arange(t, device=ids.device)
        x = self.drop(self.tok(ids) + self.pos(positions))
        return self.head(self.ln_f(self.blocks(x)))

    def enable_checkpointing(self, config: Any) -> CharTransformer:
        """Checkpoint the transformer blocks under ``config`` (see ``minigrad_ckpt.checkpoint``)."""
        self.blocks.enable_checkpointing(config)
        return self

    @no_grad()
    def generate(self, prompt_ids: list[int], n_new: int, temperature: float = 0.8) -> list[int]:
        """Sample ``n_new`` ids after ``prompt_ids`` (randomness from the engine generator)."""
        was_training = self.training
        self.eval()
        ids = list(prompt_ids)
        device = self.head.weight.device
        for _ in range(n_new):
            window = creation.tensor([ids[-self.block_size:]], device=device)
            logits = self(window)[0, -1] * (1.0 / temperature)
            probs = nn.functional.softmax(logits, axis=-1).numpy().astype("float64")
            u = creation.rand(1, dtype="float64").item()
            cdf = probs.cumsum()
            ids.append(int(min((cdf < u * cdf[-1]).sum(), len(probs) - 1)))
        self.train(was_training)
        return ids


@dataclass
class DemoConfig:
    """Everything the demo run depends on (also written to ``summary.json``)."""

    steps: int = 500
    seed: int = 0
    device: str = "cpu"
    batch_size: int = 16
    block_size: int = 64
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    dropout: float = 0.1
    lr: float = 3e-3
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    sample_chars: int = 240
    prompt: str = "Ada "
    out: str | None = None
    corpus: str | None = None
    log_every: int = 0
    checkpoint: str = "none"              # none | sqrt | optimal
    memory_budget: int | None = None      # bytes, for checkpoint="optimal"
    snapshot_every: int = 0               # write a snapshot to OUT/snapshots every N steps
    resume: bool = False                  # continue from the newest snapshot in OUT/snapshots
    extra: dict[str, Any] = field(default_factory=dict)


class ProgressBar:
    """A one-line live progress bar on a terminal; plain periodic lines otherwise."""

    def __init__(self, total: int, stream: TextIO = sys.stderr, every: int = 0) -> None:
        self.total, self.stream = total, stream
        self.live = hasattr(stream, "isatty") and stream.isatty()
        self.every = every or max(1, total // 10)
        self.start = time.perf_counter()

    def update(self, step: int, loss: float, tokens_per_s: float) -> None:
        elapsed = time.perf_counter() - self.start
        eta = elapsed / step * (self.total - step) if step else 0.0
        width = 24
        filled = int(width * step / self.total)
        bar = "=" * filled + (">" if filled < width else "") + " " * (width - filled - 1)
        line = (f"step {step:>5}/{self.total} [{bar}] loss {loss:6.3f} | "
                f"{tokens_per_s:8,.0f} tok/s | ETA {int(eta) // 60}:{int(eta) % 60:02d}")
        if self.live:
            self.stream.write("\r" + line)
            if step == self.total:
                self.stream.write("\n")
            self.stream.flush()
        elif step % self.every == 0 or step == self.total:
            self.stream.write(line + "\n")
            self.stream.flush()


def get_batch(data: Any, batch_size: int, block_size: int, device: Any) -> tuple[Tensor, Tensor]:
    """Random windows of the encoded corpus: inputs and next-character targets."""
    starts = creation.randint(0, len(data) - block_size - 1, size=(batch_size,)).numpy()
    idx = starts[:, None] + np.arange(block_size + 1)[None, :]
    chunk = data[idx]
    return (creation.tensor(chunk[:, :-1], device=device), creation.tensor(chunk[:, 1:], device=device))


def train(config: DemoConfig, log: Callable[[str], None] = print,
          on_step: Callable[[int, dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Train the demo model; returns losses, timings and a text sample."""
    _random.manual_seed(config.seed)
    text = load_corpus(config.corpus)
    tok = CharTokenizer(text)
    data = np.asarray(tok.encode(text), dtype=np.int64)
    if len(data) <= config.block_size + 1:
        raise ValueError(f"the corpus ({len(data)} characters) is shorter than block_size + 2")
    model = CharTransformer(tok.vocab_size, config.block_size, config.d_model, config.n_heads,
                            config.n_layers, config.dropout).to(config.device)
    ckpt_config = _checkpoint_config(config)
    if ckpt_config is not None:
        model.enable_checkpointing(ckpt_config)
    opt = optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(config.steps, 1), eta_min=config.lr * 0.1)
    executor = Executor(model, opt, sched)
    manager = None
    if config.snapshot_every or config.resume:
        if not config.out:
            raise ValueError("--snapshot-every and --resume need --out DIR (snapshots live in DIR/snapshots)")
        manager = SnapshotManager(Path(config.out) / "snapshots", max_snapshots=3)
    start_step, losses = 1, []
    if config.resume:
        snap = manager.load_latest()
        snap.restore_into(executor)
        start_step = executor.iteration + 1
        losses = [float(v) for v in executor.get_tensor("demo.losses").numpy()]
        log(f"resumed from {snap.path.name} (iteration {executor.iteration})")
    n_params = sum(p.size for p in model.parameters())
    log(f"minigrad_ckpt demo: {n_params:,} parameters, vocab {tok.vocab_size}, "
        f"{len(text):,} characters, device {config.device}, {config.steps} steps")
    bar = ProgressBar(config.steps, every=config.log_every)
    tokens = 0
    start = time.perf_counter()
    memory_report: dict[str, Any] = {}
    for step in range(start_step, config.steps + 1):
        x, y = get_batch(data, config.batch_size, config.block_size, config.device)
        # The first step runs under the memory ledger: measured activation bytes.
        with memory.track() if step == start_step else contextlib.nullcontext() as ledger:
            logits = model(x)
            loss = nn.functional.cross_entropy(mf.reshape(logits, (-1, tok.vocab_size)), mf.reshape(y, (-1,)))
            opt.zero_grad()
            loss.backward()
        if step == start_step:
            memory_report = _memory_report(model, ledger, ckpt_config)
            log(memory_report["line"])
        if config.grad_clip:
            nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        opt.step()
        sched.step()
        value = loss.item()
        if not math.isfinite(value):
            raise FloatingPointError(f"the loss became {value} at step {step}")
        losses.append(value)
        tokens += x.size
        elapsed = time.perf_counter() - start
        bar.update(step, value, tokens / max(elapsed, 1e-9))
        executor.iteration = step
        if manager is not None and config.snapshot_every and step % config.snapshot_every == 0:
            executor.add_tensor("demo.losses", np.asarray(losses, dtype=np.float64))
            manager.save_snapshot(executor, step)
        if on_step is not None:
            on_step(step, {"model": model, "optimizer": opt, "scheduler": sched, "loss": value,
                           "executor": executor})
    wall = time.perf_counter() - start
    sample = tok.decode(model.generate(tok.encode(config.prompt), config.sample_chars))
    result = {
        "config": asdict(config),
        "parameters": n_params,
        "losses": losses,
        "first_loss": losses[0] if losses else None,
        "final_loss": float(np.mean(losses[-10:])) if losses else None,
        "wall_time_s": wall,
        "tokens_per_s": tokens / max(wall, 1e-9),
        "start_step": start_step,
        "sample": sample,
        "memory": {k: v for k, v in memory_report.items() if k != "line"},
    }
    if ckpt_config is not None and ckpt_config.statistics is not None:
        result["checkpoint_statistics"] = ckpt_config.statistics.as_dict()
    if config.out:
        out = Path(config.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "loss.csv").write_text("step,loss\n" + "".join(f"{i + 1},{v!r}\n" for i, v in enumerate(losses)))
        (out / "sample.txt").write_text(sample + "\n", encoding="utf-8")
        (out / "summary.json").write_text(json.dumps({k: v for k, v in result.items() if k != "losses"},
                                                     indent=2))
    return result


def _checkpoint_config(config: DemoConfig) -> Any:
    from . import checkpoint as ck

    if config.checkpoint == "none":
        if config.memory_budget is not None:
            raise ValueError("--memory-budget needs --checkpoint optimal")
        return None
    if config.checkpoint == "sqrt":
        policy = ck.Sqrt()
    elif config.checkpoint == "optimal":
        policy = ck.Optimal(config.memory_budget)
    else:
        raise ValueError(f"--checkpoint must be none, sqrt or optimal, got {config.checkpoint!r}")
    return ck.CheckpointingConfig(policy, enable_statistics=True)


def _memory_report(model: CharTransformer, ledger: Any, ckpt_config: Any) -> dict[str, Any]:
    """Measured activation bytes of step 1; with checkpointing, what it saved on the blocks."""
    measured = ledger.peak("saved")
    report: dict[str, Any] = {"measured_peak_bytes": measured}
    if ckpt_config is None:
        report["line"] = f"activation memory (measured, step 1): {_mb(measured)}"
        return report
    from . import checkpoint as ck

    plan = ck.last_plan(model.blocks)
    stats = ckpt_config.statistics
    report.update(plan=plan.describe(), predicted_block_peak_bytes=plan.predicted_peak_bytes,
                  saved_bytes=stats.memory_saved_bytes)
    report["line"] = (f"checkpointing {plan.describe()}\nactivation memory (measured, step 1): {_mb(measured)}; "
                      f"the checkpointed blocks did not keep {_mb(stats.memory_saved_bytes)} "
                      f"(measured: bytes dropped minus bytes kept)")
    return report


def _mb(n: int | None) -> str:
    return "n/a" if n is None else f"{n / 2**20:.2f} MiB"


def _parse_bytes(text: str) -> int:
    """``"2MB"``, ``"512KiB"``, ``"1e6"`` -> bytes."""
    t = text.strip().lower().replace("ib", "b")
    for suffix, mult in (("gb", 2**30), ("mb", 2**20), ("kb", 2**10), ("b", 1)):
        if t.endswith(suffix):
            return int(float(t[: -len(suffix)]) * mult)
    return int(float(t))


def add_arguments(p: argparse.ArgumentParser) -> None:
    d = DemoConfig()
    p.add_argument("--steps", type=int, default=d.steps, help=f"training steps (default {d.steps})")
    p.add_argument("--seed", type=int, default=d.seed, help="seed of the engine generator")
    p.add_argument("--device", default=d.device, help="cpu or cuda[:N] (cuda needs CuPy and a GPU)")
    p.add_argument("--out", default=None, metavar="DIR", help="write loss.csv, sample.txt and summary.json here")
    p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--block-size", type=int, default=d.block_size, help="context length in characters")
    p.add_argument("--d-model", type=int, default=d.d_model)
    p.add_argument("--n-layers", type=int, default=d.n_layers)
    p.add_argument("--n-heads", type=int, default=d.n_heads)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--corpus", default=None, help="train on this text file instead of the bundled corpus")
    p.add_argument("--sample-chars", type=int, default=d.sample_chars, help="characters to generate")
    p.add_argument("--checkpoint", choices=("none", "sqrt", "optimal"), default="none",
                   help="activation checkpointing of the transformer blocks (default none)")
    p.add_argument("--memory-budget", type=_parse_bytes, default=None, metavar="BYTES",
                   help="peak activation budget for --checkpoint optimal, e.g. 4MB (default: the smallest)")
    p.add_argument("--snapshot-every", type=int, default=0, metavar="N",
                   help="write a snapshot of the whole training state to OUT/snapshots every N steps")
    p.add_argument("--resume", action="store_true",
                   help="continue from the newest snapshot in OUT/snapshots (exactly: same result as never stopping)")


def config_from_args(args: argparse.Namespace) -> DemoConfig:
    if args.steps < 1:
        raise SystemExit("demo: --steps must be at least 1")
    return DemoConfig(steps=args.steps, seed=args.seed, device=args.device, out=args.out,
                      batch_size=args.batch_size, block_size=args.block_size, d_model=args.d_model,
                      n_layers=args.n_layers, n_heads=args.n_heads, lr=args.lr, corpus=args.corpus,
                      sample_chars=args.sample_chars, checkpoint=args.checkpoint,
                      memory_budget=args.memory_budget, snapshot_every=args.snapshot_every, resume=args.resume)


def main(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    result = train(config)
    print("\n--- sample " + "-" * 50)
    print(result["sample"])
    print("-" * 61)
    print(f"loss: {result['first_loss']:.3f} at step 1 -> {result['final_loss']:.3f} "
          f"(mean of the last 10 steps) in {result['wall_time_s']:.1f} s, "
          f"{result['tokens_per_s']:,.0f} tokens/s")
    if config.out:
        print(f"wrote {config.out}/loss.csv, sample.txt, summary.json")
    return 0
