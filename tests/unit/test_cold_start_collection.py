"""In Lambda, garbage collection is paused while a handler module loads and resumed, with init's
heap frozen, at its first invocation (functions/cold_start.py); elsewhere it is left alone.
Checked in fresh interpreters: this one imported `functions` long ago."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Imports a consumer's module, reports the collector's state, invokes the handler once (an
# empty batch), reports again.
PROBE = """
import gc, importlib, json, sys
states = [gc.isenabled(), gc.get_freeze_count()]
module = importlib.import_module(sys.argv[1])
states += [gc.isenabled(), gc.get_freeze_count()]

class Context:
    function_name = "probe"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:probe"
    aws_request_id = "probe"

try:
    module.handler({"Records": []}, Context())
except Exception as error:  # the state after the call is what is checked, not the batch
    print(repr(error), file=sys.stderr)
states += [gc.isenabled(), gc.get_freeze_count()]
print(json.dumps(states))
"""
CONSUMER = "functions.events.basket_expired"


def _states(lambda_environment: bool) -> list[int]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    env.pop("AWS_LAMBDA_FUNCTION_NAME", None)
    if lambda_environment:
        env["AWS_LAMBDA_FUNCTION_NAME"] = "webstore-test-basket-expired"
    result = subprocess.run(
        [sys.executable, "-c", PROBE, CONSUMER], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr[-2000:]
    states: list[int] = json.loads(result.stdout.strip().splitlines()[-1])
    return states


def test_in_lambda_collection_waits_for_the_first_invocation_and_init_is_frozen() -> None:
    before, frozen_before, loaded, frozen_loaded, invoked, frozen_invoked = _states(True)
    assert before and frozen_before == 0
    assert not loaded and frozen_loaded == 0  # paused while the module loaded
    assert invoked and frozen_invoked > 10_000  # resumed, with init's objects frozen


def test_elsewhere_the_collector_is_left_alone() -> None:
    _, _, loaded, frozen_loaded, invoked, frozen_invoked = _states(False)
    assert loaded and invoked
    assert frozen_loaded == frozen_invoked == 0
