"""The rule tests stand on `domain/` alone: each module of this package, imported by itself in a
fresh interpreter, brings in no layer above domain/ (nor Flask or SQLAlchemy), and its own
imports name only the standard library, pytest, `domain` and this package."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
ABOVE = ("api", "auth", "services", "storage", "reports", "schemas", "flask", "sqlalchemy")
MODULES = sorted(path.stem for path in HERE.glob("*.py") if path.stem != "__init__")
ALLOWED = {"domain", "pytest", "tests"}


def _imported(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module, node.lineno


@pytest.mark.parametrize("module", MODULES)
def test_a_rule_test_names_only_the_standard_library_pytest_and_domain(module):
    path = HERE / f"{module}.py"
    for name, line in _imported(path):
        top = name.split(".")[0]
        assert top in sys.stdlib_module_names or top in ALLOWED, f"{path.name}:{line} imports {name}"
        if top == "tests":
            assert name.startswith("tests.domain"), f"{path.name}:{line} imports {name}"


def test_importing_every_rule_test_loads_nothing_above_domain():
    names = ", ".join(f"tests.domain.{module}" for module in MODULES)
    probe = (
        f"import sys, importlib; [importlib.import_module(n) for n in '{names}'.split(', ')]; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({ABOVE!r})))"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
