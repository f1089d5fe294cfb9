"""The staging stack: every route of the table wired to its own function, least privilege,
the webhook pipeline, the table, the APIs and the cdk-nag verdict. One synth for the module."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path
from typing import Any

import pytest

from functions.declarations import Access, Interface
from functions.events.declarations import Trigger
from functions.routes import Operation, consumers, unmatched_access
from infra.aws.apis import api_paths
from infra.aws.data import TTL_REMOVAL_OF_BASKET
from infra.aws.events import MAX_RECEIVES, consumer_of
from infra.aws.functions import SECRET_GUARD_ACTIONS, TABLE_READ_ACTIONS, TABLE_WRITE_ACTIONS
from infra.aws.layers import layers_for
from infra.aws.schedule import OVERDUE_ALARM_SECONDS, OVERDUE_METRIC, PARKED_METRIC, SERVICE
from infra.cors import cdk_json_origins, storefront_policy
from tests.support.cdk import Synthesized, synthesize
from webstore import db, keys
from webstore.failure_guard import (
    CHECKOUT_KEY,
    GIFTCARD_BALANCE,
    GUARD_KEY_PREFIXES,
    SERVER_SECRET,
    STAFF_LOGIN,
)
from webstore.repo.outbox import DETAIL_ATTRIBUTE, TYPE_ATTRIBUTE

WRITE_ACTIONS = {*TABLE_WRITE_ACTIONS, "dynamodb:TransactWriteItems", "dynamodb:PartiQLInsert",
                 "dynamodb:PartiQLUpdate", "dynamodb:PartiQLDelete", "dynamodb:*"}  # fmt: skip
# The event consumers, as the route table declares them (the stack reads the same declarations).
EVENT_CONSUMERS = {each.handler_path: each.consumer.access for each in consumers()}
DISPATCH_HANDLER = consumer_of(Trigger.WEBHOOK_QUEUE).handler_path
GUARD_CONDITION = {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": [f"{p}*" for p in GUARD_KEY_PREFIXES]}}

# The accesses that read the stage key (Secrets Manager): sealed secrets, signed links, the
# panel's session cookies.
KEY_ACCESS = frozenset({Access.WEBHOOK_KEY, Access.GATEWAY_KEY, Access.PANEL_KEY})
# The function CDK's BucketDeployment brings (it runs at deploy time only).
CDK_DEPLOYMENT_FUNCTION = "CustomCDKBucketDeployment"


@pytest.fixture(scope="module")
def synth(route_table: tuple[Operation, ...]) -> Synthesized:
    return synthesize(stage="staging")


def resources(template: Any, kind: str) -> dict[str, dict[str, Any]]:
    return dict(template.find_resources(kind))


def logical_id(synth: Synthesized, construct: Any) -> str:
    return synth.stack.get_logical_id(construct.node.default_child)


def functions_by_handler(synth: Synthesized) -> dict[str, tuple[Any, str, dict[str, Any]]]:
    """handler path → (template, logical id, function resource), across main and nested stacks."""
    found: dict[str, tuple[Any, str, dict[str, Any]]] = {}
    for template in synth.function_templates():
        for name, resource in resources(template, "AWS::Lambda::Function").items():
            if name.startswith(CDK_DEPLOYMENT_FUNCTION):
                continue  # CDK's uploader of the shop's static files (test_the_shops_edge...)
            handler = resource["Properties"]["Handler"]
            assert handler not in found, f"two functions serve {handler}"
            found[handler] = (template, name, resource)
    return found


def policy_statements(template: Any, function: dict[str, Any]) -> list[dict[str, Any]]:
    role = function["Properties"]["Role"]["Fn::GetAtt"][0]
    return [
        statement
        for policy in resources(template, "AWS::IAM::Policy").values()
        if {"Ref": role} in policy["Properties"]["Roles"]
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
    ]


def statement_actions(statement: dict[str, Any]) -> set[str]:
    listed = statement["Action"]
    return {listed} if isinstance(listed, str) else set(listed)


def policy_actions(template: Any, function: dict[str, Any]) -> set[str]:
    return {a for statement in policy_statements(template, function) for a in statement_actions(statement)}


def test_the_route_table_is_not_empty(route_table: tuple[Operation, ...]) -> None:
    assert {op.route.interface for op in route_table} == set(Interface)


def test_every_route_is_wired_to_its_own_function(
    synth: Synthesized, route_table: tuple[Operation, ...]
) -> None:
    functions = functions_by_handler(synth)
    api_ids = {
        Interface.STOREFRONT: {"Ref": logical_id(synth, synth.stack.apis.storefront)},
        Interface.OPERATOR: {"Ref": logical_id(synth, synth.stack.apis.operator)},
        Interface.ADMIN: {"Ref": logical_id(synth, synth.stack.apis.admin)},
        Interface.SHOP: {"Ref": logical_id(synth, synth.stack.apis.shop)},
    }
    for operation in route_table:
        route = operation.route
        function_template, function_id, function = functions[operation.handler_path]
        template = function_template
        assert any(t is template for t in synth.nested[route.interface.value]), (
            f"{operation.module} is not in its interface's stacks"
        )
        assert function["Properties"]["MemorySize"] == route.memory_mb
        assert function["Properties"]["Timeout"] == route.timeout_seconds
        routes = resources(template, "AWS::ApiGatewayV2::Route")
        integrations = resources(template, "AWS::ApiGatewayV2::Integration")
        for path in api_paths(route):
            key = f"{route.method.upper()} {path}"
            matching = [r for r in routes.values() if r["Properties"]["RouteKey"] == key]
            assert len(matching) == 1, f"{key}: {len(matching)} routes"
            properties = matching[0]["Properties"]
            api_parameter = properties["ApiId"]["Ref"]
            assert _nested_parameter(synth, template, api_parameter) == api_ids[route.interface], key
            integration_id = properties["Target"]["Fn::Join"][1][1]["Ref"]
            uri = integrations[integration_id]["Properties"]["IntegrationUri"]
            assert uri == {"Fn::GetAtt": [function_id, "Arn"]}, f"{key} is not wired to {operation.module}"
    # Logical ids are unique per template; each interface's functions live in their own nested stack.
    served = [(id(functions[op.handler_path][0]), functions[op.handler_path][1]) for op in route_table]
    assert len(set(served)) == len(route_table), "each operation has its own function"


def _nested_parameter(synth: Synthesized, template: Any, parameter: str) -> Any:
    nested = synth.operations_stack(template)
    resource_id = synth.stack.get_logical_id(nested.nested_stack_resource)  # type: ignore[arg-type]
    stack_resource = resources(synth.template, "AWS::CloudFormation::Stack")[resource_id]
    return stack_resource["Properties"]["Parameters"][parameter]


def declared_access(route_table: tuple[Operation, ...]) -> dict[str, frozenset[Access]]:
    """handler path → what the route table says its function may touch."""
    declared = {op.handler_path: op.route.function_access for op in route_table} | EVENT_CONSUMERS
    for interface in Interface:  # `$default`: the whole interface app may do what its routes may
        declared[f"functions.unmatched.{interface.value}_handler"] = unmatched_access(interface)
    return declared


def test_no_function_writes_unless_its_route_declares_it(
    synth: Synthesized, route_table: tuple[Operation, ...]
) -> None:
    declared = declared_access(route_table)
    functions = functions_by_handler(synth)
    assert set(functions) == set(declared), "every function comes from the route table or the consumers"
    for handler, (template, _, function) in functions.items():
        access = declared[handler]
        for statement in policy_statements(template, function):
            writes = statement_actions(statement) & WRITE_ACTIONS
            if not writes:
                continue
            if "Condition" in statement:  # the guard's counters, and nothing else
                assert Access.SECRET_GUARD in access, f"{handler} may write guard counters"
                assert statement["Condition"] == GUARD_CONDITION, handler
                assert writes <= set(SECRET_GUARD_ACTIONS), handler
            else:
                assert Access.TABLE_WRITE in access, f"{handler} may write: {sorted(writes)}"
        actions = policy_actions(template, function)
        assert ("dynamodb:GetItem" in actions) == bool(access & {Access.TABLE_READ, Access.TABLE_WRITE})
        assert ("events:PutEvents" in actions) == (Access.BUS_PUT in access), handler
        reads_key = bool(access & KEY_ACCESS)
        assert ("secretsmanager:GetSecretValue" in actions) == reads_key, handler
        assert "dynamodb:Scan" not in actions, f"{handler} may scan"
        assert not any(a.endswith("*") for a in actions), f"{handler}: wildcard action"


def test_every_operator_function_may_count_wrong_secrets(
    synth: Synthesized, route_table: tuple[Operation, ...]
) -> None:
    """Bug 1 of issue 9: a read-only operator route counts a wrong secret, so its role may
    UpdateItem/PutItem the guard's counters (by partition-key prefix), and nothing else."""
    functions = functions_by_handler(synth)
    operator = [op.handler_path for op in route_table if op.route.interface is Interface.OPERATOR]
    read_only = [h for h in operator if Access.TABLE_WRITE not in declared_access(route_table)[h]]
    assert read_only, "the operator interface has read-only routes"
    for handler in [*operator, "functions.unmatched.operator_handler"]:
        template, _, function = functions[handler]
        statements = policy_statements(template, function)
        guard_writes = {"dynamodb:UpdateItem", "dynamodb:PutItem"}
        may_write = [s for s in statements if guard_writes <= statement_actions(s)]
        assert may_write, f"{handler} cannot count a wrong secret"
    for handler in read_only:
        template, _, function = functions[handler]
        writes = [s for s in policy_statements(template, function) if statement_actions(s) & WRITE_ACTIONS]
        assert [s.get("Condition") for s in writes] == [GUARD_CONDITION], handler


