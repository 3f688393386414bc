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
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from . import creation, memory, nn, optim
from . import functional as mf
from . import random as _random
from .backend import host_numpy as np  # host-side data preparation (the corpus, batch offsets)
from .executor import Executor
from .grad_mode import no_grad
from .nn import functional as F
from .snapshot import SnapshotManager
from .tensor import Tensor

__all__ = ["DemoConfig", "CharTransformer", "CharTokenizer", "UsageError", "load_corpus", "train", "main"]

CORPUS_PATH = Path(__file__).with_name("data") / "corpus.txt"


class UsageError(ValueError):
    """A combination of options that cannot work; the command line reports it as a usage error (exit 2)."""


def load_corpus(path: str | Path | None = None) -> str:
    """The training text: the bundled corpus, or the file at ``path``."""
    p = Path(path) if path is not None else CORPUS_PATH
    if not p.is_file():
        raise FileNotFoundError(f"corpus file {str(p)!r} does not exist (or is not a file)")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"corpus file {str(p)!r} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
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
            probs = F.softmax(logits, axis=-1).numpy().astype("float64")
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
    keep: int = 0                         # snapshots kept in OUT/snapshots (0: every one)
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


#: Options that shape the model, the data or the optimizer: a resumed run must use
#: the values the snapshot was trained with (anything else would not be the same run).
RESUME_FIXED = ("seed", "batch_size", "block_size", "d_model", "n_heads", "n_layers", "dropout", "lr",
                "weight_decay", "grad_clip", "corpus", "prompt")
#: Options a resumed run takes from its snapshot when they are not given again.
RESUME_INHERITED = ("steps", "snapshot_every", "keep", "checkpoint", "memory_budget")


def train(config: DemoConfig, log: Callable[[str], None] = print,
          on_step: Callable[[int, dict[str, Any]], None] | None = None,
          explicit: frozenset[str] | None = None) -> dict[str, Any]:
    """Train the demo model; returns losses, timings and a text sample.

    With ``config.resume`` the run continues from the newest snapshot in
    ``OUT/snapshots``.  ``explicit`` names the options the user gave (the command
    line passes it); options not given take the snapshot's values, and a given
    option that contradicts the snapshot (another ``d_model``, say) is refused,
    since the result would no longer be the run that was snapshotted.
    """
    run = _build(config, log, explicit)
    stream = sys.stderr if run.rank == 0 else _NullStream()
    bar = ProgressBar(run.config.steps, stream=stream, every=run.config.log_every)
    start = time.perf_counter()
    for step in range(run.start_step, run.config.steps + 1):
        loss = _train_step(run, step)
        bar.update(step, loss, run.tokens / max(time.perf_counter() - start, 1e-9))
        _snapshot_if_due(run, step)
        if on_step is not None:
            on_step(step, {"model": run.model, "optimizer": run.opt, "scheduler": run.sched, "loss": loss,
                           "executor": run.executor})
    return _report(run, wall=time.perf_counter() - start)


@dataclass
class _Run:
    """One training run: what :func:`_build` makes, :func:`_train_step` advances and :func:`_report` sums up."""

    config: DemoConfig
    log: Callable[[str], None]
    rank: int
    world: int
    tok: CharTokenizer
    data: Any                      # the encoded corpus (host int64)
    model: CharTransformer
    forward: Any                   # the model, or its DistributedDataParallel wrapper
    opt: Any
    sched: Any
    executor: Executor
    ckpt_config: Any
    manager: SnapshotManager | None
    start_step: int = 1
    losses: list[float] = field(default_factory=list)
    tokens: int = 0
    memory_report: dict[str, Any] = field(default_factory=dict)
    written: list[str] = field(default_factory=list)


def _build(config: DemoConfig, log: Callable[[str], None], explicit: frozenset[str] | None) -> _Run:
    """Everything before the first step: the ranks, the snapshots to resume from, the data, the model,
    the optimizer and schedule, and the state restored from a snapshot."""
    _check_config(config)
    config, log, rank, world = _join_ranks(config, log)
    manager, resumed = None, None
    if config.snapshot_every or config.resume:
        manager, resumed = _open_snapshots(config)
        if resumed is not None:
            config = _resumed_config(config, resumed, explicit, log)
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
    forward: Any = model
    if world > 1:
        from . import distributed as dist

        forward = nn.parallel.DistributedDataParallel(model)  # rank 0's weights, averaged gradients
        dist.manual_seed_per_rank(config.seed)  # each rank draws its own batches and dropout masks
    opt = optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(config.steps, 1), eta_min=config.lr * 0.1)
    run = _Run(config, log, rank, world, tok, data, model, forward, opt, sched, Executor(model, opt, sched),
               ckpt_config, manager)
    if resumed is not None:
        _resume(run, resumed)
    log(f"minigrad_ckpt demo: {_parameter_count(model):,} parameters, vocab {tok.vocab_size}, "
        f"{len(text):,} characters, device {config.device}, {config.steps} steps"
        + (f", data-parallel on {world} processes (the batch of {config.batch_size} shared out)" if world > 1 else ""))
    return run


