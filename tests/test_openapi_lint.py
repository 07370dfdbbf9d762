"""openapi.yaml is clean under Spectral's `spectral:oas` ruleset (the linter pinned in
package.json, installed by `make test` with `npm ci`), and every operation has a summary, a
description and an example."""

import json
import shutil
import subprocess

import yaml

from api.config import ROOT

METHODS = {"get", "post", "put", "patch", "delete"}
SPECTRAL = ROOT / "node_modules" / ".bin" / "spectral"


def test_spectral_oas_finds_nothing():
    assert shutil.which("node"), "node is needed for the OpenAPI linter: apt-get install nodejs npm"
    assert SPECTRAL.exists(), "the pinned linter is missing: run `npm ci` (make test does)"
    run = subprocess.run(
        [
            str(SPECTRAL),
            "lint",
            "--ruleset",
            str(ROOT / ".spectral.yaml"),
            "--format",
            "json",
            "--fail-severity",
            "hint",
            "--quiet",
            str(ROOT / "openapi.yaml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    results = json.loads(run.stdout or "[]")
    found = [f"{r['code']} at {'.'.join(map(str, r['path']))}: {r['message']}" for r in results]
    assert found == [], "\n".join(found)
    assert run.returncode == 0, run.stderr


def _has_example(node):
    if isinstance(node, dict):
        return "example" in node or "examples" in node or any(_has_example(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_example(v) for v in node)
    return False


def test_every_operation_has_a_summary_a_description_and_an_example():
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    components = spec["components"]
    lacking = []
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method not in METHODS:
                continue
            responses = [
                components["responses"][r["$ref"].rsplit("/", 1)[1]] if "$ref" in r else r
                for code, r in operation["responses"].items()
                if code.startswith(("2", "3"))
            ]
            for part in ("summary", "description"):
                if not str(operation.get(part, "")).strip():
                    lacking.append(f"{method.upper()} {path}: {part}")
            parameters = [*item.get("parameters", []), *operation.get("parameters", [])]
            if not (_has_example(operation.get("requestBody")) or _has_example(parameters) or _has_example(responses)):
                lacking.append(f"{method.upper()} {path}: example")
    assert lacking == [], "\n".join(lacking)
