"""The four HTTP APIs (storefront, operator, the control panel, the players' shop: behind its
CloudFront distribution, infra/aws/edge.py) and, per
interface, one Lambda function per operation of the route table.

The APIs (stage, throttling, access logs, CORS, custom domain) live in the main stack; each
interface's functions and routes live in a nested stack, so the route table can keep growing
without meeting CloudFormation's 500-resources-per-stack limit.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass

import jsii
from aws_cdk import Duration, NestedStack, RemovalPolicy
from aws_cdk import aws_apigateway as apigateway
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_logs as logs
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_route53_targets as route53_targets
from constructs import Construct

from functions.declarations import Interface, Route
from functions.routes import Operation, operations, unmatched_access
from infra.aws.config import Domain, StageConfig, Throttle
from infra.aws.functions import Shared, WebstoreFunction, function_name
from infra.cors import CorsPolicy

# API Gateway waits at most 30 s for an integration; a longer Lambda timeout would be a lie.
MAX_TIMEOUT_SECONDS = 29
# One JSON line per request. The route key, not the path: paths carry tokens and basket idents.
ACCESS_LOG_FORMAT = json.dumps(
    {
        "requestId": "$context.requestId",
        "time": "$context.requestTime",
        "ip": "$context.identity.sourceIp",
        "userAgent": "$context.identity.userAgent",
        "routeKey": "$context.routeKey",
        "status": "$context.status",
        "protocol": "$context.protocol",
        "responseLength": "$context.responseLength",
        "latency": "$context.responseLatency",
        "integrationLatency": "$context.integrationLatency",
        "integrationError": "$context.integrationErrorMessage",
    }
)
_CONVERTER = re.compile(r"\{(\w+):path\}$")
_OTHER_CONVERTER = re.compile(r"\{(\w+):\w+\}")


def route_path(path: str) -> str:
    """A route-table path as API Gateway spells it: `{rest:path}` (last segment) → `{rest+}`."""
    return _OTHER_CONVERTER.sub(r"{\1}", _CONVERTER.sub(r"{\1+}", path))


def api_paths(route: Route) -> list[str]:
    """The route's paths as API Gateway routes them: it matches `/a/b/` to the `/a/b` route, and a
    route path may not end with a slash, so trailing-slash aliases fold into their base path."""
    folded = [route_path(path.rstrip("/") or "/") for path in route.paths]
    return list(dict.fromkeys(folded))


@dataclass(frozen=True)
class _Api:
    api: apigwv2.HttpApi
    stage: apigwv2.HttpStage
    url: str


class Apis(Construct):
    """Each interface's HTTP API with its `$default` stage; `*_url` are the public base URLs. Only
    the storefront answers CORS: the operator interface is called by game servers, the panel and
    the shop by their own pages (same origin)."""

    def __init__(self, scope: Construct, id: str, *, config: StageConfig) -> None:
        super().__init__(scope, id)
        self.config = config
        policy = CorsPolicy(config.cors_origins)  # infra/cors.py: the local stack answers the same
        cors = apigwv2.CorsPreflightOptions(
            allow_origins=list(policy.allow_origins),
            allow_methods=[
                apigwv2.CorsHttpMethod.ANY if m == "*" else apigwv2.CorsHttpMethod(m) for m in policy.methods
            ],
            allow_headers=list(policy.allow_headers),
            max_age=Duration.seconds(policy.max_age_seconds),
        )
        storefront = self._api(
            Interface.STOREFRONT, cors, config.storefront_throttle, config.storefront_domain
        )
        operator = self._api(Interface.OPERATOR, None, config.operator_throttle, config.operator_domain)
        self.storefront, self.storefront_stage, self.storefront_url = (
            storefront.api,
            storefront.stage,
            storefront.url,
        )
        self.operator, self.operator_stage, self.operator_url = operator.api, operator.stage, operator.url
        admin = self._api(Interface.ADMIN, None, config.admin_throttle, config.admin_domain)
        self.admin, self.admin_stage, self.admin_url = admin.api, admin.stage, admin.url
        # The shop's address is its CloudFront distribution's (infra/aws/edge.py), which holds the
        # shop's custom domain; the API behind it keeps its execute-api endpoint as the origin.
        shop = self._api(Interface.SHOP, None, config.shop_throttle, None)
        self.shop, self.shop_stage = shop.api, shop.stage

    def api(self, interface: Interface) -> apigwv2.HttpApi:
        return {
            Interface.STOREFRONT: self.storefront,
            Interface.OPERATOR: self.operator,
            Interface.ADMIN: self.admin,
            Interface.SHOP: self.shop,
        }[interface]

    def _api(
        self,
        interface: Interface,
        cors: apigwv2.CorsPreflightOptions | None,
        throttle: Throttle,
        domain: Domain | None,
    ) -> _Api:
        name = interface.value.capitalize()
        api = apigwv2.HttpApi(
            self,
            name,
            api_name=f"{self.config.prefix}-{interface.value}",
            description=f"Webstore {interface.value} interface ({self.config.stage})",
            cors_preflight=cors,
            create_default_stage=False,
            # With a custom domain, one public address: the execute-api one is switched off.
            disable_execute_api_endpoint=domain is not None,
        )
        access_logs = logs.LogGroup(
            self,
            f"{name}AccessLogs",
            retention=logs.RetentionDays.THREE_MONTHS
            if self.config.production
            else logs.RetentionDays.TWO_WEEKS,
            removal_policy=RemovalPolicy.RETAIN if self.config.production else RemovalPolicy.DESTROY,
        )
        domain_name = None
        if domain is not None:
            domain_name = apigwv2.DomainName(
                self,
                f"{name}Domain",
                domain_name=domain.name,
                certificate=acm.Certificate.from_certificate_arn(
                    self, f"{name}Certificate", domain.certificate_arn
                ),
            )
            self._alias_record(name, domain_name)
        stage = apigwv2.HttpStage(
            self,
            f"{name}Stage",
            http_api=api,
            stage_name="$default",
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(rate_limit=throttle.rate, burst_limit=throttle.burst),
            access_log_settings=_AccessLogs(access_logs),
            domain_mapping=apigwv2.DomainMappingOptions(domain_name=domain_name) if domain_name else None,
        )
        # No stage in the URL ($default) and no cycle: functions depend on the API, not on routes.
        url = f"https://{domain.name}" if domain is not None else api.api_endpoint
        return _Api(api, stage, url)

    def _alias_record(self, name: str, domain_name: apigwv2.DomainName) -> None:
        config = self.config
        if not (config.hosted_zone_id and config.hosted_zone_name):
            return
        zone = route53.HostedZone.from_hosted_zone_attributes(
            self, f"{name}Zone", hosted_zone_id=config.hosted_zone_id, zone_name=config.hosted_zone_name
        )
        route53.ARecord(
            self,
            f"{name}Alias",
            zone=zone,
            record_name=domain_name.name,
            target=route53.RecordTarget.from_alias(
                route53_targets.ApiGatewayv2DomainProperties(
                    domain_name.regional_domain_name, domain_name.regional_hosted_zone_id
                )
            ),
        )


@jsii.implements(apigwv2.IAccessLogSettings)
class _AccessLogs:
    """Access log settings for an HTTP API stage: a log group and our JSON line format."""

    def __init__(self, group: logs.ILogGroup) -> None:
        self._destination = apigwv2.LogGroupLogDestination(group)

    @property
    def destination(self) -> apigwv2.IAccessLogDestination:
        return self._destination

    @property
    def format(self) -> apigateway.AccessLogFormat:
        return apigateway.AccessLogFormat.custom(ACCESS_LOG_FORMAT)


# CloudFormation allows 500 resources per stack and a function brings about 11 (its role, policy,
# log group, version, alias, integration, permission, routes, two alarms): an interface with more
# functions than fit in one nested stack spreads them over several.
MAX_FUNCTIONS_PER_STACK = 40
# How many nested stacks each interface's operations take. A function's stack is fixed by its
# module's name (crc32 modulo this), so adding a route never moves another function between
# stacks (a function has a fixed name: a move would create it in one stack before deleting it
# from the other, and fail). Raising a count moves functions: deploy such a change in two steps.
# Storefront 2 and panel 3 since the shop, tax, invoices and Discord routes (42 and 80 functions).
OPERATION_STACKS: dict[Interface, int] = {Interface.STOREFRONT: 2, Interface.ADMIN: 3}


def operation_stacks(interface: Interface) -> list[tuple[Operation, ...]]:
    """The interface's operations as its nested stacks hold them, the first also `$default`."""
    count = OPERATION_STACKS.get(interface, 1)
    shards: list[list[Operation]] = [[] for _ in range(count)]
    for operation in operations(interface):
        shards[zlib.crc32(operation.module.encode()) % count].append(operation)
    for n, shard in enumerate(shards):
        if len(shard) > MAX_FUNCTIONS_PER_STACK:
            raise ValueError(
                f"{interface.value} operations stack {n + 1} holds {len(shard)} functions (at most "
                f"{MAX_FUNCTIONS_PER_STACK}): raise OPERATION_STACKS[{interface.name}]"
            )
    return [tuple(shard) for shard in shards]


