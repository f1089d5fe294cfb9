"""Compile the templates ahead of time: `python -m webstore.html.compile <dir>`.

Writes one Python module per template file of templates/ (Jinja2's
`Environment.compile_templates`, with the run-time environment's own settings) into `<dir>`,
and the shop's default theme (templates/shop/) into `<dir>/shop`, compiled by the owner
sandbox's environment (`webstore.html.owner.compile_theme`: the sandbox's checks and the loop
budget are in its code). The Lambda bundle (infra/aws/bundling.py) puts them in
`webstore/html/compiled/`, where `webstore.html.environment` and the owner environments
(`webstore.html.owner`, for every theme file an owner did not replace) load them with a
`ModuleLoader`: a cold start imports the pages' code instead of lexing, parsing and compiling
their templates. The bundle byte-compiles them with the rest of the code.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from webstore.html import TEMPLATES, configure, options


def compile_templates(target: Path, source: Path = TEMPLATES) -> list[str]:
    """Compile every template under `source` into `target` (emptied first); returns their names."""
    from jinja2 import Environment, FileSystemLoader

    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    env = configure(Environment(loader=FileSystemLoader(str(source)), **options()))
    names = env.list_templates(filter_func=house_template)
    env.compile_templates(str(target), zip=None, ignore_errors=False, filter_func=house_template)
    return names


def house_template(name: str) -> bool:
    """The shop's theme (`shop/`) is not the house's: it renders in the owner sandbox
    (webstore.html.owner), with its own filters, and is compiled by it (`compile_all`)."""
    return not name.startswith(SHOP_THEME)


SHOP_THEME = "shop/"


def compile_all(target: Path) -> tuple[list[str], list[str]]:
    """The house templates into `target`, the shop's theme into `target/shop` (what
    webstore.html.owner.COMPILED_THEME is in a bundle): (house names, theme names)."""
    from webstore.html.owner import compile_theme

    house = compile_templates(target)
    return house, compile_theme(target / SHOP_THEME.rstrip("/"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("target", type=Path, help="the directory to write the compiled modules to")
    args = parser.parse_args(argv)
    house, theme = compile_all(args.target)
    print(f"compiled {len(house)} templates and the shop's {len(theme)} into {args.target}")


if __name__ == "__main__":
    main()
