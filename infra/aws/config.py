"""Per-stage settings, read once from CDK context (`-c stage=production -c storefrontDomain=…`).

Everything that differs between stages lives here so the constructs stay declarative.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from constructs import Node

from infra.cors import CONTEXT_KEY as CORS_CONTEXT_KEY
from infra.cors import storefront_policy

PRODUCTION_STAGES = frozenset({"production", "prod"})
# (reservoir per second, rate) of X-Ray sampling. No reservoir: a quiet shop is sampled at the
# rate like a busy one. Production 1%: $0.05 of traces per million requests, 4% of the request
# fees (docs/deploy.md, "Tracing"); staging traces more of its little traffic, for debugging.
PRODUCTION_TRACE_SAMPLING = (0, 0.01)
STAGING_TRACE_SAMPLING = (0, 0.10)
_STAGE = re.compile(r"^[a-z][a-z0-9-]{0,19}$")


@dataclass(frozen=True)
class Throttle:
    """API Gateway stage throttling: steady requests per second and burst bucket size."""

    rate: int
    burst: int


@dataclass(frozen=True)
class Domain:
    """A custom domain for one HTTP API: its name and a regional ACM certificate in the stack's region."""

    name: str
    certificate_arn: str


@dataclass(frozen=True)
class TraceSampling:
    """X-Ray sampling of the stage's functions: `reservoir` traces per second first, then `rate`
    of the rest. X-Ray's default (1/s, then 5%) traces every request of a shop that sees under
    one request a second, at $5 per million traces against $1.20 per million requests (HTTP API
    plus Lambda's request fee): docs/deploy.md, "Tracing", has the arithmetic."""

    reservoir: int
    rate: float


@dataclass(frozen=True)
class StageConfig:
    stage: str
    production: bool
    storefront_domain: Domain | None
    operator_domain: Domain | None
    admin_domain: Domain | None
    # The players' shop (docs/shop.md): its domain, and the store it sells for (an account id;
    # 0: the shop's pages answer 404 until one is set).
    shop_domain: Domain | None
    # Route 53 zone for alias records of the custom domains (no lookup: synth stays offline).
    hosted_zone_id: str | None
    hosted_zone_name: str | None
    storefront_throttle: Throttle
    operator_throttle: Throttle
    # The control panel: staff browsers, a few requests per page.
    admin_throttle: Throttle
    # The players' shop: browsers, a page and its forms.
    shop_throttle: Throttle
    cors_origins: tuple[str, ...]
    alarm_email: str | None
    log_level: str
    snap_start: bool
    trace_sampling: TraceSampling
    shop_store_id: int = 0
    # The CloudWatch dashboard (context `dashboard=true`): off by default, as it is $3 a month at
    # list price beyond an account's three free ones (docs/deploy.md, "What an idle stage costs").
    dashboard: bool = False
    # E-mail to players (docs/mail.md): the domain SES sends from (a domain identity with DKIM
    # this stack creates; None: no e-mail is sent) and the sender address on it.
    mail_domain: str | None = None
    mail_from: str | None = None

    @property
    def prefix(self) -> str:
        """Prefix of physical names (functions, bus): one stage per account and region."""
        return f"webstore-{self.stage}"

    @property
    def stack_name(self) -> str:
        return f"Webstore-{self.stage}"

    @classmethod
    def from_context(cls, node: Node) -> StageConfig:
        def get(key: str, default: Any = None) -> Any:
            value = node.try_get_context(key)
            return default if value is None or value == "" else value

        stage = str(get("stage", "staging"))
        if not _STAGE.match(stage):
            raise ValueError(f"stage {stage!r}: lower-case letters, digits and '-', at most 20 characters")
        production = _flag(get("production", stage in PRODUCTION_STAGES))
        certificate = get("certificateArn")

        def domain(key: str) -> Domain | None:
            name = get(key)
            if name is None:
                return None
            arn = get(f"{key[: -len('Domain')]}CertificateArn", certificate)
            if not arn:
                raise ValueError(f"context {key} needs certificateArn (a regional ACM certificate)")
            return Domain(str(name), str(arn))

        # Defaults sized for one store network: ~100 ms handlers, so 200 rps ≈ 20 concurrent
        # executions, well inside the default account concurrency of 1,000.
        storefront = (200, 400) if production else (20, 40)
        operator = (100, 200) if production else (10, 20)
        admin = (20, 40) if production else (10, 20)
        shop = (200, 400) if production else (20, 40)
        sampling = PRODUCTION_TRACE_SAMPLING if production else STAGING_TRACE_SAMPLING
        rate = float(get("traceSamplingRate", sampling[1]))
        if not 0 <= rate <= 1:
            raise ValueError(f"traceSamplingRate {rate}: a fraction between 0 and 1")
        return cls(
            stage=stage,
            production=production,
            storefront_domain=domain("storefrontDomain"),
            operator_domain=domain("operatorDomain"),
            admin_domain=domain("adminDomain"),
            shop_domain=domain("shopDomain"),
            hosted_zone_id=get("hostedZoneId"),
            hosted_zone_name=get("hostedZoneName"),
            storefront_throttle=Throttle(
                int(get("storefrontRateLimit", storefront[0])),
                int(get("storefrontBurstLimit", storefront[1])),
            ),
            operator_throttle=Throttle(
                int(get("operatorRateLimit", operator[0])), int(get("operatorBurstLimit", operator[1]))
            ),
            admin_throttle=Throttle(
                int(get("adminRateLimit", admin[0])), int(get("adminBurstLimit", admin[1]))
            ),
            shop_throttle=Throttle(int(get("shopRateLimit", shop[0])), int(get("shopBurstLimit", shop[1]))),
            shop_store_id=int(get("shopStoreId", 0)),
            cors_origins=storefront_policy(get(CORS_CONTEXT_KEY)).allow_origins,
            alarm_email=get("alarmEmail"),
            log_level=str(get("logLevel", "INFO")).upper(),
            snap_start=_flag(get("snapStart", False)),
            trace_sampling=TraceSampling(int(get("traceReservoir", sampling[0])), rate),
            dashboard=_flag(get("dashboard", False)),
            mail_domain=get("mailDomain"),
            mail_from=get("mailFrom", f"no-reply@{get('mailDomain')}" if get("mailDomain") else None),
        )


def _flag(value: Any) -> bool:
    return value is True or str(value).lower() in {"1", "true", "yes"}
