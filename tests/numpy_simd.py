"""What this host's NumPy and torch compute with, for the tests that hold the engine to torch's bits.

On a CPU with AVX-512, NumPy 2.x runs its float64 ``power``, ``cos``, ``arccos`` ... in vectorized
kernels that round up to an ulp away from glibc's scalar functions, which torch's CPU loops call --
and torch 2.13's own float64 ``reciprocal`` there is rounded once, where the AVX2 hosts the fixtures
were first made on gave 1-2 ulp off. A test of such bits names the host kind it allows for."""

import numpy as np

#: NumPy dispatches its AVX-512 (Skylake-X and later) kernels on this host.
AVX512 = bool(getattr(np._core._multiarray_umath, "__cpu_features__", {}).get("AVX512_SKX"))
