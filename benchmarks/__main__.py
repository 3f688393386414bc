import os
import sys

# Pin BLAS threads before anything imports NumPy (run.py does it again for --threads).
if "--threads" not in sys.argv:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")

from benchmarks.run import main  # noqa: E402

main()
