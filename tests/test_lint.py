"""The code as ruff.toml keeps it: lint clean and formatted (`make format` applies both)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUFF = Path(sys.executable).parent / "ruff"


def ruff(*args):
    return subprocess.run([str(RUFF), *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing():
    checked = ruff("check", "--no-cache", ".")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_code_is_formatted():
    formatted = ruff("format", "--check", "--no-cache", ".")
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
