"""The local stack: the four interfaces (the players' shop, storefront, operator, control panel) in
one process, an embedded DynamoDB, an in-process bus.

The same routes as in AWS (the route table), the same domain code, the same table shape.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import json
import os
import secrets
import socket
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import uvicorn
from fastapi import FastAPI

from functions.routes import operations
from functions.runtime import Interface, build_app
from infra.background_clock import DEFAULT_CLOCK_INTERVAL, start_processor_clock
from infra.cors import PathCors, cdk_json_origins, storefront_policy
from infra.embedded import EmbeddedStore, embedded_dynamodb
from infra.embedded_endpoint import dynamodb_endpoint
from infra.state import DEFAULT_STATE_DIR, LocalState
from infra.swagger import with_offline_docs
from infra.threaded import ThreadedApp
from webstore import keys
from webstore import services as services_module
from webstore.catalog_file import CatalogError, load_catalog, stale_lines
from webstore.catalog_import import CatalogFile, ImportResult, StaleCatalog, WebhookEntry, import_catalog
from webstore.db import Table, create_table
from webstore.discord import local as local_discord
from webstore.gateway_settings import stripe_webhook_url
from webstore.local_stream import LocalStream
from webstore.mail import local as local_mail
from webstore.mail.smtp import parse_relay
from webstore.repo.definitions import DefinitionRepository
from webstore.webhooks import local as local_webhooks
from webstore.webhooks.local import LocalDispatcher

DEMO_CATALOG = Path(__file__).resolve().parent.parent / "shared" / "webstore" / "demo" / "store.json"


@dataclass
class LocalConfig:
    host: str = "127.0.0.1"
    storefront_port: int = 8080
    operator_port: int = 8081
    admin_port: int = 8082
    shop_port: int = 8083
    table_name: str = "webstore"
    dynamodb_endpoint: str | None = None  # None: embedded (moto, in process)
    region: str = "us-east-1"
    catalog: Path | None = DEMO_CATALOG  # None: import nothing
    next_check: int | None = None
    # Where online-mode stores resolve player names (None: the setting's default, Mojang's API).
    identity_base_url: str | None = None
    # Where Steam stores sign players in (None: the setting's default, Steam's own endpoint).
    steam_openid_url: str | None = None
    credentials_file: Path | None = None
    # Where the stack keeps its data across restarts (infra/state.py); None: nowhere.
    state_dir: Path | None = DEFAULT_STATE_DIR
    fresh: bool = False  # start over: delete what state_dir holds
    cors_origins: str | None = None  # None: cdk.json's corsOrigins, as the deployed stack
    # Webhook receivers to add to the imported store: (url, signing secret or None to generate).
    webhooks: tuple[tuple[str, str | None], ...] = ()
    # The client address is the socket's, as API Gateway takes it. Only behind a proxy named
    # here (an address, or a comma-separated list) is its X-Forwarded-For believed.
    trusted_proxy: str | None = None
    # Seconds between runs of the subscription processor (0: no background clock).
    clock_interval: float = DEFAULT_CLOCK_INTERVAL
    # The Stripe API the stores' Stripe keys talk to (a localstripe address); None: Stripe's.
    stripe_api_base: str | None = None
    # Import the catalog file even unchanged, over the panel's changes, removing what it lacks.
    force: bool = False
    # E-mail to players (docs/mail.md): relay to this SMTP server (host:port); None: write each
    # message as an .eml file in the state directory's `mail/` (nothing leaves the machine).
    smtp: str | None = None


def interface_app(interface: Interface) -> FastAPI:
    return build_app(interface, [(op.route, op.endpoint) for op in operations(interface)])


def with_cors(app: FastAPI, interface: Interface, config: LocalConfig) -> FastAPI:
    """The storefront answers CORS as API Gateway does in AWS: the same policy (infra/cors.py),
    origins from cdk.json's `corsOrigins` unless `--cors-origins` names others."""
    if interface is Interface.STOREFRONT:
        origins = config.cors_origins if config.cors_origins is not None else cdk_json_origins()
        app.add_middleware(PathCors, policy=storefront_policy(origins), routes=app.routes)
    return app


