"""Public service functions take at most two arguments by position (the session and the
principal, or whatever two the use case starts from); every other is named at the call, so a
call reads without the signature beside it and two arguments of one type cannot be swapped."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
POSITIONAL = 2


def positional_beyond(path: Path):
    """(line, name, count) of each public module-level function in `path` that takes more than
    POSITIONAL arguments by position."""
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            count = len(node.args.posonlyargs) + len(node.args.args)
            if count > POSITIONAL or node.args.vararg:
                yield node.lineno, node.name, count


@pytest.mark.parametrize(
    "path", sorted((ROOT / "services").rglob("*.py")), ids=lambda path: str(path.relative_to(ROOT))
)
def test_service_functions_name_all_but_two_arguments(path):
    found = list(positional_beyond(path))
    assert not found, f"{path.name}: {found} take more than {POSITIONAL} arguments by position: add `*,`"


def test_the_check_sees_a_third_positional_argument(tmp_path):
    module = tmp_path / "use_case.py"
    module.write_text(
        "def fine(session, principal, *, data): ...\ndef wide(session, principal, data): ...\ndef _own(a, b, c): ...\n"
    )
    assert list(positional_beyond(module)) == [(2, "wide", 3)]
