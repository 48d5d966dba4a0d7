"""The fixtures of tests/package: the wheel and sdist `make dist` builds, and a fresh venv with the
wheel installed (fresh.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fresh import Installed, dist


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> list[Path]:
    """The wheel and the sdist, as `make dist` writes them."""
    return dist(tmp_path_factory.mktemp("dist"))


@pytest.fixture(scope="session")
def wheel(built) -> Path:
    return next(p for p in built if p.suffix == ".whl")


@pytest.fixture(scope="session")
def installed(tmp_path_factory, wheel) -> Installed:
    return Installed(tmp_path_factory.mktemp("fresh"), wheel)