def configure_environment(config: LocalConfig) -> None:
    """Settings come from the environment, as in Lambda."""
    os.environ.update(
        {
            "WEBSTORE_TABLE_NAME": config.table_name,
            "WEBSTORE_REGION": config.region,
            "AWS_DEFAULT_REGION": config.region,
            "WEBSTORE_EVENTS": "local",
            "WEBSTORE_STOREFRONT_URL": f"http://{config.host}:{config.storefront_port}",
            "WEBSTORE_OPERATOR_URL": f"http://{config.host}:{config.operator_port}",
            "WEBSTORE_ADMIN_URL": admin_url(config),
            "WEBSTORE_SHOP_URL": shop_url(config),
            "WEBSTORE_ALLOW_PRIVATE_WEBHOOKS": "true",
            "POWERTOOLS_TRACE_DISABLED": "true",
            "POWERTOOLS_METRICS_NAMESPACE": "webstore-local",
            "POWERTOOLS_SERVICE_NAME": "webstore-local",
        }
    )
    # The key sealing webhook signing secrets in the table (AWS keeps it in Secrets Manager). A
    # fresh one per run unless given: each run imports its catalog again, sealing anew.
    os.environ.setdefault("WEBSTORE_WEBHOOK_KEY", secrets.token_urlsafe(32))
    if config.dynamodb_endpoint:
        os.environ["WEBSTORE_DYNAMODB_ENDPOINT"] = config.dynamodb_endpoint
    if config.next_check is not None:
        os.environ["WEBSTORE_NEXT_CHECK_OVERRIDE"] = str(config.next_check)
    if config.stripe_api_base:
        os.environ["WEBSTORE_STRIPE_API_BASE"] = config.stripe_api_base
    if config.identity_base_url:
        os.environ["WEBSTORE_IDENTITY_BASE_URL"] = config.identity_base_url
    if config.steam_openid_url:
        os.environ["WEBSTORE_STEAM_OPENID_URL"] = config.steam_openid_url
    services_module.reset()


def prepare_table(config: LocalConfig) -> Table:
    client = boto3.client("dynamodb", region_name=config.region, endpoint_url=config.dynamodb_endpoint)
    if config.table_name not in client.list_tables()["TableNames"]:
        create_table(client, config.table_name)
    return Table(client, config.table_name)


def credentials(config: LocalConfig, catalog: CatalogFile, result: ImportResult) -> dict[str, Any]:
    """The six keys the README names (`server_secret`: the first server's), plus `servers`: every
    server's id, name and secret (None when kept from an earlier import: only its hash is stored)."""
    names = {server.id: server.name for server in catalog.servers}
    return {
        **store_urls(config, result.public_token, stripe=catalog.gateways.stripe is not None),
        "public_token": result.public_token,
        "webstore_identifier": result.public_token,
        "checkout_api_key": result.checkout_api_key,
        "server_secret": next(iter(result.server_secrets.values()), None),
        "servers": [
            {"id": server_id, "name": names[server_id], "secret": secret}
            for server_id, secret in result.server_secrets.items()
        ],
    }


def store_urls(config: LocalConfig, public_token: str, *, stripe: bool) -> dict[str, str]:
    """Where this start serves the store (the ports may differ from the last start's)."""
    storefront = f"http://{config.host}:{config.storefront_port}"
    return {
        "shop_url": shop_url(config),  # the players' shop, first
        **({"stripe_webhook_url": stripe_webhook_url(storefront, public_token)} if stripe else {}),
        "headless_url": f"{storefront}/api/accounts/{public_token}",
        "plugin_url": f"http://{config.host}:{config.operator_port}",
    }


def start_local_bus_consumers() -> LocalDispatcher:
    """Hand locally published events to the same delivery code as in AWS (webhooks; e-mail: see
    `start_local_mail`)."""
    return local_webhooks.subscribe(services_module.local_bus(), services_module.get_services())


