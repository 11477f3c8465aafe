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
    "tests/components/host/params/test_github_runner_params.py",
    "tests/components/host/test_render.py",
    "tests/components/host/test_step_authorized_keys.py",
    "tests/components/host/params/test_params.py",
    "tests/components/host/params/test_ssh_keys.py",
    "tests/components/host/params/test_host_params_mutants.py",
    "tests/hardening/test_hardening_late_validation.py",
)
_POLICY_TESTS = (
    "tests/policy",
    "tests/hardening/test_hardening_policy.py",
    "tests/hardening/test_hardening_ingress.py",
)
# In-process constructions of each package component, seconds each; test_construct.py's
# whole-stack comparisons through the provider take minutes on 2 cores.
_PACKAGE_COMPONENT_TESTS = (
    "tests/gpu_ci_package/test_component_wiring.py",
    "tests/gpu_ci_package/test_platform_component.py",
    "tests/gpu_ci_package/test_provider.py",
)
MUTATION_TESTS: Final[dict[str, tuple[str, ...]]] = {
    "stacks/config/annotations.py": _CONFIG_TESTS,
    "stacks/config/loader.py": (
        *_CONFIG_TESTS,
        "tests/stacks/offline/stack_file/test_stack_file_yaml.py",
    ),
    "stacks/config/param_keys.py": _CONFIG_TESTS,
    "stacks/config/param_problems.py": _CONFIG_TESTS,
    "stacks/config/namespaces.py": _CONFIG_UNIT_TESTS,
    "stacks/config/problems.py": _CONFIG_UNIT_TESTS,
    "stacks/config/recipe.py": _CONFIG_UNIT_TESTS,
    "stacks/config/reference.py": _CONFIG_UNIT_TESTS,
    "stacks/config/stack.py": _CONFIG_TESTS,
    "stacks/config/capacity.py": _CONFIG_TESTS,
    "stacks/config/views.py": _CONFIG_TESTS,
    # In-process: test_multi_gpu_config.py has the same rules through whole previews.
    "stacks/config/gpu_layout.py": (
        "tests/stacks/config/test_gpu_layout_shapes.py",
        "tests/stacks/config/test_gpu_layout_hosts.py",
    ),
    "stacks/config/usage.py": (*_CONFIG_TESTS, "tests/stacks/layers/test_costs.py"),
    "components/host/chain.py": (
        "tests/components/host/test_chain.py",
        "tests/components/host/test_reboot_wait.py",
        "tests/components/host/test_chain_mutants.py",
    ),
    "components/host/config/compat.py": (
        "tests/components/host/config/test_compat.py",
        "tests/components/host/config/test_compat_mutants.py",
        "tests/stacks/config/test_host_versions.py",
    ),
    "components/host/params/by_step.py": _HOST_PARAM_TESTS,
    "components/host/params/step.py": _HOST_PARAM_TESTS,
    "components/host/params/bootstrap.py": _HOST_PARAM_TESTS,
    "components/host/params/runner.py": _HOST_PARAM_TESTS,
    "components/host/params/cluster.py": _HOST_PARAM_TESTS,
    "components/host/params/ssh_keys.py": _HOST_PARAM_TESTS,
    "recipes/resolution/resolver.py": (
        "tests/recipes/resolution/test_recipe_semantics.py",
        "tests/recipes/resolution/test_resolver_mutants.py",
        "tests/recipes/resolution/test_recipe_release_rules.py",
        "tests/recipes/test_recipe_aicr_golden.py",  # every criteria set against real aicr
    ),
    "recipes/resolution/merge.py": (
        "tests/recipes/resolution/test_recipe_merge_fields.py",
        "tests/recipes/resolution/test_recipe_semantics.py",
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
    "stacks/offline/lifecycle/fate.py": (
        "tests/stacks/offline/lifecycle/test_lifecycle_mutants.py",
    ),
    "stacks/offline/diff/changes.py": ("tests/stacks/offline/diff/test_diff_changes_mutants.py",),
    "stacks/offline/lifecycle/replacement_rules.py": (
        "tests/stacks/offline/lifecycle/test_replacement_rules_mutants.py",
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
        "tests/components/observability/test_alert_rules.py",  # test_alerts.py: whole plans
    ),
    # Issue 44: the modules that landed last, each with the tests that state its behaviour.
    "components/platform/checks/jobs.py": (
        "tests/components/platform/checks/test_job_manifests.py",
        "tests/components/platform/checks/test_pods_admitted.py",
        "tests/components/platform/checks/test_gpu_checks.py",
        "tests/components/platform/checks/test_runtime_class.py",
        "tests/components/platform/checks/test_deadlines.py",
        "tests/components/platform/checks/test_deployment_checks.py",
        "tests/components/platform/chainsaw/test_runs.py",
    ),
    # The expectations gpu-ci writes, decided by the pinned chainsaw binary (chainsaw_runs.py).
    # Left out, each half a minute of chainsaw runs per mutant: chainsaw/test_durations.py
    # (reaches go_duration, whose outputs checks/test_health_checks.py states) and
    # chainsaw/test_runs.py (reaches operations, which chainsaw/test_operation_blocks.py walks).
    "components/platform/chainsaw/documents.py": (
        "tests/components/platform/chainsaw/test_documents.py",
        "tests/components/platform/chainsaw/test_idioms_runs.py",
        "tests/components/platform/chainsaw/test_worst_case.py",
        "tests/components/platform/chainsaw/test_operation_blocks.py",
        "tests/components/platform/checks/test_health_checks.py",
        "tests/components/platform/test_health_catalog.py",
    ),
    "components/platform/chart_values/lookup.py": (
        "tests/components/platform/chart_values/test_lookup.py",
        "tests/components/platform/chart_values/test_set_items_all_reported.py",
        "tests/components/platform/chart_values/test_set_paths.py",
        "tests/components/platform/chart_values/test_schema_keywords.py",
    ),
    "components/platform/chart_values/schema.py": (
        "tests/components/platform/chart_values/test_schema_keywords.py",
        "tests/components/platform/chart_values/test_schema_helm.py",  # against Helm v3.20.2
        "tests/components/platform/chart_values/test_set_paths.py",
    ),
    "core/read_yaml.py": (
        "tests/core/test_read_yaml_bounds.py",
        "tests/core/test_read_yaml_edges.py",
        "tests/hardening/test_hardening_readers.py",
        "tests/stacks/offline/stack_file/test_stack_file_yaml.py",
    ),
    "core/read_json.py": (
        "tests/core/test_read_json_file.py",
        "tests/stacks/offline/state/test_state_export.py",
        "tests/components/host/test_host_probe.py",
    ),
    "stacks/offline/lifecycle/generations.py": (
        "tests/stacks/offline/lifecycle/test_generations_mutants.py",
    ),
    # Synthetic folders only: test_diff_dirs.py plans every example stack first.
    "stacks/offline/diff/dirs.py": (
        "tests/stacks/offline/diff/test_diff_dirs_mutants.py",
        "tests/stacks/offline/diff/test_diff_dirs_synthetic.py",
    ),
    # Issue 44: the health checks' chainsaw modules.
    "components/platform/chainsaw/runnable.py": (
        "tests/components/platform/chainsaw/test_runnable.py",
        "tests/components/platform/chainsaw/test_durations.py",
    ),
    "components/platform/chainsaw/expressions.py": (
        "tests/components/platform/chainsaw/test_expressions.py",
        "tests/components/platform/chainsaw/test_reads.py",
    ),
    "components/platform/chainsaw/durations.py": (
        "tests/components/platform/chainsaw/test_durations_go.py",
        "tests/components/platform/chainsaw/test_durations.py",
    ),
    "components/platform/chainsaw/script.py": (
        "tests/components/platform/chainsaw/test_script_sandbox.py",
        "tests/components/platform/chainsaw/test_script.py",
    ),
    "components/platform/chainsaw/worst_case.py": (
        "tests/components/platform/chainsaw/test_worst_case.py",
    ),
    "components/platform/checks/starts.py": (
        "tests/components/platform/checks/test_starts_pods.py",
        "tests/components/platform/checks/test_starts.py",
    ),
    "components/platform/chainsaw/reads.py": ("tests/components/platform/chainsaw/test_reads.py",),
    # Issue 44: the offline engine's generations, diff folders and readers.
    "stacks/offline/lifecycle/inputs.py": (
        "tests/stacks/offline/lifecycle/test_lifecycle_inputs.py",
        "tests/stacks/offline/lifecycle/test_lifecycle_mutants.py",
    ),
    "stacks/offline/lifecycle/stand_ins.py": (
        "tests/stacks/offline/lifecycle/test_stand_ins.py",
        "tests/stacks/offline/lifecycle/test_lifecycle_mutants.py",
    ),
    "core/read_limits.py": (
        "tests/core/test_read_limits.py",
        "tests/core/test_read_json_file.py",
        "tests/hardening/test_hardening_catalog_files.py",
    ),
    # Issue 44: the offline engine's deployed-state modules, each against its behaviour tests.
    **{
        f"stacks/offline/state/{name}.py": (
            f"tests/stacks/offline/state/test_state_{name}_behaviour.py",
        )
        for name in ("standins", "synthetic", "dirs", "values", "export", "snapshot", "diff")
    },
    # Issue 44: the queue-time exporter (by mutmut's dotted names: queue_harness.py); host probe.
    "components/observability/queue_exporter/poller.py": (
        "tests/components/observability/test_queue_poller.py",
        "tests/components/observability/test_queue_poller_edges.py",
        "tests/components/observability/test_queue_exporter_faults.py",
    ),
    "components/observability/queue_exporter/jobs.py": (
        "tests/components/observability/test_queue_jobs.py",
    ),
    "components/observability/queue_exporter/github_api.py": (
        "tests/components/observability/test_queue_github_api.py",
    ),
    "components/observability/queue_exporter/exposition.py": (
        "tests/components/observability/test_queue_exposition.py",
    ),
    "components/observability/queue_exporter/settings.py": (
        "tests/components/observability/test_queue_settings.py",
    ),
    "components/observability/queue_exporter/app_token.py": (
        "tests/components/observability/test_queue_app_token.py",
    ),
    "components/observability/queue_time_config.py": (
        "tests/components/observability/test_queue_time_config.py",
    ),
    "components/host/probe_compare.py": (
        "tests/components/host/test_host_probe.py",
        "tests/components/host/test_probe_compare.py",
    ),
    # Issue 44: the action's collector, loaded by the dotted path mutmut names its modules by
    # (tests/action/collect/collect_modules.py), and the package inputs.
    ".github/actions/gpu-cluster/scripts/collect/collect_redact.py": (
        "tests/action/collect/test_collect_redact.py",
        "tests/action/collect/test_collect_summary.py",
    ),
    ".github/actions/gpu-cluster/scripts/collect/collect_bundle.py": (
        "tests/action/collect/test_collect_bundle.py",
    ),
    ".github/actions/gpu-cluster/scripts/collect/collect_run.py": (
        "tests/action/collect/test_collect_run.py",
    ),
    ".github/actions/gpu-cluster/scripts/collect/collect_summary.py": (
        "tests/action/collect/test_collect_summary_page.py",
    ),
    ".github/actions/gpu-cluster/scripts/collect/collect_pins.py": (
        "tests/action/collect/test_collect_pins.py",
    ),
    ".github/actions/gpu-cluster/scripts/collect/collect_versions.py": (
        "tests/action/collect/test_collect_versions.py",
    ),
    ".github/actions/gpu-cluster/scripts/collect/collect_host.py": (
        "tests/action/collect/test_collect_host.py",
    ),
    ".github/actions/gpu-cluster/scripts/collect/collect_cluster.py": (
        "tests/action/collect/test_collect_cluster.py",
    ),
    ".github/actions/gpu-cluster/scripts/collect/collect.py": (
        "tests/action/collect/test_collect_main.py",
        "tests/action/collect/test_collect_sources.py",
        "tests/action/collect/test_collect_inputs.py",
    ),
    # TypedDicts and a type alias only (no function bodies): no mutants.
    "gpu_ci_package/inputs.py": ("tests/gpu_ci_package/test_schema.py",),
    "gpu_ci_package/arc_inputs.py": ("tests/gpu_ci_package/test_schema.py",),
    "stacks/offline/snapshot/shape.py": ("tests/stacks/offline/lifecycle/test_stand_ins.py",),
    # Issue 44: the chart checks (stacks/offline/charts/).
    "stacks/offline/charts/dead_values.py": (
        "tests/stacks/offline/charts/test_chart_dead_value_rule.py",
        "tests/stacks/offline/charts/test_chart_dead_value_probes.py",
    ),
    "stacks/offline/charts/keys.py": ("tests/stacks/offline/charts/test_chart_keys.py",),
    "stacks/offline/charts/value_keys.py": (
        "tests/stacks/offline/charts/test_chart_value_keys.py",
    ),
    "stacks/offline/charts/release.py": ("tests/stacks/offline/charts/test_chart_release.py",),
    "stacks/offline/charts/render.py": ("tests/stacks/offline/charts/test_chart_render.py",),
    "stacks/offline/charts/validate.py": (
        "tests/stacks/offline/charts/test_chart_validate_objects.py",
    ),
    "stacks/offline/charts/check.py": ("tests/stacks/offline/charts/test_chart_check_stack.py",),
    "stacks/offline/charts/cli.py": ("tests/stacks/offline/charts/test_chart_check_cli_runs.py",),
    # Issue 44: modules the layout split (#43) made.
    "components/platform/checks/gpu_count.py": (
        "tests/components/platform/checks",
        "tests/components/platform/chainsaw/test_runs.py",  # chainsaw's verdicts on its Test
    ),
    "recipes/catalogs/catalog.py": ("tests/recipes/catalogs",),
    "components/platform/releases/component_plan.py": (
        "tests/components/platform/releases/test_gpu_sharing.py",
    ),
    "stacks/offline/references.py": ("tests/stacks/offline/test_references.py",),
    # Issue 44: the wiring that landed last.
    "core/workflow_text.py": ("tests/core/test_workflow_text.py",),
    "components/platform/releases/device_plugin_config.py": (
        "tests/components/platform/releases/test_device_plugin_config.py",
        "tests/components/platform/releases/test_gpu_sharing.py",
    ),
    # Imported by its dotted path, the name mutmut gives its mutants (queue_harness.py).
    "components/observability/queue_exporter/__main__.py": (
        "tests/components/observability/test_queue_main.py",
        "tests/components/observability/test_queue_poller.py",
    ),
    # The exporter's objects rendered directly; test_queue_deploy.py has them in whole stacks.
    "components/observability/queue_deploy.py": (
        "tests/components/observability/test_queue_deploy_specs.py",
        "tests/components/observability/test_queue_deploy.py",
    ),
    # The package components (_PACKAGE_COMPONENT_TESTS).
    "gpu_ci_package/provider.py": (
        "tests/gpu_ci_package/test_provider.py",
        "tests/gpu_ci_package/test_schema.py",
    ),
    "gpu_ci_package/build.py": (
        "tests/gpu_ci_package/test_build.py",
        "tests/gpu_ci_package/test_build_late.py",
        *_PACKAGE_COMPONENT_TESTS,
    ),
    "gpu_ci_package/host.py": _PACKAGE_COMPONENT_TESTS,
    "gpu_ci_package/cluster.py": _PACKAGE_COMPONENT_TESTS,
    "gpu_ci_package/platform.py": _PACKAGE_COMPONENT_TESTS,
    "gpu_ci_package/arc.py": _PACKAGE_COMPONENT_TESTS,
}
