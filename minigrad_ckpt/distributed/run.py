"""``python -m minigrad_ckpt.distributed.run``: PyTorch's ``torchrun``, on an MPI launcher.

A PyTorch data-parallel script started by ``torchrun --nproc-per-node N train.py`` learns its
place in the job from the environment torchrun sets -- ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``LOCAL_WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT`` -- and many decide from it whether they
are distributed at all (nanoGPT: ``ddp = int(os.environ.get('RANK', -1)) != -1``).  Under a bare
``mpiexec -n N python train.py`` those variables are unset, and such a script trains N
independent single-process models without a word.  This launcher takes torchrun's arguments,
starts ``mpiexec`` for you, and in each rank sets torchrun's variables from the MPI launcher's own
before running the script, so the script runs unchanged::

    python -m minigrad_ckpt.distributed.run --nproc-per-node 2 train.py --batch_size=32

One node only (the ranks talk over loopback or shared memory); ``--nnodes``, ``--node-rank`` and
``--max-restarts`` other than one node and no restarts are refused rather than ignored.  Like
torchrun, it sets ``OMP_NUM_THREADS=1`` for several ranks unless it is set already: N ranks each
running a thread per core would fight over the cores.

The same program runs twice: as the launcher (it starts ``mpiexec -n N`` on itself with the same
arguments) and, inside each rank, as the rank's setup (told apart by ``MINIGRAD_CKPT_RUN_RANK``).
"""

from __future__ import annotations

import argparse
import os
import runpy
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["main", "torchrun_environment"]

#: Set by the launcher in the ranks it starts: there, this module sets up the rank and runs the script.
_RANK_MARK = "MINIGRAD_CKPT_RUN_RANK"


def build_parser() -> argparse.ArgumentParser:
    """torchrun's arguments (both spellings, ``--nproc-per-node`` and ``--nproc_per_node``)."""
    p = argparse.ArgumentParser(prog="python -m minigrad_ckpt.distributed.run",
                                description="Start a PyTorch-style data-parallel script on N ranks of this "
                                            "machine (torchrun's arguments; mpiexec underneath).")
    p.add_argument("--nproc-per-node", "--nproc_per_node", default="1",
                   help="ranks to start: a number, or 'cpu'/'auto' for one per CPU core")
    p.add_argument("--nnodes", default="1", help="only 1 (one machine)")
    p.add_argument("--node-rank", "--node_rank", type=int, default=0, help="only 0")
    p.add_argument("--standalone", action="store_true", help="accepted: one machine is always standalone here")
    p.add_argument("--master-addr", "--master_addr", default="127.0.0.1", help="exported as MASTER_ADDR")
    p.add_argument("--master-port", "--master_port", type=int, default=29500, help="exported as MASTER_PORT")
    p.add_argument("--max-restarts", "--max_restarts", type=int, default=0, help="only 0")
    p.add_argument("--rdzv-id", "--rdzv_id", default="none", help="exported as TORCHELASTIC_RUN_ID")
    p.add_argument("-m", "--module", action="store_true", help="run training_script as a module (python -m)")
    p.add_argument("--no-python", "--no_python", action="store_true",
                   help="run training_script as a program, not with Python")
    p.add_argument("training_script", help="the script (or module, with -m; program, with --no-python)")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER, help="the script's own arguments")
    return p


def _ranks(value: str) -> int:
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    try:
        n = int(value)
    except ValueError:
        raise SystemExit(f"error: --nproc-per-node must be a number, 'cpu' or 'auto', got {value!r}") from None
    if n < 1:
        raise SystemExit(f"error: --nproc-per-node must be at least 1, got {n}")
    return n