def configure_mail(config: LocalConfig, state_dir: Path | None) -> str:
    """Where `serve`'s e-mail goes (the settings' transport); a line saying so."""
    if config.smtp:
        parse_relay(config.smtp)  # a bad value stops serve before it starts (ValueError)
        os.environ["WEBSTORE_MAIL_TRANSPORT"] = "smtp"
        os.environ["WEBSTORE_MAIL_SMTP"] = config.smtp
        where = f"relayed to SMTP {config.smtp}"
    elif state_dir is not None:
        os.environ["WEBSTORE_MAIL_TRANSPORT"] = "files"
        os.environ["WEBSTORE_MAIL_DIR"] = str(state_dir / "mail")
        where = f"written to {state_dir / 'mail'} as .eml files (--smtp HOST:PORT relays them)"
    else:
        os.environ["WEBSTORE_MAIL_TRANSPORT"] = "off"
        where = "not sent (no state directory; --smtp HOST:PORT relays them)"
    services_module.reset()
    return f"E-mail: {where}"


def start_local_mail() -> LocalDispatcher:
    return local_mail.subscribe(services_module.local_bus(), services_module.get_services())


def start_local_discord() -> LocalDispatcher:
    """Discord roles (docs/discord.md) from the local bus's events; Discord is the settings'
    `discord_api_url` (WEBSTORE_DISCORD_API_URL: the loopback stand-in for local runs)."""
    return local_discord.subscribe(services_module.local_bus(), services_module.get_services())


def start_local_stream() -> LocalStream | None:
    """The table's stream, locally (webstore.local_stream): publish the outbox items a stop left
    unpublished (written, the process gone before it published them), then delete published
    ones in the background. After the bus consumers are subscribed, before requests are served."""
    stream = services_module.get_services().stream
    if stream is None:
        return None
    swept = stream.sweep()
    if swept:
        print(f"Events: {swept} written before the last stop published now", flush=True)
    stream.start()
    return stream


def stop_local_stream() -> None:
    """Stop the table's stream once the bus consumers have stopped, so what they acknowledged
    while stopping is flushed (their outbox items deleted) rather than published again at the
    next start."""
    stream = services_module.get_services().stream
    if stream is not None:
        stream.stop()


def server_config(app: Any, config: LocalConfig, port: int) -> uvicorn.Config:
    """uvicorn for one interface. Without a trusted proxy, X-Forwarded-For is ignored: uvicorn
    believes it from 127.0.0.1 by default, so any local client could pick its address (and a
    fresh brute-force budget) per request."""
    return uvicorn.Config(
        app,
        host=config.host,
        port=port,
        log_level="warning",
        proxy_headers=config.trusted_proxy is not None,
        forwarded_allow_ips=config.trusted_proxy or "",
    )


class PortBusy(Exception):
    """A port the local stack needs cannot be bound; the message names the option that moves it."""


