"""canonical_json writes what JavaScript's JSON.stringify(JSON.parse(...)) writes: checked
against node itself on numbers, strings and key orders that differ from Python's json."""

from __future__ import annotations

import json
import shutil
import subprocess
from decimal import Decimal
from typing import Any

import pytest

from webstore.webhooks.canonical_json import dumps

NODE = shutil.which("node")

VALUES: list[Any] = [
    1.0,
    0.5,
    Decimal("0.50"),
    Decimal("4.99"),
    Decimal("10.00"),
    -0.0,
    1e21,
    1e20,
    1e-7,
    1e-6,
    2.5e-10,
    123.456,
    1.7976931348623157e308,
    5e-324,
    76561198042467022,
    2**53,
    -(2**60),
    "é ü 中文 😀",
    '\u2028\u2029\b\f\n\r\t\x00\x1f\x7f/\\"',
    "\ud800",  # a lone surrogate
    {"b": 1, "10": 2, "2": 3, "01": 4, "-1": 5, "4294967294": 6, "4294967295": 7, "a": {"1": [], "0": {}}},
    [None, True, False, [], {}],
]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_every_value_is_written_as_node_writes_it() -> None:
    ours = [dumps(v) for v in VALUES]
    script = (
        "const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(texts.map((t) => JSON.stringify(JSON.parse(t)))));"
    )
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", script], input=json.dumps(ours).encode(), capture_output=True, check=True, timeout=30
    )
    assert json.loads(done.stdout) == ours


def test_python_json_reads_it_back_to_the_same_data() -> None:
    body = {"price": Decimal("4.99"), "whole": Decimal("10.00"), "name": "Zoë", "n": [1, 2.5]}
    assert json.loads(dumps(body)) == {"price": 4.99, "whole": 10, "name": "Zoë", "n": [1, 2.5]}
    with pytest.raises(TypeError):
        dumps({"x": object()})
