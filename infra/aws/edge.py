"""The shop's edge (docs/shop.md, "Caching at the edge"): a CloudFront distribution is the shop's
address; it serves the static files from a private S3 bucket and everything else from the shop's
HTTP API.

- `/static/*`: the content-hashed files (`webstore.shop.assets`), uploaded at deploy time by a
  `BucketDeployment` with `Cache-Control: public, max-age=31536000, immutable`, read by
  CloudFront through Origin Access Control (the bucket is private: no public access, TLS only,
  readable by this distribution alone). Earlier versions stay (no pruning): a page a browser or
  the edge still holds names its own files.
- `/tebex.js`: the launcher, from the API; kept at the edge for what the function says (5 min),
  whatever the visitor's cookies (it reads none).
- everything else: the shop's pages and forms, from the API. A page the function marks shared
  (`s-maxage`: the home, a category, a custom page for a visitor with none of the shop's
  cookies) is kept at most `PAGE_MAX_SECONDS`, keyed on the query, the cookies and
  `Accept-Language`; `no-store` pages are never kept.

Nothing here is billed by the month: CloudFront and S3 charge per request and per GB
(infra/aws/costs.py counts them at $0).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_logs as logs
from aws_cdk import aws_route53 as route53
from aws_cdk import aws_route53_targets as route53_targets
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_s3_deployment as s3deploy
from constructs import Construct

from functions import api_docs
from functions.shop_deps import EDGE_CACHE_SECONDS
from infra.aws.config import StageConfig
from webstore.shop.assets import CACHE_CONTROL, assets

# The longest the edge keeps a shared page, whatever a response asks: the functions ask for
# EDGE_CACHE_SECONDS; this caps a mistake.
PAGE_MAX_SECONDS = EDGE_CACHE_SECONDS
LAUNCHER_MAX_SECONDS = 300
STATIC_PREFIX = "static"
# What the shop's functions read of a request beyond the cookies, the query and the language
# (in the pages' cache key, so sent anyway): the form's type, htmx's headers, and the
# visitor's address as CloudFront saw it (`functions.shop_deps.client_ip`).
ORIGIN_HEADERS = (
    "Accept",
    "Content-Type",
    "HX-Request",
    "HX-Target",
    "HX-Current-URL",
    "CloudFront-Viewer-Address",
)


def hashed_files(directory: Path | None = None) -> Path:
    """The static files under their hashed names, in a directory `BucketDeployment` uploads
    under `static/`; with them Swagger UI's files for the interfaces' `/docs`, under their
    version (functions/api_docs.py)."""
    from swagger_ui_bundle import swagger_ui_path

    target = directory or Path(tempfile.mkdtemp(prefix="webstore-shop-static-"))
    for name, asset in assets().items():
        (target / name).write_bytes(asset.body)
    if Path(str(swagger_ui_path)).name != f"swagger-ui-{api_docs.SWAGGER_UI_VERSION}":
        raise ValueError(f"swagger-ui-bundle-v2 ships {swagger_ui_path}: update functions/api_docs.py")
    swagger = target / api_docs.ASSET_PREFIX.removeprefix(f"{STATIC_PREFIX}/")
    swagger.mkdir(parents=True, exist_ok=True)
    for name in api_docs.FILES:
        (swagger / name).write_bytes((swagger_ui_path / name).read_bytes())
    return target


class ShopEdge(Construct):
    """The distribution (`url`: the shop's public address), the assets bucket, its upload."""

    def __init__(self, scope: Construct, id: str, *, config: StageConfig, api: apigwv2.HttpApi) -> None:
        super().__init__(scope, id)
        stack = Stack.of(self)
        self.bucket = s3.Bucket(
            self,
            "Assets",
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
            # Derived from the code: a destroyed stage's bucket may go (emptied by hand first).
            removal_policy=RemovalPolicy.RETAIN if config.production else RemovalPolicy.DESTROY,
        )
        api_origin = origins.HttpOrigin(
            f"{api.api_id}.execute-api.{stack.region}.{stack.url_suffix}",
            protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
            origin_ssl_protocols=[cloudfront.OriginSslPolicy.TLS_V1_2],
        )
        self.page_policy = cloudfront.CachePolicy(
            self,
            "PagePolicy",
            cache_policy_name=f"{config.prefix}-shop-pages",
            comment="Shop pages: as the function says (s-maxage), capped; keyed on query, cookies, language",
            default_ttl=Duration.seconds(0),
            min_ttl=Duration.seconds(0),
            max_ttl=Duration.seconds(PAGE_MAX_SECONDS),
            query_string_behavior=cloudfront.CacheQueryStringBehavior.all(),
            cookie_behavior=cloudfront.CacheCookieBehavior.all(),
            header_behavior=cloudfront.CacheHeaderBehavior.allow_list("Accept-Language"),
            enable_accept_encoding_gzip=True,
            enable_accept_encoding_brotli=True,
        )
        self.launcher_policy = cloudfront.CachePolicy(
            self,
            "LauncherPolicy",
            cache_policy_name=f"{config.prefix}-shop-launcher",
            comment="The checkout launcher: what the function says (5 min), one copy for everyone",
            default_ttl=Duration.seconds(0),
            min_ttl=Duration.seconds(0),
            max_ttl=Duration.seconds(LAUNCHER_MAX_SECONDS),
            query_string_behavior=cloudfront.CacheQueryStringBehavior.none(),
            cookie_behavior=cloudfront.CacheCookieBehavior.none(),
            header_behavior=cloudfront.CacheHeaderBehavior.none(),
            enable_accept_encoding_gzip=True,
            enable_accept_encoding_brotli=True,
        )
        self.origin_requests = cloudfront.OriginRequestPolicy(
            self,
            "PageRequests",
            origin_request_policy_name=f"{config.prefix}-shop-requests",
            comment="Shop pages and forms: cookies, query, and the headers the functions read (not Host)",
            cookie_behavior=cloudfront.OriginRequestCookieBehavior.all(),
            query_string_behavior=cloudfront.OriginRequestQueryStringBehavior.all(),
            header_behavior=cloudfront.OriginRequestHeaderBehavior.allow_list(*ORIGIN_HEADERS),
        )
        domain = config.shop_domain
        self.distribution = cloudfront.Distribution(
            self,
            "Distribution",
            comment=f"Webstore shop ({config.stage})",
            default_behavior=cloudfront.BehaviorOptions(
                origin=api_origin,
                allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
                cached_methods=cloudfront.CachedMethods.CACHE_GET_HEAD,
                cache_policy=self.page_policy,
                origin_request_policy=self.origin_requests,
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                compress=True,
            ),
            additional_behaviors={
                f"/{STATIC_PREFIX}/*": cloudfront.BehaviorOptions(
                    origin=origins.S3BucketOrigin.with_origin_access_control(
                        self.bucket, origin_access_levels=[cloudfront.AccessLevel.READ]
                    ),
                    allowed_methods=cloudfront.AllowedMethods.ALLOW_GET_HEAD,
                    cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED,
                    viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                    compress=True,
                ),
                "/tebex.js": cloudfront.BehaviorOptions(
                    origin=api_origin,
                    allowed_methods=cloudfront.AllowedMethods.ALLOW_GET_HEAD,
                    cache_policy=self.launcher_policy,
                    viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                    compress=True,
                ),
            },
            # North America and Europe's edges: the cheapest class; players elsewhere are served
            # from the nearest of those.
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
            http_version=cloudfront.HttpVersion.HTTP2_AND_3,
            minimum_protocol_version=cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021 if domain else None,
            domain_names=[domain.name] if domain else None,
            # CloudFront takes certificates from us-east-1 only: `shopCertificateArn` (or
            # `certificateArn`) must be one there (docs/deploy.md, "Custom domain").
            certificate=acm.Certificate.from_certificate_arn(self, "Certificate", domain.certificate_arn)
            if domain
            else None,
        )
        self.deployment = s3deploy.BucketDeployment(
            self,
            "Upload",
            sources=[s3deploy.Source.asset(str(hashed_files()))],
            destination_bucket=self.bucket,
            destination_key_prefix=f"{STATIC_PREFIX}/",
            prune=False,
            cache_control=[s3deploy.CacheControl.from_string(CACHE_CONTROL)],
            memory_limit=256,
            # Kept as long as the functions' logs (CDK's default is two years).
            log_group=logs.LogGroup(
                self,
                "UploadLogs",
                retention=logs.RetentionDays.THREE_MONTHS
                if config.production
                else logs.RetentionDays.TWO_WEEKS,
                removal_policy=RemovalPolicy.RETAIN if config.production else RemovalPolicy.DESTROY,
            ),
        )
        self.url = (
            f"https://{domain.name}" if domain else f"https://{self.distribution.distribution_domain_name}"
        )
        if domain and config.hosted_zone_id and config.hosted_zone_name:
            zone = route53.HostedZone.from_hosted_zone_attributes(
                self, "Zone", hosted_zone_id=config.hosted_zone_id, zone_name=config.hosted_zone_name
            )
            route53.ARecord(
                self,
                "Alias",
                zone=zone,
                record_name=domain.name,
                target=route53.RecordTarget.from_alias(route53_targets.CloudFrontTarget(self.distribution)),
            )
