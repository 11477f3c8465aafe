"""The gpu-ci policy pack: every rule of `policy/rules.py` as a mandatory policy (a resource
policy for each `Rule`, a stack policy for each `StackRule`).

Run with the project's stacks: `pulumi preview --policy-pack policy` (from the repository
root). The rules are plain functions; this file only adapts them to pulumi-policy.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    PolicyPack,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)

# The CLI runs this file from policy/; the rules are imported as the package tests use.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from policy.rule import Resource, Rule, StackRule
from policy.rules import RULES


def _validation(rule: Rule) -> ResourceValidationPolicy:
    def validate(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        resource = Resource(args.resource_type, args.name, args.props)
        for message in rule(resource, args.get_config()):
            report_violation(message, None)

    return ResourceValidationPolicy(
        name=rule.name,
        description=rule.description,
        validate=validate,
        config_schema=PolicyConfigSchema(rule.config) if rule.config else None,
    )


def _stack_validation(rule: StackRule) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report_violation: ReportViolation) -> None:
        resources = [Resource(r.resource_type, r.name, r.props, r.urn) for r in args.resources]
        for resource, message in rule.violations(resources, args.get_config()):
            report_violation(message, resource.urn)

    return StackValidationPolicy(
        name=rule.name,
        description=rule.description,
        validate=validate,
        config_schema=PolicyConfigSchema(rule.config) if rule.config else None,
    )


def policies() -> list[ResourceValidationPolicy | StackValidationPolicy]:
    return [
        _stack_validation(rule) if isinstance(rule, StackRule) else _validation(rule)
        for rule in RULES
    ]


if __name__ == "__main__":
    PolicyPack(
        name="gpu-ci",
        enforcement_level=EnforcementLevel.MANDATORY,
        policies=list(policies()),
    )
