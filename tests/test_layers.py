"""The import rules of docs/architecture.md, as the contracts in `.importlinter` state them."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("api", "services", "auth", "reports", "storage", "schemas", "domain")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from importlinter.cli import lint_imports; "
            "sys.exit(lint_imports(config_filename='.importlinter', no_cache=True, no_logo=True))",
        ],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )


def test_every_layer_imports_only_the_layers_below_it_and_nothing_circles():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 kept, 0 broken" in result.stdout


def _copy(tmp_path):
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    return tmp_path


def test_a_layer_that_reaches_up_breaks_the_contract(tmp_path):
    root = _copy(tmp_path)
    with open(root / "storage" / "reach.py", "a") as module:
        module.write("\nfrom services import errors  # noqa: E402\n")
    result = lint_imports(root)
    assert result.returncode == 1
    assert "storage.reach -> services.errors" in result.stdout


def test_an_import_circle_breaks_the_contract(tmp_path):
    root = _copy(tmp_path)
    with open(root / "auth" / "scopes.py", "a") as module:
        module.write("\nfrom auth import protect  # noqa: E402\n")
    result = lint_imports(root)
    assert result.returncode == 1
    assert "No import circles within a package BROKEN" in result.stdout


def test_a_capability_that_reaches_up_breaks_the_contract(tmp_path):
    root = _copy(tmp_path)
    with open(root / "services" / "registry" / "log.py", "a") as module:
        module.write("\nfrom services.filing import manifests  # noqa: E402\n")
    result = lint_imports(root)
    assert result.returncode == 1
    assert "Each capability of services imports only the capabilities below it BROKEN" in result.stdout
    assert "services.registry.log -> services.filing.manifests" in result.stdout


def test_an_api_room_that_imports_another_breaks_the_contract(tmp_path):
    root = _copy(tmp_path)
    with open(root / "api" / "audit" / "trends.py", "a") as module:
        module.write("\nfrom api.records import record  # noqa: E402\n")
    result = lint_imports(root)
    assert result.returncode == 1
    assert "The API's rooms do not import each other BROKEN" in result.stdout
