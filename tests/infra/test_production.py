"""A production stage with a custom domain and SnapStart on: what differs from staging."""

from __future__ import annotations

import json
from typing import Any

import pytest

from functions.routes import Operation
from tests.support.cdk import Synthesized, synthesize

CERTIFICATE = "arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-0000-0000-000000000000"
# CloudFront (the shop's address) takes certificates from us-east-1 only.
SHOP_CERTIFICATE = "arn:aws:acm:us-east-1:123456789012:certificate/11111111-1111-1111-1111-111111111111"


@pytest.fixture(scope="module")
def synth(route_table: tuple[Operation, ...]) -> Synthesized:
    return synthesize(
        stage="production",
        storefrontDomain="store-api.example.com",
        operatorDomain="plugin-api.example.com",
        adminDomain="panel.example.com",
        shopDomain="shop.example.com",
        shopStoreId="7",
        certificateArn=CERTIFICATE,
        shopCertificateArn=SHOP_CERTIFICATE,
        hostedZoneId="Z0000000000000",
        hostedZoneName="example.com",
        snapStart="true",
        alarmEmail="ops@example.com",
    )


def resources(template: Any, kind: str) -> dict[str, dict[str, Any]]:
    return dict(template.find_resources(kind))


def test_production_retains_and_protects_the_table(synth: Synthesized) -> None:
    (table,) = resources(synth.template, "AWS::DynamoDB::Table").values()
    assert table["DeletionPolicy"] == "Retain"
    assert table["UpdateReplacePolicy"] == "Retain"
    assert table["Properties"]["DeletionProtectionEnabled"] is True
    assert table["Properties"]["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def test_custom_domains_serve_the_apis_and_feed_the_settings(synth: Synthesized) -> None:
    domains = {
        d["Properties"]["DomainName"]
        for d in resources(synth.template, "AWS::ApiGatewayV2::DomainName").values()
    }
    assert domains == {"store-api.example.com", "plugin-api.example.com", "panel.example.com"}
    assert len(resources(synth.template, "AWS::ApiGatewayV2::ApiMapping")) == 3
    # The shop's domain is its CloudFront distribution's (TLS 1.2 at least), aliased in the zone;
    # its API keeps the execute-api endpoint the distribution reaches.
    [distribution] = resources(synth.template, "AWS::CloudFront::Distribution").values()
    config = distribution["Properties"]["DistributionConfig"]
    assert config["Aliases"] == ["shop.example.com"]
    assert config["ViewerCertificate"] == {
        "AcmCertificateArn": SHOP_CERTIFICATE,
        "MinimumProtocolVersion": "TLSv1.2_2021",
        "SslSupportMethod": "sni-only",
    }
    records = resources(synth.template, "AWS::Route53::RecordSet").values()
    assert len(records) == 4
    [shop_record] = [r for r in records if r["Properties"]["Name"] == "shop.example.com."]
    assert "cloudfront" in json.dumps(shop_record["Properties"]["AliasTarget"]).lower()
    shop_api = synth.stack.get_logical_id(synth.stack.apis.shop.node.default_child)
    for name, api in resources(synth.template, "AWS::ApiGatewayV2::Api").items():
        assert api["Properties"]["DisableExecuteApiEndpoint"] is (name != shop_api)
    for template in synth.function_templates():
        for name, function in resources(template, "AWS::Lambda::Function").items():
            if name.startswith("CustomCDKBucketDeployment"):
                continue  # CDK's uploader of the shop's static files
            variables = function["Properties"]["Environment"]["Variables"]
            assert variables["WEBSTORE_STOREFRONT_URL"] == "https://store-api.example.com"
            assert variables["WEBSTORE_OPERATOR_URL"] == "https://plugin-api.example.com"
            assert variables["WEBSTORE_ADMIN_URL"] == "https://panel.example.com"
            assert variables["WEBSTORE_SHOP_URL"] == "https://shop.example.com"
            assert variables["WEBSTORE_SHOP_STORE_ID"] == "7"
    outputs = synth.template.to_json()["Outputs"]
    assert outputs["StorefrontUrl"]["Value"] == "https://store-api.example.com"
    assert outputs["AdminUrl"]["Value"] == "https://panel.example.com"
    assert outputs["ShopUrl"]["Value"] == "https://shop.example.com"


def test_snap_start_routes_invoke_the_published_alias(
    synth: Synthesized, route_table: tuple[Operation, ...]
) -> None:
    for interface, templates in synth.nested.items():
        routes = [o for o in route_table if o.route.interface == interface]
        counted = 0
        for template in templates:
            functions = resources(template, "AWS::Lambda::Function")
            aliases = resources(template, "AWS::Lambda::Alias")
            assert len(aliases) == len(functions)
            counted += len(functions)
            for function in functions.values():
                assert function["Properties"]["SnapStart"] == {"ApplyOn": "PublishedVersions"}
            alias_ids = set(aliases)
            for integration in resources(template, "AWS::ApiGatewayV2::Integration").values():
                assert integration["Properties"]["IntegrationUri"]["Ref"] in alias_ids
        assert counted == len(routes) + 1  # + the `$default` function


def test_alarm_email_subscribes_to_the_topic(synth: Synthesized) -> None:
    (subscription,) = resources(synth.template, "AWS::SNS::Subscription").values()
    assert subscription["Properties"]["Protocol"] == "email"
    assert subscription["Properties"]["Endpoint"] == "ops@example.com"


def test_production_keeps_logs_longer(synth: Synthesized) -> None:
    for template in synth.function_templates():
        for group in resources(template, "AWS::Logs::LogGroup").values():
            assert group["Properties"]["RetentionInDays"] == 90
            assert group["DeletionPolicy"] == "Retain"


def test_production_samples_one_percent_of_traces_without_a_reservoir(synth: Synthesized) -> None:
    (rule,) = resources(synth.template, "AWS::XRay::SamplingRule").values()
    sampling = rule["Properties"]["SamplingRule"]
    assert (sampling["ServiceName"], sampling["ReservoirSize"], sampling["FixedRate"]) == (
        "webstore-production-*",
        0,
        0.01,
    )