def _join_ranks(config: DemoConfig, log: Callable[[str], None]) -> tuple[DemoConfig, Callable[[str], None], int, int]:
    """Under ``mpiexec`` the demo trains data-parallel: one GPU per rank, the batch shared out,
    and only rank 0 prints and writes.  Returns the config and log for this rank, the rank and
    the world size."""
    rank, world = _data_parallel(config.device)
    if world > 1:
        if config.device == "cuda":  # one GPU per rank
            from . import distributed as dist

            config = replace(config, device=f"cuda:{dist.group().local_rank}")
        if config.batch_size % world:
            raise UsageError(f"--batch-size {config.batch_size} does not divide among {world} ranks")
        if rank != 0:
            log = _quiet
    return config, log, rank, world


def _open_snapshots(config: DemoConfig) -> tuple[SnapshotManager, Any]:
    """The manager of ``OUT/snapshots``, and with ``--resume`` its newest snapshot (else None)."""
    directory = Path(config.out) / "snapshots"
    if config.resume and not (directory.is_dir() and SnapshotManager(directory).list_snapshots()):
        raise ValueError(f"--resume: there is no snapshot to resume from in {directory} "
                         f"(start the run with --snapshot-every N --out {config.out} first)")
    manager = SnapshotManager(directory, max_snapshots=config.keep or None)
    return manager, manager.load_latest() if config.resume else None


def _resume(run: _Run, snapshot: Any) -> None:
    """Restore the whole training state (weights, optimizer, schedule, generator, losses so far)."""
    snapshot.restore_into(run.executor)
    run.start_step = run.executor.iteration + 1
    run.losses = [float(v) for v in run.executor.get_tensor("demo.losses").numpy()]
    run.log(f"resumed from {snapshot.path.name} (iteration {run.executor.iteration})")
    if run.start_step > run.config.steps:
        run.log(f"nothing left to do: the snapshot is at step {run.executor.iteration} and --steps is "
                f"{run.config.steps} (pass a larger --steps to train on)")


def _parameter_count(model: nn.Module) -> int:
    return sum(p.size for p in model.parameters())