def _check_one_node(args: argparse.Namespace) -> None:
    if args.nnodes not in ("1", "1:1"):
        raise SystemExit(f"error: --nnodes {args.nnodes}: this launcher starts ranks on one machine only "
                         f"(use your MPI's own mpiexec with a host file across machines)")
    if args.node_rank != 0:
        raise SystemExit(f"error: --node-rank {args.node_rank}: one machine only, whose node rank is 0")
    if args.max_restarts != 0:
        raise SystemExit("error: --max-restarts: restarting failed ranks is not offered (resume from a "
                         "snapshot instead: docs/distributed.md)")


def _mpiexec() -> str | None:
    beside = Path(sys.executable).parent / "mpiexec"  # the MPICH wheel's, in this environment
    return str(beside) if beside.exists() else shutil.which("mpiexec")


def _launch(argv: Sequence[str], args: argparse.Namespace) -> int:
    n = _ranks(args.nproc_per_node)
    env = dict(os.environ)
    env[_RANK_MARK] = "1"
    if n > 1:
        env.setdefault("OMP_NUM_THREADS", "1")
    exe = _mpiexec()
    if exe is None:
        if n == 1:  # one rank needs no MPI launcher: set it up in this process
            return _run_rank(args)
        raise SystemExit('error: no mpiexec found: pip install "minigrad_ckpt[distributed]" (mpi4py + mpich) '
                         'or install an MPI')
    cmd = [exe, "-n", str(n), sys.executable, "-m", __spec__.name if __spec__ else "minigrad_ckpt.distributed.run",
           *argv]
    return subprocess.call(cmd, env=env)


def _first_int(*names: str, default: int) -> int:
    for name in names:
        value = os.environ.get(name)
        if value is not None:
            return int(value)
    return default


def torchrun_environment(master_addr: str = "127.0.0.1", master_port: int = 29500,
                         run_id: str = "none") -> dict[str, str]:
    """The variables torchrun gives a rank, read from the MPI launcher's own (MPICH/Hydra's
    ``PMI_RANK``, ``PMI_SIZE``, ``MPI_LOCALRANKID``, ``MPI_LOCALNRANKS``; Open MPI's
    ``OMPI_COMM_WORLD_*``); a process started without one is rank 0 of 1."""
    rank = _first_int("PMI_RANK", "OMPI_COMM_WORLD_RANK", default=0)
    size = _first_int("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", default=1)
    local_rank = _first_int("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", default=rank)
    local_size = _first_int("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE", default=size)
    values = dict(RANK=rank, LOCAL_RANK=local_rank, WORLD_SIZE=size, LOCAL_WORLD_SIZE=local_size,
                  GROUP_RANK=0, GROUP_WORLD_SIZE=1, ROLE_RANK=rank, ROLE_WORLD_SIZE=size, ROLE_NAME="default",
                  MASTER_ADDR=master_addr, MASTER_PORT=master_port, TORCHELASTIC_RUN_ID=run_id,
                  TORCHELASTIC_RESTART_COUNT=0, TORCHELASTIC_MAX_RESTARTS=0)
    return {k: str(v) for k, v in values.items()}


def _run_rank(args: argparse.Namespace) -> int:
    """Inside one rank: set torchrun's variables, then run the script as ``python script`` would."""
    os.environ.pop(_RANK_MARK, None)  # a launcher the script itself starts is a launcher again
    os.environ.update(torchrun_environment(args.master_addr, args.master_port, args.rdzv_id))
    script, rest = args.training_script, list(args.training_script_args)
    if args.no_python:
        os.execvp(script, [script, *rest])
    if args.module:
        sys.argv = [script, *rest]
        runpy.run_module(script, run_name="__main__", alter_sys=True)
    else:
        sys.argv = [script, *rest]
        sys.path.insert(0, str(Path(script).resolve().parent))  # as `python script` puts its folder first
        runpy.run_path(script, run_name="__main__")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Launch (from a shell) or set up one rank (inside ``mpiexec``); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    _check_one_node(args)
    if os.environ.get(_RANK_MARK):
        return _run_rank(args)
    return _launch(argv, args)


if __name__ == "__main__":
    sys.exit(main())
