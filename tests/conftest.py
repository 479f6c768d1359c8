"""Hypothesis profiles (README, "Tests"): ``ci``, derandomized, so that a CI run cannot fail
by chance and any failure reproduces; ``thorough``, twenty times every test's examples, for
the random search run apart from CI; and the default, random, at each test's own count.
``CI`` set in the environment selects ``ci`` unless ``--hypothesis-profile`` names another."""

import os

from hypothesis import HealthCheck, settings

#: the count a test's own ``examples(n)`` is scaled against (hypothesis's default)
BASE = 100

settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, database=None,
                          print_blob=True)
settings.register_profile("thorough", deadline=None, max_examples=20 * BASE,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI", "").lower() not in ("", "0", "false")
                      else "default")
