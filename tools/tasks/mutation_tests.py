"""MUTATION_TESTS: the modules `python3 tasks.py mutate` mutates, each with its tests."""

from __future__ import annotations

from typing import Final

# Mutation testing (`python3 tasks.py mutate`): each module mutmut mutates, and the tests that
# exercise it, which are all that run against its mutants (the whole suite takes minutes on 2
# cores). tests/test_tasks_mutate.py keeps every path here existing and every critical module
# (issue 16, class 8) listed.
_CONFIG_TESTS = (
    "tests/stacks/config",
    "tests/hardening/test_hardening_config_patterns.py",
    "tests/hardening/test_hardening_secrets.py",
    "tests/hardening/test_hardening_plain_credentials.py",
    "tests/hardening/test_hardening_late_validation.py",
)
# The config tests that call these modules directly; the whole-program hardening runs are
# left out of their selection for speed (problems.py alone has 448 mutants).
_CONFIG_UNIT_TESTS = ("tests/stacks/config", "tests/components/arc/test_arc_config.py")
_HOST_PARAM_TESTS = (
    "tests/components/host/test_github_runner_params.py",
    "tests/components/host/test_render.py",
    "tests/components/host/test_step_authorized_keys.py",
    "tests/components/host/test_params.py",
    "tests/components/host/test_ssh_keys.py",
    "tests/components/host/test_host_params_mutants.py",
    "tests/hardening/test_hardening_late_validation.py",
)
_POLICY_TESTS = (
    "tests/policy",
    "tests/hardening/test_hardening_policy.py",
    "tests/hardening/test_hardening_ingress.py",
)
MUTATION_TESTS: Final[dict[str, tuple[str, ...]]] = {
    "stacks/config/annotations.py": _CONFIG_TESTS,
    "stacks/config/loader.py": (*_CONFIG_TESTS, "tests/stacks/offline/test_stack_file_yaml.py"),
    "stacks/config/param_keys.py": _CONFIG_TESTS,
    "stacks/config/param_problems.py": _CONFIG_TESTS,
    "stacks/config/namespaces.py": _CONFIG_UNIT_TESTS,
    "stacks/config/problems.py": _CONFIG_UNIT_TESTS,
    "stacks/config/recipe.py": _CONFIG_UNIT_TESTS,
    "stacks/config/reference.py": _CONFIG_UNIT_TESTS,
    "stacks/config/stack.py": _CONFIG_TESTS,
    "stacks/config/capacity.py": _CONFIG_TESTS,
    "stacks/config/views.py": _CONFIG_TESTS,
    "stacks/config/gpu_layout.py": _CONFIG_UNIT_TESTS,
    "stacks/config/usage.py": (*_CONFIG_TESTS, "tests/stacks/layers/test_costs.py"),
    "components/host/chain.py": (
        "tests/components/host/test_chain.py",
        "tests/components/host/test_reboot_wait.py",
        "tests/components/host/test_chain_mutants.py",
    ),
    "components/host/compat.py": (
        "tests/components/host/test_compat.py",
        "tests/components/host/test_compat_mutants.py",
        "tests/stacks/config/test_host_versions.py",
    ),
    "components/host/params.py": _HOST_PARAM_TESTS,
    "components/host/step.py": _HOST_PARAM_TESTS,
    "components/host/bootstrap_params.py": _HOST_PARAM_TESTS,
    "components/host/runner_params.py": _HOST_PARAM_TESTS,
    "components/host/cluster_params.py": _HOST_PARAM_TESTS,
    "components/host/ssh_keys.py": _HOST_PARAM_TESTS,
    "recipes/resolver.py": (
        "tests/recipes/test_recipe_semantics.py",
        "tests/recipes/test_resolver_mutants.py",
        "tests/recipes/test_recipe_release_rules.py",
        "tests/recipes/test_recipe_aicr_golden.py",  # every criteria set against real aicr
    ),
    "recipes/merge.py": (
        "tests/recipes/test_recipe_merge_fields.py",
        "tests/recipes/test_recipe_semantics.py",
        "tests/recipes/test_recipe_aicr_ported.py",
        "tests/recipes/test_recipe_aicr_golden.py",
    ),
    "policy/rule.py": _POLICY_TESTS,
    "policy/rules.py": _POLICY_TESTS,
    "policy/world_openings.py": _POLICY_TESTS,
    "policy/ingress.py": _POLICY_TESTS,
    "policy/image_digests.py": _POLICY_TESTS,
    "policy/pod_specs.py": _POLICY_TESTS,
    "policy/runners.py": _POLICY_TESTS,
    "policy/gpu_tags.py": _POLICY_TESTS,
    "policy/env_secrets.py": _POLICY_TESTS,
    "policy/chart_versions.py": _POLICY_TESTS,
    # The gpu-cluster action's scripts: their tests import them by the dotted path mutmut
    # names them by (tests/action/configure_in_process.py).
    ".github/actions/gpu-cluster/scripts/configure.py": ("tests/action/test_configure_step.py",),
    ".github/actions/gpu-cluster/scripts/workflow_commands.py": (
        "tests/action/test_action_hostile_configure.py",
        "tests/action/test_configure_step.py",
    ),
    ".github/actions/gpu-cluster/scripts/careful_yaml.py": (
        "tests/action/test_action_hostile_configure.py",
    ),
    # The offline engine's in-process tests on small synthetic snapshots (issue 29, item 6).
    "stacks/offline/lifecycle.py": ("tests/stacks/offline/test_lifecycle_mutants.py",),
    "stacks/offline/diff_changes.py": ("tests/stacks/offline/test_diff_changes_mutants.py",),
    "stacks/offline/replacement_rules.py": (
        "tests/stacks/offline/test_replacement_rules_mutants.py",
    ),
    # The queries run by promtool over series built in-process: what a mutant builds is
    # what Prometheus evaluates (tests/components/observability/promtool.py).
    "components/observability/queries.py": (
        "tests/components/observability/test_queries_promtool.py",
        "tests/components/observability/test_dashboard.py",
    ),
    "components/observability/alerts.py": (
        "tests/components/observability/test_alert_matchers_promtool.py",
        "tests/components/observability/test_alerts_promtool.py",
        "tests/components/observability/test_window_edges_promtool.py",
        "tests/components/observability/test_alerts.py",
    ),
    # Issue 44: the modules that landed last, each with the tests that state its behaviour.
    "components/platform/check_jobs.py": (
        "tests/components/platform/test_check_pods_admitted.py",
        "tests/components/platform/test_gpu_checks.py",
        "tests/components/platform/test_check_runtime.py",
        "tests/components/platform/test_check_deadlines.py",
        "tests/components/platform/test_platform_checks.py",
        "tests/components/platform/test_chainsaw_runs.py",
    ),
    # The expectations gpu-ci writes, decided by the pinned chainsaw binary (chainsaw_runs.py).
    "components/platform/chainsaw_tests.py": (
        "tests/components/platform/test_chainsaw_idioms_runs.py",
        "tests/components/platform/test_chainsaw_runs.py",
        "tests/components/platform/test_chainsaw_worst_case.py",
        "tests/components/platform/test_chainsaw_durations.py",
        "tests/components/platform/test_health_blocks.py",
        "tests/components/platform/test_health_checks.py",
        "tests/components/platform/test_health_catalog.py",
    ),
    "components/platform/chart_values.py": (
        "tests/components/platform/test_set_items_all_reported.py",
        "tests/components/platform/test_set_paths.py",
        "tests/components/platform/test_values_schema_keywords.py",
    ),
    "components/platform/values_schema.py": (
        "tests/components/platform/test_values_schema_keywords.py",
        "tests/components/platform/test_set_paths.py",
    ),
    "core/read_yaml.py": (
        "tests/core/test_read_yaml_bounds.py",
        "tests/hardening/test_hardening_readers.py",
        "tests/stacks/offline/test_stack_file_yaml.py",
    ),
    "core/read_json.py": (
        "tests/core/test_read_json_file.py",
        "tests/stacks/offline/test_state_export.py",
        "tests/components/host/test_host_probe.py",
    ),
    "stacks/offline/generations.py": ("tests/stacks/offline/test_generations_mutants.py",),
    "stacks/offline/diff_dirs.py": (
        "tests/stacks/offline/test_diff_dirs_mutants.py",
        "tests/stacks/offline/test_diff_dirs.py",
    ),
}
