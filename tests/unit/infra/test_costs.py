"""The standing-cost arithmetic (infra/aws/costs.py) on small templates: an alarm is billed per
metric it reads, every billed resource kind is counted, the clock's lines are its arithmetic."""

from __future__ import annotations

from decimal import Decimal

from infra.aws.costs import CLOCK_RUNS, alarm_metrics, idle_cost, standing_lines


def alarm(**properties: object) -> dict[str, object]:
    return {"Type": "AWS::CloudWatch::Alarm", "Properties": properties}


def test_an_alarm_is_billed_per_metric_it_reads() -> None:
    assert alarm_metrics({"MetricName": "Errors"}) == 1
    math = {
        "Metrics": [
            {"Id": "e", "Expression": "100*a/b"},
            {"Id": "a", "MetricStat": {}},
            {"Id": "b", "MetricStat": {}},
        ]
    }
    assert alarm_metrics(math) == 2


def test_the_standing_lines_of_a_template() -> None:
    template = {
        "Resources": {
            "A": alarm(MetricName="Errors"),
            "B": alarm(Metrics=[{"Id": "x", "MetricStat": {}}, {"Id": "y", "MetricStat": {}}]),
            "S": {"Type": "AWS::SecretsManager::Secret", "Properties": {}},
            "K": {"Type": "AWS::KMS::Key", "Properties": {}},
            "F": {"Type": "AWS::Lambda::Function", "Properties": {}},
        }
    }
    lines = {line.what: line for line in standing_lines([template], clock_memory_mb=1024)}
    assert lines["CloudWatch alarm metrics"].monthly == Decimal("0.30")
    assert lines["Secrets Manager secrets"].monthly == Decimal("0.40")
    assert lines["KMS customer-managed keys"].monthly == Decimal("1.00")
    assert lines["CloudWatch dashboards"].count == 0
    assert lines["clock invocations"].count == CLOCK_RUNS == 43_200
    # 43,200 runs x 0.15 s x 1 GB = 6,480 GB-s at $0.0000133334
    assert lines["clock compute (GB-s, arm64)"].monthly == Decimal("0.0864")
    # + the clock's custom metric $0.30, its invocations $0.0086 and logs $0.0302
    assert idle_cost(lines.values()) == Decimal("2.13")