class Operations(NestedStack):
    """Operations of one interface: a function per module of the route table, routed by every
    path; the interface's first stack also holds its `$default` function."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        interface: Interface,
        table: tuple[Operation, ...],
        api: apigwv2.HttpApi,
        shared: Shared,
        serves_unmatched: bool,
    ) -> None:
        part = "" if serves_unmatched else " (continued)"
        super().__init__(scope, id, description=f"Webstore {interface.value} operations{part}")
        self.interface = interface
        self.functions: dict[str, WebstoreFunction] = {}
        for operation in table:
            self.functions[operation.module] = self._operation(operation, api, shared)
        self.unmatched = self._unmatched(operations(interface), api, shared) if serves_unmatched else None

    @property
    def all_functions(self) -> list[WebstoreFunction]:
        return [*self.functions.values(), *([self.unmatched] if self.unmatched else [])]

    def _unmatched(
        self, table: tuple[Operation, ...], api: apigwv2.HttpApi, shared: Shared
    ) -> WebstoreFunction:
        """`$default`: what no route matched (COMPAT's `//queue`) is served by the whole interface
        app, so it may touch what any of the interface's routes may (functions/unmatched.py)."""
        module = "functions.unmatched"
        function = WebstoreFunction(
            self,
            "Unmatched",
            shared=shared,
            handler=f"{module}.{self.interface.value}_handler",
            name=function_name(shared.config, self.interface.value, module),
            service=f"webstore-{self.interface.value}",
            access=unmatched_access(self.interface),
            memory_mb=max((op.route.memory_mb for op in table), default=512),
            timeout_seconds=max((op.route.timeout_seconds for op in table), default=10),
            description=f"{self.interface.value}: requests no route matched ($default)",
        )
        apigwv2.HttpRoute(
            function,
            "DefaultRoute",
            http_api=api,
            route_key=apigwv2.HttpRouteKey.DEFAULT,
            integration=integrations.HttpLambdaIntegration(
                "UnmatchedIntegration", function.target, scope_permission_to_route=False
            ),
        )
        return function

    def _operation(self, operation: Operation, api: apigwv2.HttpApi, shared: Shared) -> WebstoreFunction:
        route = operation.route
        if route.timeout_seconds > MAX_TIMEOUT_SECONDS:
            raise ValueError(
                f"{operation.module}: timeout {route.timeout_seconds}s exceeds API Gateway's "
                f"{MAX_TIMEOUT_SECONDS}s integration limit"
            )
        module = operation.module.rsplit(".", 1)[-1]
        construct_id = "".join(part.capitalize() for part in module.split("_"))
        function = WebstoreFunction(
            self,
            construct_id,
            shared=shared,
            handler=operation.handler_path,
            name=function_name(shared.config, self.interface.value, operation.module),
            service=f"webstore-{self.interface.value}",
            access=route.function_access,
            memory_mb=route.memory_mb,
            timeout_seconds=route.timeout_seconds,
            description=f"{route.operation_id}: {route.method} {route.path}",
        )
        # One permission per function for the whole API instead of one per route.
        integration = integrations.HttpLambdaIntegration(
            f"{construct_id}Integration", function.target, scope_permission_to_route=False
        )
        for index, path in enumerate(api_paths(route)):
            apigwv2.HttpRoute(
                function,
                f"Route{index}",
                http_api=api,
                route_key=apigwv2.HttpRouteKey.with_(path, apigwv2.HttpMethod(route.method.upper())),
                integration=integration,
            )
        return function
