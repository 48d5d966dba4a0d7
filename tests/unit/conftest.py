"""Shared test setup: hypothesis profiles (deterministic, no deadline, no database on disk)."""

import os

from hypothesis import HealthCheck, settings

# "default": the full count (CPython, make test-py). "pyodide": the same cases inside Pyodide.
settings.register_profile(
    "default",
    max_examples=2500,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("pyodide", parent=settings.get_profile("default"))
settings.register_profile("quick", max_examples=100, deadline=None, derandomize=True, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
