# SPDX-License-Identifier: Apache-2.0
"""README's Python example, run as README shows it (from the top of the checkout)."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def readme_example():
    text = (ROOT / "README.md").read_text()
    begin, end = "<!-- begin: python-example -->", "<!-- end: python-example -->"
    block = text[text.index(begin) + len(begin):text.index(end)]
    return "\n".join(line for line in block.splitlines() if not line.startswith("```")).strip()


def test_readme_example_runs_and_prints_the_tables():
    code = readme_example()
    assert len(code.splitlines()) == 5
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=False, env=dict(os.environ))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "total_ns" in out  # the kernel table's header
    assert "ncclDevKernel_AllReduce" in out  # the sample's longest kernel
    assert "kernel" in out and "api_call" in out  # the events per kind
