"""Hypothesis settings shared by the fuzz tests.

Runs are repeatable by default (derandomized, a fixed number of examples);
FUZZ_EXAMPLES=2000 explores that many fresh examples instead.
"""

import os

from hypothesis import HealthCheck, settings

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "0"))


def fuzz_settings(default_examples: int) -> settings:
    return settings(
        max_examples=EXAMPLES or default_examples,
        derandomize=not EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
