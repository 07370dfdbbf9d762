"""The README's walkthrough, run as written against the demo: the first thing a new user tries."""
import re
import subprocess

from api.config import ROOT
from tests.conftest import serve


def walkthrough() -> str:
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## A walk through the demo"):]
    return re.search(r"```\n(.*?)```", section, re.S).group(1)


def test_the_walkthrough_runs_as_written_against_the_demo(app, tmp_path):
    assert app.test_cli_runner().invoke(args=["demo", "load"]).exit_code == 0
    with serve(app) as base:
        script = walkthrough().replace("http://127.0.0.1:8000", base)
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # One error, shown on purpose (no token); every other answer is the one described.
    assert out.count('/problems/') == 1 and '/problems/unauthorized"' in out
    assert '"manifest_number":"IGS-1001"' in out and '"status":"accepted"' in out
    assert (tmp_path / "binder.pdf").read_bytes().startswith(b"%PDF")
    assert "Golden Wok" in out and '"change":"shorten"' in out
    assert '"code":"gallons_differ"' in out and '"ticket_number":"HDR-20001"' in out
    assert '"kind":"manifest.filed"' in out and '"active": true' in out
