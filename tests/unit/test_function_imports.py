"""A function that is not HTTP does not import the HTTP runtime (FastAPI costs ~180 ms of a
cold start). Checked in a fresh interpreter: this one has imported FastAPI long ago."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from functions.routes import consumers

ROOT = Path(__file__).resolve().parents[2]
# Imports each module in turn; prints, per module, the HTTP-runtime modules loaded so far.
PROBE = """
import importlib, json, sys
seen = {}
for module in sys.argv[1:]:
    importlib.import_module(module)
    seen[module] = sorted(m for m in sys.modules if m.split(".")[0] in ("fastapi", "starlette", "mangum"))
print(json.dumps(seen))
"""


def test_event_consumers_do_not_import_fastapi() -> None:
    modules = [each.module for each in consumers()]
    assert modules, "the route table declares event consumers"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *modules, "functions.runtime"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    seen = json.loads(result.stdout)
    for module in modules:
        assert not seen[module], f"{module} imports the HTTP runtime: {seen[module][:5]}"
    assert "fastapi" in seen["functions.runtime"]  # the probe does see FastAPI where it is imported
