"""Views hand the session down: no module of api/ (its commands apart) reads or writes rows on
`db.session` itself, or commits; the service a view calls is the use case's one unit of work."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# A rollback is left to views: after a use case refused, it drops what the refusal left behind.
WORK = {"execute", "scalar", "scalars", "get", "query", "add", "delete", "flush", "commit"}
VIEWS = sorted(path for path in (ROOT / "api").rglob("*.py") if "cli" not in path.relative_to(ROOT).parts)


def session_work(path: Path):
    """(line, what) of each call in `path` that works on `db.session` directly."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in WORK
            and ast.unparse(node.func.value) == "db.session"
        ):
            yield node.lineno, ast.unparse(node.func)


@pytest.mark.parametrize("path", VIEWS, ids=lambda path: str(path.relative_to(ROOT)))
def test_views_leave_rows_to_services(path):
    found = list(session_work(path))
    assert not found, f"{path.name} works on the session itself at {found}: call a service"


def test_the_check_sees_a_view_that_reads_rows(tmp_path):
    module = tmp_path / "view.py"
    module.write_text("def view():\n    service(db.session)\n    return db.session.scalar(query)\n")
    assert list(session_work(module)) == [(3, "db.session.scalar")]
