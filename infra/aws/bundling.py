"""Builds the Lambda assets locally, without Docker: the dependency layers and the code asset.

The runtime dependencies are split in layers (infra/aws/layers.py): the base layer carries all
but Stripe's library and cryptography; the `stripe` and `crypto` layers carry each of those
with what it pulls in that the base does not have, and only the functions that can import them
get them.

Both are byte-compiled by a real CPython 3.12 (the Lambda runtime's version) in
`unchecked-hash` mode. Why: Lambda's file systems are read-only, so a missing or stale .pyc is
recompiled on every cold start; a 3.11 interpreter writes 3.11 bytecode that 3.12 ignores; and
CDK zips assets with a fixed 1980 timestamp, so timestamp-checked .pyc would look stale.
"""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import jsii
from aws_cdk import AssetHashType, BundlingOptions, ILocalBundling
from aws_cdk import aws_lambda as lambda_

from infra.aws import layers

ROOT = Path(__file__).resolve().parents[2]
TARGET_PYTHON = (3, 12)
TARGET_VERSION = "{}.{}".format(*TARGET_PYTHON)
# Lambda's python3.12 runs on Amazon Linux 2023 (glibc 2.34): wheels up to manylinux_2_34 load.
PLATFORMS = ("manylinux2014_aarch64", "manylinux_2_28_aarch64", "manylinux_2_34_aarch64")
LAYER_ROOT = "/opt/python"
CODE_ROOT = "/var/task"
# Bump to force new assets when the build recipe changes without its inputs changing.
RECIPE = "3"
SKIP_PARTS = {"__pycache__", ".mypy_cache", ".pytest_cache"}


class BundlingError(RuntimeError):
    """An asset could not be built; the message says what to install or set."""


def runtime_requirements(root: Path = ROOT) -> list[str]:
    """The project's runtime dependencies: exactly what the layers carry (boto3 included)."""
    with (root / "pyproject.toml").open("rb") as file:
        return list(tomllib.load(file)["project"]["dependencies"])


def _distribution(requirement: str) -> str:
    return requirement.split("[")[0].split("=")[0].split("<")[0].split(">")[0].strip().lower()


def layer_requirements(name: str = layers.BASE, root: Path = ROOT) -> list[str]:
    """The requirements a layer is installed from: the base, every runtime dependency but the
    optional layers' distributions; an optional layer, its own distribution (with the base
    beside it, so only what the base lacks lands in it)."""
    requirements = runtime_requirements(root)
    optional = {distribution for distribution, _ in layers.OPTIONAL.values()}
    if name == layers.BASE:
        return [r for r in requirements if _distribution(r) not in optional]
    distribution, _ = layers.OPTIONAL[name]
    return [r for r in requirements if _distribution(r) == distribution]