BASIC_AUTH_ROUTES = {"getCategories", "updateTier", "createBasket", "createDynamicPackage"}


def test_every_storefront_function_that_checks_basic_auth_may_count_wrong_checkout_keys(
    synth: Synthesized, route_table: tuple[Operation, ...]
) -> None:
    """Issue 10, item 14: a wrong checkout key is counted even on a read-only route
    (getCategories with usernameId), under the checkout-key prefix and the secret guard's only."""
    guards = (SERVER_SECRET, CHECKOUT_KEY, STAFF_LOGIN, GIFTCARD_BALANCE)
    assert {guard.key_prefix for guard in guards} == set(GUARD_KEY_PREFIXES)
    functions = functions_by_handler(synth)
    storefront = {
        op.route.operation_id: op.handler_path
        for op in route_table
        if op.route.interface is Interface.STOREFRONT
    }
    assert set(storefront) >= BASIC_AUTH_ROUTES
    for operation_id in BASIC_AUTH_ROUTES:
        template, _, function = functions[storefront[operation_id]]
        statements = policy_statements(template, function)
        may_write = [
            s for s in statements if {"dynamodb:UpdateItem", "dynamodb:PutItem"} <= statement_actions(s)
        ]
        assert may_write, f"{operation_id} cannot count a wrong checkout key"
    template, _, function = functions[storefront["getCategories"]]
    writes = [s for s in policy_statements(template, function) if statement_actions(s) & WRITE_ACTIONS]
    assert [s.get("Condition") for s in writes] == [GUARD_CONDITION]
    leading = GUARD_CONDITION["ForAllValues:StringLike"]["dynamodb:LeadingKeys"]
    assert f"{CHECKOUT_KEY.key_prefix}*" in leading and f"{SERVER_SECRET.key_prefix}*" in leading


