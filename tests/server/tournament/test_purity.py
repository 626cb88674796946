"""The tournament's pure modules stay pure: no clock, no trio, no global randomness, no I/O, so seating and
standings recompute the same way in the director and in ``verify``."""

from pathlib import Path

import pytest

from tests.imports import imported_packages
from tests.rules.test_purity import FORBIDDEN

PACKAGE = Path(__file__).resolve().parents[3] / "server" / "tournament"
PURE = ["model.py", "seeds.py", "seating.py", "standings.py", "state.py", "ratings.py", "views.py", "scoring.py", "rated.py",
        "reporting.py"]


@pytest.mark.parametrize("name", PURE)
def test_pure_modules_import_nothing_impure(name):
    imports = imported_packages(PACKAGE / name)
    impure = imports & (FORBIDDEN | {"sqlite3", "hashlib"})
    assert not impure, f"{name} imports {impure}"
