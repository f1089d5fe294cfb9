"""A bounded fuzz run of both interfaces' OpenAPI documents against the local stack
(schemathesis), failing on any server error (5xx).

    python scripts/fuzz_openapi.py                 # 60 s per interface
    python scripts/fuzz_openapi.py --max-time 600  # longer

It starts `webstore serve` with the demo store (scripts/load_local.py), then runs
`schemathesis run <interface>/openapi.json --checks not_a_server_error` for each interface with
the demo store's credentials: the storefront's `token` path parameter is the store's public
token and Basic auth its checkout key; operator requests carry the server secret. Phases:
examples, coverage (boundary and invalid values from the schema) and fuzzing. Exit status 0
only when both runs found no server error.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from scripts.load_local import local_stack

PHASES = "examples,coverage,fuzzing"


def config_file(directory: Path, credentials: dict[str, Any]) -> Path:
    """Fixed values for the parameters that name the demo store (the token in the path)."""
    path = directory / "schemathesis.toml"
    path.write_text(f'[parameters]\n"path.token" = "{credentials["public_token"]}"\n')
    return path


def fuzz(openapi_url: str, config: Path, auth: list[str], max_time: int) -> int:
    command = [
        sys.executable,
        "-c",
        "from schemathesis.cli import schemathesis; schemathesis()",
        "--config-file",
        str(config),
        "run",
        openapi_url,
        "--checks",
        "not_a_server_error",
        "--phases",
        PHASES,
        "--max-time",
        str(max_time),
        "--workers",
        "4",
        "--request-timeout",
        "30",
        "--suppress-health-check",
        "all",
        *auth,
    ]
    print("$", " ".join(command[3:]), flush=True)
    return subprocess.call(command)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--max-time", type=int, default=60, help="seconds per interface (default 60)")
    args = parser.parse_args(argv)
    with local_stack() as credentials, tempfile.TemporaryDirectory() as workdir:
        config = config_file(Path(workdir), credentials)
        storefront = credentials["headless_url"].split("/api/")[0]
        basic = f"{credentials['public_token']}:{credentials['checkout_api_key']}"
        results = {
            "storefront": fuzz(f"{storefront}/openapi.json", config, ["--auth", basic], args.max_time),
            "operator": fuzz(
                f"{credentials['plugin_url']}/openapi.json",
                config,
                ["--header", f"X-Tebex-Secret:{credentials['server_secret']}"],
                args.max_time,
            ),
        }
    for interface, code in results.items():
        print(f"{interface}: {'no server errors' if code == 0 else f'FAILED (exit {code})'}")
    return 0 if all(code == 0 for code in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