def test_event_consumers_are_built_as_declared(synth: Synthesized) -> None:
    functions = functions_by_handler(synth)
    assert consumers(), "the route table declares the event consumers"
    for each in consumers():
        _, _, function = functions[each.handler_path]
        assert function["Properties"]["MemorySize"] == each.consumer.memory_mb, each.module
        assert function["Properties"]["Timeout"] == each.consumer.timeout_seconds, each.module
        assert function["Properties"]["Description"] == each.consumer.description, each.module


# Prices per million (us-east-1, docs/deploy.md "Tracing"): what a request costs at the least,
# and what a recorded trace costs.
HTTP_API_PER_MILLION = 1.00
LAMBDA_REQUESTS_PER_MILLION = 0.20
XRAY_TRACES_PER_MILLION = 5.00


def test_trace_sampling_covers_every_function_and_costs_less_than_the_requests(synth: Synthesized) -> None:
    (rule,) = resources(synth.template, "AWS::XRay::SamplingRule").values()
    sampling = rule["Properties"]["SamplingRule"]
    assert sampling["ServiceName"] == "webstore-staging-*"
    assert (sampling["ReservoirSize"], sampling["FixedRate"]) == (0, 0.10)
    assert sampling["Priority"] < 10_000  # ahead of X-Ray's Default rule (1/s, then 5%)
    for handler, (_, _, function) in functions_by_handler(synth).items():
        assert fnmatch.fnmatchcase(function["Properties"]["FunctionName"], sampling["ServiceName"]), handler
    # No reservoir: at any traffic the traces cost this fraction of the requests' own fees.
    traces = sampling["FixedRate"] * XRAY_TRACES_PER_MILLION
    assert traces <= HTTP_API_PER_MILLION + LAMBDA_REQUESTS_PER_MILLION


def test_functions_share_runtime_layer_tracing_and_settings(
    synth: Synthesized, route_table: tuple[Operation, ...]
) -> None:
    key_readers = {handler for handler, access in declared_access(route_table).items() if access & KEY_ACCESS}
    assert DISPATCH_HANDLER in key_readers
    # The senders and the Go live page, which asks SES about the stage's identity.
    mail_access = {Access.MAIL_SEND, Access.MAIL_CHECK}
    mail_senders = {h for h, access in declared_access(route_table).items() if access & mail_access}
    expected_env = {
        "WEBSTORE_TABLE_NAME", "WEBSTORE_EVENT_BUS_NAME", "WEBSTORE_EVENTS", "WEBSTORE_STOREFRONT_URL",
        "WEBSTORE_OPERATOR_URL", "WEBSTORE_ADMIN_URL", "WEBSTORE_SHOP_URL", "WEBSTORE_REGION",
        "WEBSTORE_PRODUCTION",
        "POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_LOG_LEVEL",
    }  # fmt: skip
    code_keys = set()
    layer_counts: dict[tuple[str, ...], int] = {}
    for handler, (_, _, function) in functions_by_handler(synth).items():
        properties = function["Properties"]
        assert properties["Runtime"] == "python3.12"
        assert properties["Architectures"] == ["arm64"]
        assert properties["TracingConfig"] == {"Mode": "Active"}
        # The base layer, and Stripe's or cryptography's only where its code can import them.
        assert len(properties["Layers"]) == len(layers_for(handler)), handler
        layer_counts[layers_for(handler)] = layer_counts.get(layers_for(handler), 0) + 1
        assert "LoggingConfig" in properties
        # Nothing secret rides in the template: exactly the settings, no keys or secrets (the
        # dispatch function and those calling Stripe get the key's ARN, and read its value at run time).
        variables = properties["Environment"]["Variables"]
        key_name = {"WEBSTORE_WEBHOOK_KEY_SECRET"} if handler in key_readers else set()
        # Senders of e-mail (and the Go live page) learn the transport (off: this stage has no
        # mailDomain; test_mail.py).
        mail = {"WEBSTORE_MAIL_TRANSPORT"} if handler in mail_senders else set()
        assert set(variables) == expected_env | key_name | mail, handler
        assert variables["WEBSTORE_EVENTS"] == "eventbridge"
        code_keys.add(properties["Code"]["S3Key"])
    assert len(code_keys) == 1, "one shared code asset"
    # docs/deploy.md, "Assets": how many functions carry the stripe layer.
    print("functions per layer set:", layer_counts)
    assert 0 < layer_counts.get(("base", "stripe", "crypto"), 0) < sum(layer_counts.values()) / 4
    # ... and cryptography only where a secret is sealed or opened (webstore.sealing): about half.
    assert layer_counts.get(("base",), 0) > sum(layer_counts.values()) / 3


def test_the_stage_key_is_generated_and_only_its_declared_readers_read_it(
    synth: Synthesized, route_table: tuple[Operation, ...]
) -> None:
    """The dispatch function (webhook secrets, manage links in subjects), the manage pages
    (signed links) and the functions calling Stripe: those whose declaration names the key."""
    [(key_id, key)] = resources(synth.template, "AWS::SecretsManager::Secret").items()
    assert "GenerateSecretString" in key["Properties"]  # the value is made by Secrets Manager
    assert "SecretString" not in key["Properties"]  # never in the template
    _, _, dispatch = functions_by_handler(synth)[DISPATCH_HANDLER]
    variables = dispatch["Properties"]["Environment"]["Variables"]
    assert variables["WEBSTORE_WEBHOOK_KEY_SECRET"] == {"Ref": key_id}
    declared = declared_access(route_table)
    for handler, (_, _, function) in functions_by_handler(synth).items():
        reads = bool(declared[handler] & KEY_ACCESS)
        assert ("WEBSTORE_WEBHOOK_KEY_SECRET" in function["Properties"]["Environment"]["Variables"]) == reads
    stripe_callers = {h for h, access in declared.items() if Access.GATEWAY_KEY in access}
    assert any(h.endswith("stripe_webhook.handler") for h in stripe_callers), stripe_callers
    readers = [
        statement["Resource"]
        for policy in resources(synth.template, "AWS::IAM::Policy").values()
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if "secretsmanager:GetSecretValue" in statement["Action"]
    ]
    assert readers and all(reader == {"Ref": key_id} for reader in readers)  # that secret only
    declared = declared_access(route_table)
    assert {h for h, access in declared.items() if Access.WEBHOOK_KEY in access} >= {
        DISPATCH_HANDLER,
        "functions.storefront.get_subscription_page.handler",
    }


