"""Hypothesis settings profiles for the property tests.

Select one with the ``HYPOTHESIS_PROFILE`` environment variable:

``ci`` (default)  15 examples per test, derandomized (the same examples on
                  every run, so CI is reproducible), no deadline, no database.
``dev``           5 examples: a quick smoke run while editing.
``thorough``      300 examples, random: run before a release or after
                  touching an op; failures are saved to the example database
                  and replayed first on the next run.

    HYPOTHESIS_PROFILE=thorough pytest property_tests -x
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("ci", max_examples=15, deadline=None, derandomize=True, database=None,
                          suppress_health_check=_SUPPRESS, print_blob=True)
settings.register_profile("dev", max_examples=5, deadline=None, suppress_health_check=_SUPPRESS)
settings.register_profile("thorough", max_examples=300, deadline=None, suppress_health_check=_SUPPRESS,
                          print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
