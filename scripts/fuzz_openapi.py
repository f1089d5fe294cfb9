"""A bounded fuzz run of both interfaces' OpenAPI documents against the local stack
(schemathesis), failing on any server error (5xx).

    python scripts/fuzz_openapi.py                 # 60 s per interface
    python scripts/fuzz_openapi.py --max-time 600  # longer

It starts `webstore serve` with the demo store (scripts/load_local.py), then runs
`schemathesis run <interface>/openapi.json --checks not_a_server_error` for each interface with
the demo store's credentials: the storefront's `token` path parameter is the store's public
token and Basic auth its checkout key; operator requests carry the server secret. Phases:
examples, coverage (boundary and invalid values from the schema) and fuzzing. Exit status 0
only when both runs found no server error (nor any other schemathesis error).

Path parameters an operation's document leaves undeclared (the storefront's `token`, read by a
dependency rather than a parameter) are declared in the copy fuzzed here, and listed, so that
gap in the documents stays visible. One worker: hypothesis's lambda-source cache is not safe
across threads on this Python (runtime errors, not findings, with more).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

from scripts.load_local import local_stack

PHASES = "examples,coverage,fuzzing"


def config_file(directory: Path, credentials: dict[str, Any]) -> Path:
    """Fixed values for the parameters that name the demo store (the token in the path)."""
    path = directory / "schemathesis.toml"
    path.write_text(f'[parameters]\n"path.token" = "{credentials["public_token"]}"\n')
    return path


def declared_document(openapi_url: str, directory: Path, name: str) -> tuple[Path, list[str]]:
    """The interface's OpenAPI document with undeclared path parameters declared; what was added."""
    document = httpx.get(openapi_url, timeout=30).json()
    added: list[str] = []
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            parameters = operation.setdefault("parameters", [])
            declared = {p["name"] for p in parameters if p.get("in") == "path"}
            for missing in sorted(set(re.findall(r"{(\w+)}", path)) - declared):
                parameters.append(
                    {"name": missing, "in": "path", "required": True, "schema": {"type": "string"}}
                )
                added.append(f"{method.upper()} {path}: {missing}")
    target = directory / f"{name}.json"
    target.write_text(json.dumps(document))
    return target, added


def fuzz(document: Path, base_url: str, config: Path, auth: list[str], max_time: int) -> int:
    command = [
        sys.executable,
        "-c",
        "from schemathesis.cli import schemathesis; schemathesis()",
        "--config-file",
        str(config),
        "run",
        str(document),
        "--url",
        base_url,
        "--checks",
        "not_a_server_error",
        "--phases",
        PHASES,
        "--max-time",
        str(max_time),
        "--workers",
        "1",
        "--request-timeout",
        "30",
        "--suppress-health-check",
        "all",
        *auth,
    ]
    print("$", " ".join(command[3:]), flush=True)
    return subprocess.call(command, cwd=document.parent)  # its cache stays out of the worktree


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--max-time", type=int, default=60, help="seconds per interface (default 60)")
    args = parser.parse_args(argv)
    with local_stack() as credentials, tempfile.TemporaryDirectory() as workdir:
        directory = Path(workdir)
        config = config_file(directory, credentials)
        bases = {
            "storefront": credentials["headless_url"].split("/api/")[0],
            "operator": credentials["plugin_url"],
        }
        auth = {
            "storefront": ["--auth", f"{credentials['public_token']}:{credentials['checkout_api_key']}"],
            "operator": ["--header", f"X-Tebex-Secret:{credentials['server_secret']}"],
        }
        results: dict[str, int] = {}
        undeclared: list[str] = []
        for interface, base in bases.items():
            document, added = declared_document(f"{base}/openapi.json", directory, interface)
            undeclared += [f"{interface}: {a}" for a in added]
            results[interface] = fuzz(document, base, config, auth[interface], args.max_time)
    if undeclared:
        print(f"Path parameters the documents do not declare ({len(undeclared)}), declared for this run:")
        for entry in undeclared:
            print(f"  {entry}")
    for interface, code in results.items():
        print(f"{interface}: {'no server errors' if code == 0 else f'FAILED (exit {code})'}")
    return 0 if all(code == 0 for code in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
