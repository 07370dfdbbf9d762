"""Tests share through helper modules and fixtures, never through each other: no test module
imports from another (a test module imported elsewhere runs its fixtures and constants twice,
and a helper hidden in one is found by reading every test)."""

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


def _is_test_module(dotted: str) -> bool:
    return any(part.startswith("test_") for part in dotted.split("."))


def imports_of_test_modules(path: Path):
    """(line, module) of each import of a test module in `path`."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            named = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ("." * node.level) + (node.module or "")
            named = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in named:
            if _is_test_module(name):
                yield node.lineno, name
                break


@pytest.mark.parametrize("path", sorted(TESTS.rglob("*.py")), ids=lambda path: str(path.relative_to(TESTS)))
def test_no_module_imports_a_test_module(path):
    found = list(imports_of_test_modules(path))
    assert not found, f"{path.name} imports test modules {found}: move what is shared to a helper module"


def test_the_check_sees_every_way_of_naming_a_test_module(tmp_path):
    module = tmp_path / "test_a.py"
    module.write_text(
        "from tests.test_b import x\nfrom .test_c import y\nfrom tests import test_d\nimport tests.test_e\n"
        "from tests.factories import z\nfrom tests.domain.cities import w\n"
        "def f():\n    from tests.domain.test_f import v\n"
    )
    assert [name for _, name in imports_of_test_modules(module)] == [
        "tests.test_b",
        ".test_c",
        "tests.test_d",
        "tests.test_e",
        "tests.domain.test_f",
    ]


SERVERS = {"Gunicorn", "MakeRun"}


def server_fixtures_before_app(path: Path):
    """(line, name) of each fixture in `path` that starts a server without asking for `app`.
    The test's database is emptied in `app`'s teardown; a server set up before `app` is still
    running then, and its workers' reads deadlock with the TRUNCATE."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.FunctionDef):
            continue
        if not any("fixture" in ast.unparse(decorator) for decorator in node.decorator_list):
            continue
        calls = {
            call.func.id for call in ast.walk(node) if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
        }
        if calls & SERVERS and "app" not in [argument.arg for argument in node.args.args]:
            yield node.lineno, node.name


@pytest.mark.parametrize("path", sorted(TESTS.rglob("*.py")), ids=lambda path: str(path.relative_to(TESTS)))
def test_fixtures_that_start_servers_come_after_app(path):
    found = list(server_fixtures_before_app(path))
    assert not found, f"{path.name}: fixtures {found} start servers before `app`: ask for `app` first"


def test_the_server_check_sees_a_fixture_without_app(tmp_path):
    module = tmp_path / "test_a.py"
    module.write_text(
        "import pytest\n@pytest.fixture\ndef served(database_url):\n    return MakeRun(database_url).start()\n"
        "@pytest.fixture\ndef fine(app, database_url):\n    return Gunicorn(database_url).start()\n"
    )
    assert list(server_fixtures_before_app(module)) == [(3, "served")]