def bind(host: str, port: int, option: str) -> socket.socket:
    """Take the port before anything is imported or printed (uvicorn listens on it later), so a
    busy port stops `serve` before it hands out keys. Bound, not listening: nothing connects
    until the stack is ready."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn: restarts reuse it at once
    # No Nagle on the connections it accepts (they inherit it): a small response goes out as two
    # writes (head, body), and the body waited for the client's delayed ACK, ~40 ms a request.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        busy = error.errno == errno.EADDRINUSE
        reason = "is already in use" if busy else f"cannot be used ({error.strerror})"
        message = f"webstore serve: port {port} on {host} {reason}; choose another with {option}"
        raise PortBusy(message) from None
    return sock


def bind_ports(config: LocalConfig) -> list[socket.socket]:
    """The storefront's socket, the operator's, the control panel's, then the shop's."""
    bound: list[socket.socket] = []
    try:
        for port, option in (
            (config.storefront_port, "--storefront-port"),
            (config.operator_port, "--operator-port"),
            (config.admin_port, "--admin-port"),
            (config.shop_port, "--shop-port"),
        ):
            bound.append(bind(config.host, port, option))
    except PortBusy:
        for sock in bound:
            sock.close()
        raise
    return bound


def admin_url(config: LocalConfig) -> str:
    return f"http://{config.host}:{config.admin_port}"


def shop_url(config: LocalConfig) -> str:
    return f"http://{config.host}:{config.shop_port}"


def shop_store(catalog: CatalogFile | None, path: Path | None, config: LocalConfig) -> None:
    """The shop sells for the imported store (WEBSTORE_SHOP_STORE_ID). The demo store's own site
    is the shop, wherever `--shop-port` puts it (its file says the default address), so every
    "back to the store" link (the receipt's, the auth page's) lands there. Without a catalog
    (`--no-catalog`), store 1: the one `webstore init --local` makes unless told another id."""
    if catalog is None:
        os.environ.setdefault("WEBSTORE_SHOP_STORE_ID", "1")
        services_module.reset()
        return
    os.environ["WEBSTORE_SHOP_STORE_ID"] = str(catalog.store.id)
    if path is not None and path.resolve() == DEMO_CATALOG.resolve():
        catalog.store.webstore_url = shop_url(config)
    services_module.reset()


async def serve_forever(config: LocalConfig, sockets: list[socket.socket]) -> None:
    apps = [
        (ThreadedApp(with_cors(with_offline_docs(interface_app(interface)), interface, config)), port, sock)
        for (interface, port), sock in zip(
            (
                (Interface.STOREFRONT, config.storefront_port),
                (Interface.OPERATOR, config.operator_port),
                (Interface.ADMIN, config.admin_port),
                (Interface.SHOP, config.shop_port),
            ),
            sockets,
            strict=True,
        )
    ]
    servers = [(uvicorn.Server(server_config(app, config, port)), sock) for app, port, sock in apps]
    try:
        await asyncio.gather(*(server.serve(sockets=[sock]) for server, sock in servers))
    finally:
        for app, _, _ in apps:
            app.close()


def run(config: LocalConfig) -> int:
    """Serve until Ctrl-C (exit code 0); 1, with one line on stderr, when a port is busy; 2, with
    one line per mistake (as `webstore import` prints them), when the catalog file is wrong."""
    try:
        catalog = load_catalog(config.catalog) if config.catalog else None
    except CatalogError as error:
        for problem in error.problems:
            print(f"webstore serve: {problem}", file=sys.stderr, flush=True)
        return 2
    try:
        sockets = bind_ports(config)
    except PortBusy as error:
        print(error, file=sys.stderr, flush=True)
        return 1
    state = LocalState.open(config.state_dir, fresh=config.fresh) if config.state_dir else None
    if state:
        os.environ.setdefault("WEBSTORE_WEBHOOK_KEY", state.webhook_key())
    configure_environment(config)
    with contextlib.ExitStack() as stack:
        for sock in sockets:
            stack.callback(sock.close)
        # The in-process calls and the tools' HTTP calls run moto one at a time, each write
        # journaled (on disk) before its call returns (infra/embedded.py, infra/state.py).
        store = EmbeddedStore()
        endpoint = config.dynamodb_endpoint
        if not endpoint:
            stack.enter_context(embedded_dynamodb(store))
            endpoint = stack.enter_context(dynamodb_endpoint())
        table = prepare_table(config)
        if state and not config.dynamodb_endpoint:
            state.restore(store, table)
            stack.enter_context(state.kept(store))
        stack.callback(stop_local_stream)  # runs last: after every consumer below has stopped
        dispatcher = start_local_bus_consumers()
        stack.callback(dispatcher.stop)
        print(configure_mail(config, state.directory if state else None), flush=True)
        mailer = start_local_mail()
        stack.callback(mailer.stop)
        roles = start_local_discord()
        stack.callback(roles.stop)
        start_local_stream()
        creds: dict[str, Any] = {}
        shop_store(catalog, config.catalog, config)
        if catalog:
            assert config.catalog is not None
            added = add_webhooks(catalog, config.webhooks)
            record = CatalogRecord(state.directory if state else None, config.catalog, config.webhooks)
            if state:
                print(
                    f"State: {state.directory} ({state.restored_items} items restored; --fresh starts over)"
                )
            if record.unchanged(table, catalog.store.id) and not config.force:
                assert state is not None  # unchanged: there is a record, so a state directory
                previous = state.previous_credentials()
                creds = {
                    **previous,
                    **store_urls(
                        config, previous["public_token"], stripe=catalog.gateways.stripe is not None
                    ),
                }
                creds.update(demo_owner(config, catalog.store.id, previous.get("admin_password")))
                creds = state.remembered_credentials(creds)
                print(f"Catalog: {config.catalog} unchanged since its last import: kept the store as it is")
            else:
                try:
                    result = import_catalog(
                        table,
                        catalog,
                        pinned_webhooks={e.id for e in added},
                        revision=record.base_revision(),
                        force=config.force,
                    )
                except StaleCatalog as stale:
                    command = f"webstore serve --catalog {config.catalog}"
                    for line in stale_lines(stale, str(config.catalog), command):
                        print(
                            f"webstore serve: {line}" if not line.startswith(" ") else line, file=sys.stderr
                        )
                    return 2
                record.save(result.revision)
                creds = credentials(config, catalog, result)
                remembered = state.previous_credentials() if state else {}
                creds.update(demo_owner(config, result.account_id, remembered.get("admin_password")))
                if state:
                    creds = state.remembered_credentials(creds)
                print(f"Catalog: {result.changes.summary()}", flush=True)
            print_credentials(creds)
            for webhook in added:
                print(f"Webhook endpoint {webhook.url} signing secret {webhook.secret}", flush=True)
        if config.credentials_file:
            write_private(
                config.credentials_file,
                json.dumps({**creds, **tool_access(config, endpoint)}, indent=2) + "\n",
            )
            print(f"Credentials written to {config.credentials_file}", flush=True)
        clock = start_processor_clock(config.clock_interval)
        if clock is not None:
            stack.callback(clock.stop)
        print(f"Shop:       {shop_url(config)}  (the store players browse)", flush=True)
        print(f"Storefront: http://{config.host}:{config.storefront_port}  (docs: /docs)", flush=True)
        print(f"Operator:   http://{config.host}:{config.operator_port}  (docs: /docs)", flush=True)
        print(f"Panel:      {admin_url(config)}  (sign in with admin_email / admin_password)", flush=True)
        print("Ctrl-C stops.", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve_forever(config, sockets))
    return 0


class CatalogRecord:
    """What `webstore serve` remembers of its catalog file's last import, in the state directory
    (`catalog-import.json`): the file's SHA-256 (with the `--webhook` receivers added to it) and
    the store's catalog revision the import left. The file is imported again only when it
    changed; then as a file exported at that revision, so changes made since (the panel) are not
    undone silently (`--force` does)."""

    NAME = "catalog-import.json"

    def __init__(
        self, directory: Path | None, catalog: Path, webhooks: tuple[tuple[str, str | None], ...]
    ) -> None:
        self.path = directory / self.NAME if directory else None
        digest = hashlib.sha256(catalog.read_bytes())
        digest.update(json.dumps(webhooks).encode())
        self.digest = digest.hexdigest()
        self.previous: dict[str, Any] = {}
        if self.path and self.path.exists():
            with contextlib.suppress(ValueError):
                self.previous = dict(json.loads(self.path.read_text()))

    def unchanged(self, table: Table, account_id: int) -> bool:
        """The same file as last time, and the store it made is there."""
        same = self.previous.get("sha256") == self.digest
        return same and DefinitionRepository(table).existing_store(account_id) is not None

    def base_revision(self) -> int | None:
        """The revision the last import left (None: never imported here)."""
        value = self.previous.get("revision")
        return int(value) if isinstance(value, int) else None

    def save(self, revision: int) -> None:
        if self.path:
            write_private(self.path, json.dumps({"sha256": self.digest, "revision": revision}) + "\n")


DEMO_OWNER_EMAIL = "owner@example.com"


def demo_owner(config: LocalConfig, account_id: int, password: str | None) -> dict[str, str]:
    """The control panel's owner of the imported store: `admin_url`, `admin_email` and
    `admin_password`. Created on the first start; on a restart the owner restored from the state
    directory keeps the password remembered there, and gets a new one if it was lost."""
    from datetime import UTC, datetime

    from webstore.admin import passwords, staff
    from webstore.repo.staff import StaffRepository

    services = services_module.get_services()
    repo = StaffRepository(services.table)
    memory = services.settings.password_hash_memory_kib
    login = repo.login_of(DEMO_OWNER_EMAIL)
    member = repo.member(login.account_id, login.staff_id) if login else None
    if member is None:
        if login is not None:  # a lookup whose member is gone: start the owner over
            services.table.delete(keys.staff_email_key(DEMO_OWNER_EMAIL, login.account_id))
        created = staff.create_owner(services, account_id, DEMO_OWNER_EMAIL, datetime.now(UTC), password)
        password = created.password
    elif password is None or not passwords.password_matches(password, member.password_hash, memory):
        password = passwords.generate_password()
        repo.set_password(member.account_id, member.staff_id, passwords.hash_password(password, memory))
    return {"admin_url": admin_url(config), "admin_email": DEMO_OWNER_EMAIL, "admin_password": password}


def add_webhooks(catalog: CatalogFile, webhooks: tuple[tuple[str, str | None], ...]) -> list[WebhookEntry]:
    """Point the store's webhooks at local receivers (`webstore serve --webhook URL`)."""
    next_id = max((w.id for w in catalog.webhooks), default=0)
    added = [
        WebhookEntry(id=next_id + n, url=url, secret=secret or keys.new_secret())
        for n, (url, secret) in enumerate(webhooks, start=1)
    ]
    catalog.webhooks.extend(added)
    return added


