# SPDX-License-Identifier: Apache-2.0
"""Shared set-up of the Python tests: where the real traces and the command-line binary are."""
import os
import pathlib

import pytest


def traces_folder():
    """TRACESWEEP_TRACES (default ../shared/traces from the checkout); skips, or fails when
    TRACESWEEP_REQUIRE_TRACES=1, when it is absent."""
    default = pathlib.Path(__file__).resolve().parents[2] / ".." / "shared" / "traces"
    folder = pathlib.Path(os.environ.get("TRACESWEEP_TRACES", default)).resolve()
    if not folder.is_dir():
        message = f"{folder}: no real traces (set TRACESWEEP_TRACES)"
        if os.environ.get("TRACESWEEP_REQUIRE_TRACES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return folder
