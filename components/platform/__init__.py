"""The platform layer: a resolved recipe deployed onto a Kubernetes cluster.

- `recipe_releases`: RecipeReleases (`gpu-ci:platform:RecipeReleases`), one Helm release per
  component in deployment order, namespaces, manifests, runtime patches and checks;
  `plan_platform` computes the same plan without Pulumi.
- `overrides`: PlatformOverrides, stack config's `comp:path=val` / `comp:enabled=false`.
- `chart_values`: which values paths the pinned chart knows (`recipes/chart-values/`), so a
  misspelt `set` path is a config error rather than a silently ignored value; read from its
  `values.yaml` (`values_yaml`, `values_comments`) or `values.schema.json`
  (`values_schema`) along Helm's values paths (`values_paths`).
- `runtime_patch`: the Kubeflow Trainer runtimeClassName + /dev/shm hotfix as SSA patches.
- `check_plan`, `check_jobs`, `check_starts`, `deployment_checks`: the checks after
  deploying, as Jobs (the Chainsaw ones after a short Job proving their pod starts), one
  model (`health_model`) for a GPU pod (nvidia-smi) and Chainsaw Tests: each component's
  health check (`health_checks`, validated by `chainsaw_schema` against Chainsaw's schema in
  `chainsaw/`) and AICR's validators that apply (`health_validators`, built with
  `chainsaw_tests`).
- `manifests`: a component's manifest files parsed into objects.

Importing this package registers nothing; resources exist only once a component is built.
"""
