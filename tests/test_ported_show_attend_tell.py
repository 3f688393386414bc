"""sgrvinod's image-captioning tutorial (Show, Attend and Tell), ported
(``examples/ported/show_attend_tell.py``), gives torch 2.13's numbers
(``tests/data/make_ported_show_attend_tell.py``): an ``LSTMCell`` decoder attending over an encoder's
pixels, run over a batch sorted by caption length that shrinks as captions end (``h[:batch_size_t]``)
and written step by step into preallocated ``predictions``; ``pack_padded_sequence(...).data``; the
doubly stochastic attention penalty; gradients clipped through ``param.grad.data.clamp_``; Adam over the
parameters that require grad (the encoder frozen, or its later blocks fine-tuned), its learning rate
shrunk through ``param_groups``; and a beam search ranking ``scores.view(-1).topk(k)``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
from make_ported_show_attend_tell import EXCUSED, KEEP, RUNS, SEED  # noqa: E402
from ported_small import small_program_test  # noqa: E402

test_show_attend_tell_matches_pytorch = small_program_test("show_attend_tell", RUNS, SEED, keep=KEEP,
                                                           excused=EXCUSED)