def test_bus_rule_feeds_the_buffer_and_dead_letters_are_wired(synth: Synthesized) -> None:
    template = synth.template
    events = synth.stack.events
    buffer, dead = logical_id(synth, events.buffer), logical_id(synth, events.dead_letters)
    bus = logical_id(synth, synth.stack.bus)
    (rule,) = [  # the webhook rule takes every event (the mail rule: tests/infra/test_mail.py)
        r
        for r in resources(template, "AWS::Events::Rule").values()
        if r["Properties"].get("EventPattern") == {"source": ["webstore"]}
    ]
    assert rule["Properties"]["EventBusName"] == {"Ref": bus}
    (target,) = rule["Properties"]["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": [buffer, "Arn"]}
    assert target["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": [dead, "Arn"]}}
    redrive = resources(template, "AWS::SQS::Queue")[buffer]["Properties"]["RedrivePolicy"]
    assert redrive == {"deadLetterTargetArn": {"Fn::GetAtt": [dead, "Arn"]}, "maxReceiveCount": MAX_RECEIVES}
    mappings = resources(template, "AWS::Lambda::EventSourceMapping").values()
    (dispatch,) = [
        m for m in mappings if m["Properties"]["EventSourceArn"] == {"Fn::GetAtt": [buffer, "Arn"]}
    ]
    assert dispatch["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert dispatch["Properties"]["FunctionName"] == {"Ref": logical_id(synth, events.dispatch.function)}
    assert functions_by_handler(synth)[DISPATCH_HANDLER][1] == logical_id(synth, events.dispatch.function)


def test_table_shape_pitr_ttl_and_stream(synth: Synthesized) -> None:
    tables = resources(synth.template, "AWS::DynamoDB::Table")
    (table_id, table), = tables.items()  # fmt: skip
    properties = table["Properties"]
    assert properties["KeySchema"] == db.KEY_SCHEMA
    assert sorted(properties["AttributeDefinitions"], key=str) == sorted(db.ATTRIBUTE_DEFINITIONS, key=str)
    assert properties["GlobalSecondaryIndexes"] == db.GLOBAL_SECONDARY_INDEXES
    assert properties["BillingMode"] == "PAY_PER_REQUEST"
    assert properties["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert properties["TimeToLiveSpecification"] == {"AttributeName": db.TTL_ATTRIBUTE, "Enabled": True}
    assert properties["StreamSpecification"] == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
    # staging: disposable
    assert table["DeletionPolicy"] == "Delete"
    assert not properties.get("DeletionProtectionEnabled", False)
    mappings = resources(synth.template, "AWS::Lambda::EventSourceMapping").values()
    (expiry,) = [
        m for m in mappings if m["Properties"]["EventSourceArn"] == {"Fn::GetAtt": [table_id, "StreamArn"]}
    ]
    (pattern,) = expiry["Properties"]["FilterCriteria"]["Filters"]
    assert json.loads(pattern["Pattern"]) == TTL_REMOVAL_OF_BASKET
    assert "OnFailure" in expiry["Properties"]["DestinationConfig"]
    basket_expired = synth.stack.events.basket_expired.function
    assert expiry["Properties"]["FunctionName"] == {"Ref": logical_id(synth, basket_expired)}


def test_apis_have_stage_throttling_access_logs_and_storefront_cors(synth: Synthesized) -> None:
    apis = resources(synth.template, "AWS::ApiGatewayV2::Api")
    storefront = apis[logical_id(synth, synth.stack.apis.storefront)]["Properties"]
    operator = apis[logical_id(synth, synth.stack.apis.operator)]["Properties"]
    admin = apis[logical_id(synth, synth.stack.apis.admin)]["Properties"]
    shop = apis[logical_id(synth, synth.stack.apis.shop)]["Properties"]
    assert storefront["ProtocolType"] == operator["ProtocolType"] == admin["ProtocolType"] == "HTTP"
    assert shop["ProtocolType"] == "HTTP"
    assert "CorsConfiguration" in storefront
    assert not {"CorsConfiguration"} & (set(operator) | set(admin) | set(shop))  # same-origin pages
    # The policy the local stack answers with (infra/cors.py, tests/e2e/test_cors.py).
    policy = storefront_policy(cdk_json_origins())
    assert storefront["CorsConfiguration"] == {
        "AllowOrigins": list(policy.allow_origins),
        "AllowMethods": list(policy.methods),
        "AllowHeaders": list(policy.allow_headers),
        "MaxAge": policy.max_age_seconds,
    }
    stages = resources(synth.template, "AWS::ApiGatewayV2::Stage").values()
    assert len(stages) == 4
    for stage in stages:
        properties = stage["Properties"]
        assert properties["StageName"] == "$default" and properties["AutoDeploy"] is True
        assert properties["DefaultRouteSettings"]["ThrottlingRateLimit"] > 0
        assert "$context.requestId" in properties["AccessLogSettings"]["Format"]
    outputs = synth.template.to_json()["Outputs"]
    assert {"StorefrontUrl", "OperatorUrl", "AdminUrl", "ShopUrl", "TableName", "EventBusName"} <= set(
        outputs
    )


def test_a_handful_of_alarms_cover_the_functions_the_apis_and_the_pipeline(synth: Synthesized) -> None:
    alarms = [
        alarm["Properties"]
        for template in synth.function_templates()
        for alarm in resources(template, "AWS::CloudWatch::Alarm").values()
    ]
    # No alarm per function: Lambda's errors of the whole account, one alarm (docs/deploy.md maps
    # the per-function alarms this replaces to what catches each failure now).
    lambdas = [a for a in alarms if a.get("Namespace") == "AWS/Lambda"]
    assert [a["MetricName"] for a in lambdas] == ["Errors"]
    assert all("Dimensions" not in a for a in lambdas)
    sqs = [a["MetricName"] for a in alarms if a.get("Namespace") == "AWS/SQS"]
    # the events' (webhooks, mail and Discord share one), the stream's, the schedule's
    assert sqs.count("ApproximateNumberOfMessagesVisible") == 3
    assert "ApproximateAgeOfOldestMessage" in sqs
    apis = [a for a in alarms if a.get("Namespace") == "AWS/ApiGateway"]
    assert len(apis) == 4 and all(a["MetricName"] == "5xx" for a in apis)  # each API's server errors
    assert all("Metrics" not in a for a in alarms), "each alarm reads one metric (billed per metric)"
    assert len(alarms) == 11
    assert all(a["AlarmActions"] for a in alarms)


def test_an_idle_stage_costs_at_most_two_dollars_a_month(synth: Synthesized) -> None:
    from infra.aws.costs import idle_cost, standing_lines

    clock = consumer_of(Trigger.SCHEDULE).consumer
    lines = standing_lines([t.to_json() for t in synth.function_templates()], clock_memory_mb=clock.memory_mb)
    figures = {line.what: line.count for line in lines}
    assert figures["CloudWatch alarm metrics"] == 11
    assert figures["Secrets Manager secrets"] == 1
    assert figures["KMS customer-managed keys"] == 0 and figures["CloudWatch dashboards"] == 0
    # The shop's edge is counted, at no standing charge: billed per request and per GB.
    assert figures["CloudFront distributions"] == 1 and figures["S3 buckets"] == 1
    assert all(line.monthly == 0 for line in lines if line.what in {"CloudFront distributions", "S3 buckets"})
    cost = idle_cost(lines)
    assert cost <= 2, [(line.what, line.monthly) for line in lines]
    # The figure the owner reads is this one (docs/deploy.md, "What an idle stage costs").
    deploy = (Path(__file__).parents[2] / "docs" / "deploy.md").read_text()
    assert f"**${cost}**" in deploy and f"| alarm metrics | {figures['CloudWatch alarm metrics']} |" in deploy


def test_cdk_nag_reports_no_unacknowledged_finding(synth: Synthesized) -> None:
    # An unacknowledged finding fails app.synth() (the fixture); the report must be clean too.
    report = json.loads((synth.outdir / "validation-report.json").read_text())
    assert all(p["conclusion"] == "success" for p in report["pluginReports"]), report
    # The AwsSolutions pack ran over the nested stacks: its acknowledgments are in the metadata.
    acknowledged = [
        rule["id"]
        for template in synth.function_templates()
        for resource in template.to_json()["Resources"].values()
        for rule in resource.get("Metadata", {}).get("cdk_nag", {}).get("rules_to_suppress", [])
    ]
    assert "AwsSolutions-APIG4" in acknowledged and "AwsSolutions-L1" in acknowledged
    assert all(rule.startswith("AwsSolutions-") for rule in acknowledged)


def test_unmatched_requests_reach_the_interface_app(synth: Synthesized) -> None:
    """COMPAT's `//queue` matches no API Gateway route: `$default` sends it to the whole app."""
    functions = functions_by_handler(synth)
    for interface in Interface:
        template = synth.nested[interface.value][0]  # the first of its stacks serves `$default`
        template_, function_id, _ = functions[f"functions.unmatched.{interface.value}_handler"]
        assert template_ is template
        routes = resources(template, "AWS::ApiGatewayV2::Route")
        [default] = [r for r in routes.values() if r["Properties"]["RouteKey"] == "$default"]
        integration_id = default["Properties"]["Target"]["Fn::Join"][1][1]["Ref"]
        uri = resources(template, "AWS::ApiGatewayV2::Integration")[integration_id]["Properties"][
            "IntegrationUri"
        ]
        assert uri == {"Fn::GetAtt": [function_id, "Arn"]}


# --- the clock (issue 12): the subscription processor, every minute -------------------------


def test_the_clock_invokes_the_processor_every_minute_with_a_dead_letter_queue(synth: Synthesized) -> None:
    clock = synth.stack.clock
    processor = logical_id(synth, clock.processor.function)
    dead = logical_id(synth, clock.dead_letters)
    schedules = [
        (name, rule["Properties"])
        for name, rule in resources(synth.template, "AWS::Events::Rule").items()
        if "ScheduleExpression" in rule["Properties"]
    ]
    [(rule_id, rule)] = schedules
    assert rule["ScheduleExpression"] == "rate(1 minute)"
    assert rule["State"] == "ENABLED"
    (target,) = rule["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": [processor, "Arn"]}
    assert target["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": [dead, "Arn"]}}
    assert target["RetryPolicy"] == {"MaximumEventAgeInSeconds": 60, "MaximumRetryAttempts": 2}
    # Only this rule may invoke the processor; only this rule may send to its dead letters.
    permissions = [
        p["Properties"]
        for p in resources(synth.template, "AWS::Lambda::Permission").values()
        if p["Properties"]["FunctionName"] == {"Fn::GetAtt": [processor, "Arn"]}
    ]
    assert permissions == [
        {
            "Action": "lambda:InvokeFunction",
            "FunctionName": {"Fn::GetAtt": [processor, "Arn"]},
            "Principal": "events.amazonaws.com",
            "SourceArn": {"Fn::GetAtt": [rule_id, "Arn"]},
        }
    ]
    queue_policies = [
        statement
        for policy in resources(synth.template, "AWS::SQS::QueuePolicy").values()
        if {"Ref": dead} in policy["Properties"]["Queues"]
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if statement["Effect"] == "Allow"
    ]
    assert [s["Principal"] for s in queue_policies] == [{"Service": "events.amazonaws.com"}]
    assert queue_policies[0]["Condition"] == {
        "ArnEquals": {"aws:SourceArn": {"Fn::GetAtt": [rule_id, "Arn"]}}
    }
    # A failed run is retried by the next minute's, not by Lambda on top of it.
    (invoke_config,) = resources(synth.template, "AWS::Lambda::EventInvokeConfig").values()
    assert invoke_config["Properties"]["MaximumRetryAttempts"] == 0
    assert invoke_config["Properties"]["FunctionName"] == {"Ref": processor}


def test_the_processor_may_touch_the_table_and_the_gateway_key_and_nothing_else(
    synth: Synthesized,
) -> None:
    clock = synth.stack.clock
    each = consumer_of(Trigger.SCHEDULE)
    # Renewals charge each store's own gateway: the key that opens its sealed Stripe secret. Its
    # events ride its transactions (the outbox pipe publishes them): no bus access.
    assert each.consumer.access == {Access.TABLE_READ, Access.TABLE_WRITE, Access.GATEWAY_KEY}
    template, _, function = functions_by_handler(synth)[each.handler_path]
    assert template is synth.template
    assert function["Properties"]["Environment"]["Variables"]["POWERTOOLS_SERVICE_NAME"] == SERVICE
    table = logical_id(synth, synth.stack.data.table)
    bus = logical_id(synth, synth.stack.bus)
    key = logical_id(synth, synth.stack.data.webhook_key)
    allowed = {
        *((a, "table") for a in (*TABLE_READ_ACTIONS, *TABLE_WRITE_ACTIONS)),
        ("secretsmanager:GetSecretValue", "key"),
        ("secretsmanager:DescribeSecret", "key"),
        # Tracing, as every function.
        ("xray:PutTraceSegments", "*"),
        ("xray:PutTelemetryRecords", "*"),
    }
    seen = set()
    for statement in policy_statements(template, function):
        listed = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
        for action in statement_actions(statement):
            for resource in listed:
                text = json.dumps(resource)
                kind = (
                    "table" if table in text else "bus" if bus in text else "key" if key in text else resource
                )
                assert (action, kind) in allowed, f"the processor may {action} on {text}"
                seen.add((action, kind))
    assert {a for a, kind in seen if kind == "table"} == {*TABLE_READ_ACTIONS, *TABLE_WRITE_ACTIONS}
    assert ("secretsmanager:GetSecretValue", "key") in seen
    assert clock.processor.access == each.consumer.access


def test_the_clock_alarms_on_overdue_items_and_dead_letters(synth: Synthesized) -> None:
    alarms = list(resources(synth.template, "AWS::CloudWatch::Alarm").values())
    (overdue,) = [a["Properties"] for a in alarms if a["Properties"].get("MetricName") == OVERDUE_METRIC]
    assert overdue["Namespace"] == "Webstore"
    assert overdue["Dimensions"] == [{"Name": "service", "Value": SERVICE}]
    assert overdue["Statistic"] == "Maximum"
    assert overdue["Threshold"] == OVERDUE_ALARM_SECONDS == 600
    assert overdue["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    assert overdue["TreatMissingData"] == "breaching"  # no run reporting: the clock stopped
    assert overdue["AlarmActions"]
    (parked,) = [a["Properties"] for a in alarms if a["Properties"].get("MetricName") == PARKED_METRIC]
    assert parked["Dimensions"] == [{"Name": "service", "Value": SERVICE}]
    assert (parked["Threshold"], parked["TreatMissingData"]) == (1, "notBreaching")
    assert parked["AlarmActions"]
    dead = {"Fn::GetAtt": [logical_id(synth, synth.stack.clock.dead_letters), "QueueName"]}
    depth = [
        a["Properties"]
        for a in alarms
        if a["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible"
        and a["Properties"].get("Dimensions") == [{"Name": "QueueName", "Value": dead}]
    ]
    assert len(depth) == 1 and depth[0]["Threshold"] == 1 and depth[0]["AlarmActions"]


def test_a_large_interface_spreads_over_nested_stacks_within_cloudformations_limit(
    synth: Synthesized, route_table: tuple[Operation, ...]
) -> None:
    """The panel has more operations than one nested stack can hold (500 resources)."""
    for interface, templates in synth.nested.items():
        served = sum(len(resources(t, "AWS::Lambda::Function")) for t in templates)
        routes = [o for o in route_table if o.route.interface.value == interface]
        assert served == len(routes) + 1, interface  # + `$default`, in the first stack only
        for template in templates:
            assert len(template.to_json()["Resources"]) <= 500
    assert len(synth.nested["admin"]) >= 2


def test_the_panel_has_its_own_api_and_every_admin_function_reads_the_key_for_sessions(
    synth: Synthesized, route_table: tuple[Operation, ...]
) -> None:
    """Issue 16: a third API for the control panel; its functions check the signed session
    cookie (the stage key) and may count failed sign-ins (the guard's counters)."""
    admin = [op for op in route_table if op.route.interface is Interface.ADMIN]
    assert {op.route.operation_id for op in admin} >= {"getLogin", "submitLogin", "submitLogout"}
    functions = functions_by_handler(synth)
    for handler in [*(op.handler_path for op in admin), "functions.unmatched.admin_handler"]:
        template, _, function = functions[handler]
        assert any(t is template for t in synth.nested["admin"]), handler
        actions = policy_actions(template, function)
        assert "secretsmanager:GetSecretValue" in actions, handler
        assert "WEBSTORE_WEBHOOK_KEY_SECRET" in function["Properties"]["Environment"]["Variables"]
    login = next(op for op in admin if op.route.operation_id == "getLogin")
    login_template, _, function = functions[login.handler_path]
    statements = policy_statements(login_template, function)
    writes = [s for s in statements if statement_actions(s) & WRITE_ACTIONS]
    assert [s.get("Condition") for s in writes] == [GUARD_CONDITION]  # a read-only page


def test_the_outbox_pipe_puts_committed_outbox_items_on_the_bus_as_the_events_they_hold(
    synth: Synthesized,
) -> None:
    """DynamoDB Streams → EventBridge Pipes → the bus: only INSERTs of outbox items, detail-type
    from the item's type, the item's detail as the event's detail, failures to the alarmed
    stream-failures queue; no function of ours in between."""
    template = synth.template
    (table_id,) = resources(template, "AWS::DynamoDB::Table")
    (pipe,) = resources(template, "AWS::Pipes::Pipe").values()
    properties = pipe["Properties"]
    assert properties["Source"] == {"Fn::GetAtt": [table_id, "StreamArn"]}
    assert properties["Target"] == {"Fn::GetAtt": [logical_id(synth, synth.stack.bus), "Arn"]}
    assert "Enrichment" not in properties
    source = properties["SourceParameters"]
    (pattern,) = source["FilterCriteria"]["Filters"]
    assert json.loads(pattern["Pattern"]) == {
        "eventName": ["INSERT"],
        "dynamodb": {"NewImage": {"entity": {"S": [keys.OUTBOX_ENTITY]}}},
    }
    stream = source["DynamoDBStreamParameters"]
    assert stream["StartingPosition"] == "TRIM_HORIZON"
    assert stream["BatchSize"] <= 10  # PutEvents' limit
    assert stream["OnPartialBatchItemFailure"] == "AUTOMATIC_BISECT"
    failures = logical_id(synth, synth.stack.events.stream_failures)
    assert stream["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": [failures, "Arn"]}}
    target = properties["TargetParameters"]
    assert target["EventBridgeEventBusParameters"] == {
        "Source": "webstore",
        "DetailType": f"$.dynamodb.NewImage.{TYPE_ATTRIBUTE}.S",
    }
    assert target["InputTemplate"] == f"<$.dynamodb.NewImage.{DETAIL_ATTRIBUTE}.S>"


def test_the_outbox_pipe_role_reads_the_stream_puts_on_the_bus_and_nothing_else(synth: Synthesized) -> None:
    template = synth.template
    (table_id,) = resources(template, "AWS::DynamoDB::Table")
    role_id = logical_id(synth, synth.stack.outbox.role)
    role = resources(template, "AWS::IAM::Role")[role_id]
    (assume,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert assume["Principal"] == {"Service": "pipes.amazonaws.com"}
    assert "ManagedPolicyArns" not in role["Properties"]
    policies = [
        p
        for p in resources(template, "AWS::IAM::Policy").values()
        if {"Ref": role_id} in p["Properties"]["Roles"]
    ]
    statements = [s for p in policies for s in p["Properties"]["PolicyDocument"]["Statement"]]
    granted = {}
    for statement in statements:
        assert statement["Effect"] == "Allow"
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        for action in actions:
            granted.setdefault(action, []).append(statement["Resource"])
    bus = logical_id(synth, synth.stack.bus)
    failures = logical_id(synth, synth.stack.events.stream_failures)
    stream = {"Fn::GetAtt": [table_id, "StreamArn"]}
    assert granted == {
        "dynamodb:DescribeStream": [stream],
        "dynamodb:GetRecords": [stream],
        "dynamodb:GetShardIterator": [stream],
        "dynamodb:ListStreams": ["*"],
        "events:PutEvents": [{"Fn::GetAtt": [bus, "Arn"]}],
        "sqs:SendMessage": [{"Fn::GetAtt": [failures, "Arn"]}],
    }


def test_only_the_expiry_consumer_and_the_panels_redelivery_put_events_on_the_bus(
    route_table: tuple[Operation, ...],
) -> None:
    """Use cases write their events in their transactions (the outbox pipe publishes them): no
    request or clock function may put events itself. Left: `basket.abandoned` (made from a table
    stream record already) and a redelivery from the panel (an event sent again, no change)."""
    publishers = {
        handler for handler, access in declared_access(route_table).items() if Access.BUS_PUT in access
    }
    assert publishers == {
        "functions.events.basket_expired.handler",
        "functions.admin.post_webhook_redeliver.handler",
        "functions.admin.post_webhook_delivery_redeliver.handler",
        "functions.unmatched.admin_handler",  # serves every panel route, the redeliveries too
    }


def test_the_shops_edge_serves_hashed_files_from_a_private_bucket_and_shares_only_marked_pages(
    synth: Synthesized,
) -> None:
    """docs/shop.md, "Caching at the edge": CloudFront is the shop's address; `/static/*` from a
    private bucket through Origin Access Control with the immutable policy; `/tebex.js` for
    what the function says; pages for what the function says, capped at a minute and keyed on
    the query, the cookies and the language."""
    from functions.shop_deps import EDGE_CACHE_SECONDS
    from infra.aws.edge import ORIGIN_HEADERS
    from webstore.shop.assets import CACHE_CONTROL, assets

    template = synth.template.to_json()["Resources"]
    edge = synth.stack.edge
    bucket = template[logical_id(synth, edge.bucket)]["Properties"]
    blocked = ("BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets")
    assert bucket["PublicAccessBlockConfiguration"] == dict.fromkeys(blocked, True)
    assert bucket["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerEnforced"}]
    assert "WebsiteConfiguration" not in bucket
    # The bucket policy: TLS only, and reads by this distribution alone (OAC), nothing else.
    [policy] = [p for p in resources(synth.template, "AWS::S3::BucketPolicy").values()]
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    allows = [s for s in statements if s["Effect"] == "Allow"]
    distribution_id = logical_id(synth, edge.distribution)
    assert len(allows) == 1 and allows[0]["Action"] == "s3:GetObject"
    assert allows[0]["Principal"] == {"Service": "cloudfront.amazonaws.com"}
    assert {"Ref": distribution_id} in allows[0]["Condition"]["StringEquals"]["AWS:SourceArn"]["Fn::Join"][1]
    tls_only = {"Bool": {"aws:SecureTransport": "false"}}
    assert any(s["Effect"] == "Deny" and s["Condition"] == tls_only for s in statements)
    [oac] = resources(synth.template, "AWS::CloudFront::OriginAccessControl").values()
    assert oac["Properties"]["OriginAccessControlConfig"]["SigningBehavior"] == "always"

    config = template[distribution_id]["Properties"]["DistributionConfig"]
    origins = {o["Id"]: o for o in config["Origins"]}
    behaviours = {b["PathPattern"]: b for b in config["CacheBehaviors"]}
    assert set(behaviours) == {"/static/*", "/tebex.js"}
    static = behaviours["/static/*"]
    assert "OriginAccessControlId" in origins[static["TargetOriginId"]]
    assert origins[static["TargetOriginId"]]["S3OriginConfig"] == {"OriginAccessIdentity": ""}
    assert static["CachePolicyId"] == "658327ea-f89d-4fab-a63d-7e88639e58f6"  # Managed-CachingOptimized
    assert static["AllowedMethods"] == ["GET", "HEAD"]
    default = config["DefaultCacheBehavior"]
    api = origins[default["TargetOriginId"]]
    assert {"Ref": logical_id(synth, synth.stack.apis.shop)} in api["DomainName"]["Fn::Join"][1]
    assert api["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"
    assert behaviours["/tebex.js"]["TargetOriginId"] == default["TargetOriginId"]
    assert "POST" in default["AllowedMethods"] and default["CachedMethods"] == ["GET", "HEAD"]
    assert all(b["ViewerProtocolPolicy"] == "redirect-to-https" for b in [default, *behaviours.values()])
    assert config["PriceClass"] == "PriceClass_100"

    policies = resources(synth.template, "AWS::CloudFront::CachePolicy")
    pages = policies[default["CachePolicyId"]["Ref"]]["Properties"]["CachePolicyConfig"]
    assert (pages["MinTTL"], pages["DefaultTTL"], pages["MaxTTL"]) == (0, 0, EDGE_CACHE_SECONDS)
    key = pages["ParametersInCacheKeyAndForwardedToOrigin"]
    assert key["CookiesConfig"] == {"CookieBehavior": "all"}
    assert key["QueryStringsConfig"] == {"QueryStringBehavior": "all"}
    assert key["HeadersConfig"] == {"HeaderBehavior": "whitelist", "Headers": ["Accept-Language"]}
    launcher = policies[behaviours["/tebex.js"]["CachePolicyId"]["Ref"]]["Properties"]["CachePolicyConfig"]
    assert (launcher["DefaultTTL"], launcher["MaxTTL"]) == (0, 300)
    assert launcher["ParametersInCacheKeyAndForwardedToOrigin"]["CookiesConfig"] == {"CookieBehavior": "none"}
    [(requests_id, requests)] = resources(synth.template, "AWS::CloudFront::OriginRequestPolicy").items()
    forwarded = requests["Properties"]["OriginRequestPolicyConfig"]
    assert forwarded["HeadersConfig"]["Headers"] == list(ORIGIN_HEADERS)
    assert "Host" not in forwarded["HeadersConfig"]["Headers"]  # API Gateway answers its own name only
    assert default["OriginRequestPolicyId"] == {"Ref": requests_id}

    # The hashed files are uploaded under static/ with the immutable policy, never pruned.
    [upload] = resources(synth.template, "Custom::CDKBucketDeployment").values()
    assert upload["Properties"]["DestinationBucketKeyPrefix"] == "static/"
    assert upload["Properties"]["SystemMetadata"] == {"cache-control": CACHE_CONTROL}
    assert upload["Properties"]["Prune"] is False
    staged = _staged_static(synth)
    assert sorted(p.name for p in staged if p.is_file()) == sorted(assets())
    assert [p.name for p in staged if p.is_dir()] == ["swagger-ui"]  # the interfaces' /docs
    # Its function may write the assets bucket and read CDK's asset bucket, nothing else.
    [(role_id, _)] = [
        (name, r) for name, r in resources(synth.template, "AWS::IAM::Role").items()
        if name.startswith(CDK_DEPLOYMENT_FUNCTION)
    ]  # fmt: skip
    [deploy_policy] = [
        p
        for p in resources(synth.template, "AWS::IAM::Policy").values()
        if {"Ref": role_id} in p["Properties"]["Roles"]
    ]
    targets = json.dumps([s["Resource"] for s in deploy_policy["Properties"]["PolicyDocument"]["Statement"]])
    assert logical_id(synth, edge.bucket) in targets and "cdk-hnb659fds-assets" in targets
    assert '"*"' not in targets
    # The functions learn the shop's address: the distribution's.
    for _, _, function in functions_by_handler(synth).values():
        url = function["Properties"]["Environment"]["Variables"]["WEBSTORE_SHOP_URL"]
        assert url == {"Fn::Join": ["", ["https://", {"Fn::GetAtt": [distribution_id, "DomainName"]}]]}
        break


def _staged_static(synth: Synthesized) -> list[Path]:
    """The files of the upload's asset as CDK staged them in the cloud assembly."""
    manifest = json.loads((synth.outdir / f"{synth.stack.artifact_id}.assets.json").read_text())
    [folder] = [
        Path(synth.outdir) / f["source"]["path"]
        for f in manifest["files"].values()
        if f["source"].get("packaging") == "zip" and (Path(synth.outdir) / f["source"]["path"]).is_dir()
        and any(p.name.startswith("shop.") for p in (Path(synth.outdir) / f["source"]["path"]).iterdir())
    ]  # fmt: skip
    return list(folder.iterdir())
