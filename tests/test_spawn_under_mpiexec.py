"""An ``mp.spawn(main, nprocs=N)`` script (pytorch/examples' ddp-tutorial-series ``multigpu.py``)
started with ``mpiexec``: each spawned child inherited the MPI launcher's variables, its MPI start-up
talked over the parent's launcher connection, and the job aborted with ``PMI_Init failed`` and exit
code 15 -- nothing saying what to change (found porting ``multigpu.py``).  Now a spawned child forgets
the launcher: it is a one-process world, and ``init_process_group(rank=i, world_size=n)`` there says
how to start the job, as it does without ``mpiexec``."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
sys.path.insert(0, str(Path(__file__).parent))
from test_distributed import mpiexec, run  # noqa: E402

SCRIPT = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, {root!r})
    import minigrad_ckpt.multiprocessing as mp
    from minigrad_ckpt.distributed import init_process_group

    def main(rank, world_size):
        os.environ["MASTER_ADDR"] = "localhost"
        init_process_group(backend="gloo", rank=rank, world_size=world_size)

    if __name__ == "__main__":
        mp.spawn(main, args=(2,), nprocs=2)
""")


def test_a_spawn_script_under_mpiexec_is_told_how_to_start_the_job(tmp_path):
    script = tmp_path / "multigpu.py"
    script.write_text(SCRIPT.format(root=str(Path(__file__).parents[1])))
    proc = run([mpiexec(), "-launcher", "fork", "-n", "1", sys.executable, str(script)])
    assert proc.returncode != 0
    assert "PMI_Init failed" not in proc.stderr + proc.stdout
    assert "one-process world of its own: start the script with mpiexec -n N" in proc.stderr