def _python_version(executable: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run(
            [executable, "-c", "import sys; print(*sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    return (int(out[0]), int(out[1])) if len(out) == 2 else None


def find_target_python() -> str | None:
    """A CPython 3.12 to byte-compile with: $WEBSTORE_TARGET_PYTHON, python3.12 on PATH, or pyenv's."""
    candidates = [os.environ.get("WEBSTORE_TARGET_PYTHON", "")]
    if sys.version_info[:2] == TARGET_PYTHON:
        candidates.append(sys.executable)
    candidates.append(shutil.which(f"python{TARGET_VERSION}") or "")
    pyenv_root = os.environ.get("PYENV_ROOT", str(Path.home() / ".pyenv"))
    candidates += sorted(
        glob.glob(f"{pyenv_root}/versions/{TARGET_VERSION}.*/bin/python{TARGET_VERSION}"), reverse=True
    )
    for candidate in candidates:
        if candidate and _python_version(candidate) == TARGET_PYTHON:
            return candidate
    return None


def byte_compile(directory: Path, runtime_prefix: str) -> None:
    """Write 3.12 .pyc next to every source, with paths as Lambda will see them."""
    python = find_target_python()
    if python is None:
        if os.environ.get("WEBSTORE_ALLOW_UNCOMPILED") == "1":
            print(
                f"bundling: no Python {TARGET_VERSION}; shipping {directory.name} without .pyc",
                file=sys.stderr,
            )
            return
        raise BundlingError(
            f"No CPython {TARGET_VERSION} found to byte-compile the Lambda assets. Install one "
            f"(e.g. `pyenv install {TARGET_VERSION}` or your distribution's python{TARGET_VERSION}), "
            f"point WEBSTORE_TARGET_PYTHON at it, or set WEBSTORE_ALLOW_UNCOMPILED=1 to ship sources "
            f"only (slower cold starts: every import compiles)."
        )
    subprocess.run(
        [
            python,
            "-m",
            "compileall",
            "-q",
            "-j",
            "0",
            "--invalidation-mode",
            "unchecked-hash",
            "-s",
            str(directory),
            "-p",
            runtime_prefix,
            str(directory),
        ],
        check=True,
    )


def _pip_install(target: Path, requirements: list[str], root: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    platforms = [arg for platform in PLATFORMS for arg in ("--platform", platform)]
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-compile",  # pip would compile with *this* interpreter (3.11): useless on 3.12
        *platforms,
        "--implementation",
        "cp",
        "--python-version",
        TARGET_VERSION,
        "--only-binary=:all:",
        "--target",
        str(target),
        "--constraint",
        str(root / "constraints.txt"),
        *requirements,
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise BundlingError(f"pip could not build the dependency layer:\n{result.stderr}")
    shutil.rmtree(target / "bin", ignore_errors=True)


def build_layer(output_dir: Path, root: Path = ROOT, name: str = layers.BASE) -> Path:
    """pip-install a layer's requirements for Lambda arm64/3.12 into `output_dir/python`: the
    base's, or an optional layer's less every entry the base install already has."""
    target = output_dir / "python"
    base = layer_requirements(layers.BASE, root)
    if name == layers.BASE:
        _pip_install(target, base, root)
    else:
        with tempfile.TemporaryDirectory() as scratch:
            alone, together = Path(scratch) / "base", Path(scratch) / "with"
            _pip_install(alone, base, root)
            _pip_install(together, [*base, *layer_requirements(name, root)], root)
            target.mkdir(parents=True, exist_ok=True)
            for entry in sorted(together.iterdir()):
                if not (alone / entry.name).exists():
                    shutil.move(str(entry), target / entry.name)
    byte_compile(target, LAYER_ROOT)
    return output_dir


def _source_files(root: Path) -> list[tuple[Path, str]]:
    """(file, path in the asset): functions/ as is, shared/webstore/ as the top-level `webstore`."""
    files: list[tuple[Path, str]] = []
    for base, prefix in ((root / "functions", "functions"), (root / "shared" / "webstore", "webstore")):
        for path in sorted(base.rglob("*")):
            relative = path.relative_to(base)
            # webstore/html/compiled: a local compile's output; the asset makes its own.
            skipped = SKIP_PARTS & set(relative.parts) or relative.parts[:2] == ("html", "compiled")
            if path.is_file() and not skipped and path.suffix != ".pyc":
                files.append((path, f"{prefix}/{relative.as_posix()}"))
    return files


def compile_templates(output_dir: Path, root: Path = ROOT) -> Path | None:
    """The house templates and the shop's default theme compiled ahead of time into the asset's
    `webstore/html/compiled` (the theme in its `shop/`, by the owner sandbox's environment;
    `python -m webstore.html.compile`, the root's own code): Lambda loads those modules instead
    of parsing templates at a cold start (webstore/html/__init__.py, webstore/html/owner.py)."""
    if not (root / "shared" / "webstore" / "html" / "templates").is_dir():
        return None
    target = output_dir / "webstore" / "html" / "compiled"
    environment = {**os.environ, "PYTHONPATH": str(root / "shared")}
    result = subprocess.run(
        [sys.executable, "-m", "webstore.html.compile", str(target)],
        capture_output=True,
        text=True,
        env=environment,
        cwd=root,
    )
    if result.returncode != 0:
        raise BundlingError(f"the templates do not compile:\n{result.stderr}")
    return target


def build_code(output_dir: Path, root: Path = ROOT) -> Path:
    """The code asset: `functions.storefront.x.handler` and `import webstore` resolve from its
    root; the templates compiled ahead of time, and everything byte-compiled."""
    for source, name in _source_files(root):
        destination = output_dir / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, destination)
    compile_templates(output_dir, root)
    byte_compile(output_dir, CODE_ROOT)
    return output_dir


def layer_hash(root: Path = ROOT, name: str = layers.BASE) -> str:
    """Changes exactly when the layer's inputs do (dependencies, constraints, target, recipe)."""
    digest = hashlib.sha256()
    for part in (RECIPE, name, TARGET_VERSION, *PLATFORMS, *runtime_requirements(root)):
        digest.update(part.encode() + b"\0")
    digest.update((root / "constraints.txt").read_bytes())
    return digest.hexdigest()


def code_hash(root: Path = ROOT) -> str:
    """Changes exactly when a shipped source file does."""
    digest = hashlib.sha256(f"{RECIPE}\0{TARGET_VERSION}\0".encode())
    for source, name in _source_files(root):
        digest.update(name.encode() + b"\0" + hashlib.sha256(source.read_bytes()).digest())
    return digest.hexdigest()


@jsii.implements(ILocalBundling)
class _LocalBundler:
    def __init__(self, build: Any, root: Path) -> None:
        self._build = build
        self._root = root

    def try_bundle(self, output_dir: str, *_args: Any, **_kwargs: Any) -> bool:
        self._build(Path(output_dir), self._root)
        return True


def _asset_code(build: Any, asset_hash: str, root: Path) -> lambda_.Code:
    # The source path is only a label here: local bundling reads what it needs, and the custom
    # hash (no fingerprinting of the repo) lets CDK reuse an unchanged bundle from cdk.out.
    return lambda_.Code.from_asset(
        str(root),
        asset_hash=asset_hash,
        asset_hash_type=AssetHashType.CUSTOM,
        bundling=BundlingOptions(
            image=lambda_.Runtime.PYTHON_3_12.bundling_image, local=_LocalBundler(build, root)
        ),
    )


def layer_code(root: Path = ROOT, name: str = layers.BASE) -> lambda_.Code:
    """A dependency layer as a CDK asset (a new object per stack: CDK binds one per stack)."""
    return _asset_code(lambda output_dir, at: build_layer(output_dir, at, name), layer_hash(root, name), root)


def function_code(root: Path = ROOT) -> lambda_.Code:
    """The shared code asset as a CDK asset (a new object per stack)."""
    return _asset_code(build_code, code_hash(root), root)
