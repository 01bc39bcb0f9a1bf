"""Shared fixtures: the repository, the `pliant` command-line binary."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def pliant_bin():
    """The CLI binary: $PLIANT_BIN, or target/debug/pliant built by cargo."""
    path = os.environ.get("PLIANT_BIN")
    if path:
        return path
    subprocess.run(
        ["cargo", "build", "--locked", "--bin", "pliant"], cwd=ROOT, check=True
    )
    return str(ROOT / "target" / "debug" / "pliant")


def run_cli(pliant_bin, *args):
    """Runs `pliant ARGS`, failing the test with its output if it fails."""
    r = subprocess.run([pliant_bin, *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, f"pliant {' '.join(map(str, args))}:\n{r.stdout}\n{r.stderr}"
    return r.stdout