def _train_step(run: _Run, step: int) -> float:
    """One step: a batch, forward, loss, backward, clip, update; returns the loss (the global one
    under data parallelism).  The run's first step is measured by the memory ledger."""
    c = run.config
    x, y = get_batch(run.data, c.batch_size // run.world, c.block_size, c.device)
    with memory.track() if step == run.start_step else contextlib.nullcontext() as ledger:
        logits = run.forward(x)
        loss = F.cross_entropy(mf.reshape(logits, (-1, run.tok.vocab_size)), mf.reshape(y, (-1,)))
        run.opt.zero_grad()
        loss.backward()
    if step == run.start_step:
        run.memory_report = _memory_report(run.model, ledger, run.ckpt_config)
        run.log(run.memory_report["line"])
    if c.grad_clip:
        nn.utils.clip_grad_norm_(run.model.parameters(), c.grad_clip)
    run.opt.step()
    run.sched.step()
    value = loss.item() if run.world == 1 else _global_mean(loss)
    if not math.isfinite(value):
        raise FloatingPointError(f"the loss became {value} at step {step}")
    run.losses.append(value)
    run.tokens += x.size * run.world
    run.executor.iteration = step
    return value


def _snapshot_if_due(run: _Run, step: int) -> None:
    """Every ``--snapshot-every`` steps: the whole training state, the losses so far among it."""
    if run.manager is None or not run.config.snapshot_every or step % run.config.snapshot_every:
        return
    run.executor.add_tensor("demo.losses", np.asarray(run.losses, dtype=np.float64))
    path = run.manager.save_snapshot(run.executor, step, metadata={"demo.config": _config_json(run.config)})
    run.written.append(path.name)


def _report(run: _Run, wall: float) -> dict[str, Any]:
    """The run's result (losses, timings, memory, a text sample); with ``--out``, also its files."""
    config, losses = run.config, run.losses
    sample = run.tok.decode(run.model.generate(run.tok.encode(config.prompt), config.sample_chars))
    result = {
        "config": asdict(config),
        "parameters": _parameter_count(run.model),
        "losses": losses,
        "first_loss": losses[0] if losses else None,
        "final_loss": float(np.mean(losses[-10:])) if losses else None,
        "wall_time_s": wall,
        "tokens_per_s": run.tokens / max(wall, 1e-9),
        "start_step": run.start_step,
        "steps_run": max(0, config.steps - run.start_step + 1),
        "snapshots_written": run.written,
        "sample": sample,
        "memory": {k: v for k, v in run.memory_report.items() if k != "line"},
    }
    if run.ckpt_config is not None and run.ckpt_config.statistics is not None:
        result["checkpoint_statistics"] = run.ckpt_config.statistics.as_dict()
    result["world_size"] = run.world
    if config.out and run.rank == 0:
        _write_outputs(Path(config.out), result)
    return result


def _write_outputs(out: Path, result: dict[str, Any]) -> None:
    """``loss.csv``, ``sample.txt`` and ``summary.json`` (the result without the losses) in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    losses = result["losses"]
    (out / "loss.csv").write_text("step,loss\n" + "".join(f"{i + 1},{v!r}\n" for i, v in enumerate(losses)))
    (out / "sample.txt").write_text(result["sample"] + "\n", encoding="utf-8")
    (out / "summary.json").write_text(json.dumps({k: v for k, v in result.items() if k != "losses"}, indent=2))


def _data_parallel(device: str = "cpu") -> tuple[int, int]:
    """(rank, world size): under an MPI launcher with several ranks the demo trains
    data-parallel (joining the process group: NCCL for ``cuda`` devices, else MPI);
    otherwise (0, 1), unchanged."""
    from . import distributed as dist

    if not dist.is_initialized():
        if not dist.launched_by_mpi():
            return 0, 1
        dist.init_process_group("nccl" if str(device).startswith("cuda") else "mpi")
    return dist.get_rank(), dist.get_world_size()


def _global_mean(loss: Tensor) -> float:
    """The loss averaged over the ranks (the global batch's loss): the same number on every rank."""
    from . import distributed as dist

    value = creation.tensor([loss.item()], dtype="float64")
    return float(dist.all_reduce(value, "mean").item())


def _quiet(message: str) -> None:
    """``log`` on ranks other than 0."""


class _NullStream:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def _check_config(config: DemoConfig) -> None:
    """Refuse option combinations that cannot work, before any work is done."""
    if config.steps < 1:
        raise UsageError("--steps must be at least 1")
    if config.snapshot_every < 0 or config.keep < 0:
        raise UsageError("--snapshot-every and --keep must be >= 0")
    if (config.snapshot_every or config.resume) and not config.out:
        raise UsageError("--snapshot-every and --resume need --out DIR (snapshots live in DIR/snapshots)")
    if config.memory_budget is not None and config.checkpoint != "optimal":
        raise UsageError("--memory-budget needs --checkpoint optimal (it is the budget that plan keeps to)")
    if config.checkpoint not in ("none", "sqrt", "optimal"):
        raise UsageError(f"--checkpoint must be none, sqrt or optimal, got {config.checkpoint!r}")
    _check_sizes(config)
    _check_out(config.out)


#: The model and batch sizes, each with the smallest value that makes a model to train.
_SMALLEST = {"batch_size": 1, "block_size": 1, "d_model": 1, "n_heads": 1, "n_layers": 0, "sample_chars": 0}


def _check_sizes(config: DemoConfig) -> None:
    """Sizes that make no model (``--n-heads 0`` was a ZeroDivisionError, ``--batch-size 0`` a
    loss of NaN after building everything, ``--batch-size -3`` a NumPy shape error)."""
    for name, smallest in _SMALLEST.items():
        if getattr(config, name) < smallest:
            raise UsageError(f"--{name.replace('_', '-')} must be at least {smallest}, "
                             f"got {getattr(config, name)}")
    if not 0 <= config.lr < float("inf"):  # NaN fails too; AdamW's own check lets inf through to a NaN loss
        raise UsageError(f"--lr must be a finite number >= 0, got {config.lr}")
    # a resumed run takes these from its snapshot (changing them is refused there): only a new run's are checked
    if not config.resume and config.d_model % config.n_heads:
        raise UsageError(f"--d-model {config.d_model} must be divisible by --n-heads {config.n_heads} "
                         f"(each head gets d-model / n-heads dimensions)")


def _check_out(out: str | None) -> None:
    """``--out`` names a directory, or a place to make one: found out here, not when the run
    is over (the outputs are written at its end, and ``mkdir`` then failed with "File exists")."""
    if not out:
        return
    path = Path(out)
    while not path.exists() and path != path.parent:  # the nearest part of the path that exists
        path = path.parent
    if path.exists() and not path.is_dir():
        raise UsageError(f"--out {out}: {str(path)!r} exists and is not a directory")


def _config_json(config: DemoConfig) -> str:
    keys = RESUME_FIXED + RESUME_INHERITED
    return json.dumps({k: getattr(config, k) for k in keys}, sort_keys=True)


def _resumed_config(config: DemoConfig, snap: Any, explicit: frozenset[str] | None,
                    log: Callable[[str], None]) -> DemoConfig:
    """The configuration of a resumed run: the snapshot's, with the changes it can honour."""
    raw = snap.get_metadata("demo.config")
    if raw is None:
        raise ValueError(f"{snap.path} was not written by the demo (it has no demo.config metadata)")
    saved = json.loads(raw)
    given = set(asdict(config)) if explicit is None else set(explicit)
    changes = {}
    refused = []
    for key in RESUME_FIXED + RESUME_INHERITED:
        if key not in saved:
            continue
        if key in given and getattr(config, key) != saved[key]:
            if key in RESUME_FIXED:
                refused.append(f"--{key.replace('_', '-')} {getattr(config, key)} "
                               f"(the snapshot was trained with {saved[key]})")
                continue
            note = " (the learning-rate schedule keeps the cosine period it was created with)" if key == "steps" else ""
            log(f"applying the changed --{key.replace('_', '-')}: {saved[key]} -> {getattr(config, key)}{note}")
        else:
            changes[key] = saved[key]
    if refused:
        raise ValueError("cannot resume with changed options, since the result would not be the snapshotted "
                         "run: " + "; ".join(refused) + ". Drop them, or start a new run in another --out")
    return replace(config, **changes)


def _checkpoint_config(config: DemoConfig) -> Any:
    from . import checkpoint as ck

    if config.checkpoint == "none":
        return None
    policy = ck.Sqrt() if config.checkpoint == "sqrt" else ck.Optimal(config.memory_budget)
    return ck.CheckpointingConfig(policy, enable_statistics=True)


def _memory_report(model: CharTransformer, ledger: Any, ckpt_config: Any) -> dict[str, Any]:
    """Step 1's activation memory, and with checkpointing what the plan predicted and saved.

    Two different things are measured, and the report says which is which: the
    ledger's peak covers the whole step (embeddings, every block, the head and
    the loss); the planner's prediction covers only the checkpointed blocks.
    """
    measured = ledger.peak("saved")
    report: dict[str, Any] = {"measured_peak_bytes": measured}
    whole = f"activation memory of the whole step (measured by the ledger, step 1): peak {_mb(measured)}"
    if ckpt_config is None:
        report["line"] = whole
        return report
    from . import checkpoint as ck

    plan = ck.last_plan(model.blocks)
    stats = ckpt_config.statistics
    report.update(plan=plan.describe(), predicted_block_peak_bytes=plan.predicted_peak_bytes,
                  saved_bytes=stats.memory_saved_bytes)
    predicted = (f"peak {_mb(plan.predicted_peak_bytes)}" if plan.predicted_peak_bytes is not None else
                 "not predicted: the sqrt policy cuts segments by count, without profiling (--checkpoint "
                 "optimal profiles the blocks and predicts the peak)")
    lines = [f"checkpointing {plan.describe()}",
             f"activation memory of the checkpointed blocks (the planner's prediction): {predicted}",
             whole,
             f"the checkpointed blocks did not keep {_mb(stats.memory_saved_bytes)} "
             f"(measured: bytes dropped minus bytes kept)"]
    if stats.memory_saved_bytes <= 0:
        n = len(model.blocks)
        lines.append(f"note: with {n} block{'s' if n != 1 else ''} this model is too small for checkpointing to "
                     f"save memory (the plan keeps every activation it would drop); it pays from a few blocks "
                     f"on, e.g. --n-layers 8")
    report["line"] = "\n".join(lines)
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


def _positive_bytes(text: str) -> int:
    try:
        n = _parse_bytes(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of bytes: {text!r} (examples: 4MB, 512KiB, 1e6)") from None
    if n <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
    return n


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The demo's options.  Defaults are ``None`` in the parser so that a resumed
    run can tell the options given from those left out (see :func:`train`); the
    help shows each option's real default from :class:`DemoConfig`."""
    d = DemoConfig()

    def opt(flag: str, help: str, type: Any = int, **kw: Any) -> None:
        default = getattr(d, flag[2:].replace("-", "_"))
        shown = "none" if default is None else default
        p.add_argument(flag, type=type, default=None, help=f"{help} (default: {shown})", **kw)

    opt("--steps", "training steps")
    opt("--seed", "seed of the engine generator")
    opt("--device", "cpu or cuda[:N] (cuda needs CuPy and a GPU)", type=str)
    opt("--out", "write loss.csv, sample.txt and summary.json (and snapshots/) in this directory", type=str,
        metavar="DIR")
    opt("--batch-size", "sequences per step")
    opt("--block-size", "context length in characters")
    opt("--d-model", "width of the model")
    opt("--n-layers", "transformer blocks")
    opt("--n-heads", "attention heads per block")
    opt("--lr", "peak learning rate of AdamW (cosine decay to a tenth)", type=float)
    opt("--corpus", "train on this UTF-8 text file instead of the bundled corpus", type=str, metavar="FILE")
    opt("--sample-chars", "characters to generate after training")
    opt("--checkpoint", "activation checkpointing of the transformer blocks", type=str,
        choices=("none", "sqrt", "optimal"))
    opt("--memory-budget", "peak activation budget of the blocks for --checkpoint optimal, e.g. 4MB "
        "(none: the smallest feasible)", type=_positive_bytes, metavar="BYTES")
    opt("--snapshot-every", "write a snapshot of the whole training state to OUT/snapshots every N steps "
        "(0: never)", metavar="N")
    opt("--keep", "snapshots kept in OUT/snapshots, the newest ones (0: keep every one)", metavar="N")
    p.add_argument("--resume", action="store_true",
                   help="continue from the newest snapshot in OUT/snapshots, exactly as if never stopped; options "
                        "left out take the snapshot's values (default: off)")


def config_from_args(args: argparse.Namespace) -> tuple[DemoConfig, frozenset[str]]:
    """The run's configuration and the names of the options the user gave."""
    fields = [f for f in DemoConfig.__dataclass_fields__ if f not in ("resume", "extra")]
    given = {f: getattr(args, f) for f in fields if getattr(args, f, None) is not None}
    config = DemoConfig(resume=args.resume, **given)
    _check_config(config)
    return config, frozenset(given)


def main(args: argparse.Namespace) -> int:
    config, explicit = config_from_args(args)
    try:
        result = train(config, explicit=explicit)
    except Exception as exc:
        from . import distributed as dist

        if dist.get_world_size() > 1:  # the other ranks would wait for this one forever
            dist.abort(f"demo: {type(exc).__name__}: {exc}")
        raise
    if result["world_size"] > 1 and _data_parallel()[0] != 0:
        return 0  # rank 0 reports
    from .viz import text_chart

    print("\n--- sample " + "-" * 50)
    print(result["sample"])
    print("-" * 61)
    losses = result["losses"]
    if len(losses) > 1:
        print(text_chart({"loss": losses}, width=min(60, len(losses)), height=6, unit="", x_label="steps"))
    if result["steps_run"]:
        print(f"trained steps {result['start_step']}..{config.steps} in {result['wall_time_s']:.1f} s, "
              f"{result['tokens_per_s']:,.0f} tokens/s")
    if losses:
        print(f"final loss {result['final_loss']:.3f} (mean of the last {min(10, len(losses))} steps; "
              f"step 1: {result['first_loss']:.3f})")
    if result["snapshots_written"]:
        names = result["snapshots_written"]
        # --keep removes the older ones as the run goes: list the files that are there, not the ones that were
        kept = [n for n in names if (Path(config.out) / "snapshots" / n).exists()]
        listed = ", ".join(kept) if len(kept) <= 4 else f"{kept[0]} ... {kept[-1]}"
        wrote = f"wrote {len(names)} snapshot{'s' if len(names) > 1 else ''} to {config.out}/snapshots"
        print(f"{wrote}: {listed}" if len(kept) == len(names) else
              f"{wrote}, of which --keep kept {len(kept)}{': ' + listed if kept else ''}")
    if config.out:
        print(f"wrote {config.out}/loss.csv, sample.txt, summary.json")
    return 0
