"""A course: build a small autograd engine yourself, graded by this engine's own checks.

``minigrad-ckpt course start N`` writes step N's stub file; ``minigrad-ckpt
course check N`` grades it with the tools the engine's test suite uses
(``check_op``, ``gradcheck``, Hypothesis) and says, for each failure, what was
expected, what your code gave and where to look.  From Python::

    from minigrad_ckpt import course
    course.start(1)            # writes step_1_value.py here
    print(course.check(1))     # a Report; .ok is True when every check passes

The steps are in :data:`STEPS`; docs/course.md walks through them.
"""

from __future__ import annotations

from .grading import Failure, Report
from .steps import STEPS, Step, check, get_step, start

__all__ = ["STEPS", "Step", "Report", "Failure", "start", "check", "get_step"]