def write_private(path: Path, text: str) -> None:
    """Write a file only its owner can read (0600): it holds the store's keys."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # also when the file existed with wider permissions
    with os.fdopen(fd, "w") as file:
        file.write(text)


def print_credentials(creds: dict[str, Any]) -> None:
    print("Demo store ready:", flush=True)
    for name, value in creds.items():
        if name != "servers":
            print(f"  {name:20} {value}", flush=True)
    for server in creds["servers"]:
        label = f"server {server['id']} ({server['name']})"
        print(f"  {label:20} {server['secret'] or '(unchanged; only its hash is stored)'}", flush=True)


def tool_access(config: LocalConfig, endpoint: str) -> dict[str, Any]:
    """What the `webstore` tools need to reach this stack (`--local <credentials file>`): its
    DynamoDB endpoint (the embedded table's, on loopback: infra.embedded_endpoint), region and
    table; the keys that endpoint takes (dummies: moto checks no signature); the public URLs
    links are built from; the key that seals webhook signing secrets, so a tool's import seals
    and its events are signed as serve's are."""
    return {
        "dynamodb_endpoint": endpoint,
        "region": config.region,
        "table": config.table_name,
        "aws_access_key_id": os.environ.get("AWS_ACCESS_KEY_ID", "local"),
        "aws_secret_access_key": os.environ.get("AWS_SECRET_ACCESS_KEY", "local"),
        "storefront_url": f"http://{config.host}:{config.storefront_port}",
        "operator_url": f"http://{config.host}:{config.operator_port}",
        "admin_url": admin_url(config),
        "shop_url": shop_url(config),
        "webhook_key": os.environ.get("WEBSTORE_WEBHOOK_KEY"),
        # Where serve's e-mail goes, so `webstore clock run`'s messages go there too.
        "mail": {
            name: os.environ[f"WEBSTORE_{name.upper()}"]
            for name in ("mail_transport", "mail_smtp", "mail_dir")
            if os.environ.get(f"WEBSTORE_{name.upper()}")
        },
    }
