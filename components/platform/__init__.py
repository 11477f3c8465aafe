"""The platform layer: a resolved recipe deployed onto a Kubernetes cluster.

Here, the top floor: `recipe_releases` (RecipeReleases, `gpu-ci:platform:RecipeReleases`:
one Helm release per component in deployment order, namespaces, manifests, runtime patches
and checks), `release_plan` (`plan_platform`: the same plan without Pulumi) and
`platform_config` (`gpu-ci:platform`). Below it, one package per concept, each importing
only those after it:
- `checks/`: the checks after deploying, as Jobs (the Chainsaw ones after a short Job
  proving their pod starts), one model for a GPU pod (nvidia-smi, the GPU count, NCCL) and
  Chainsaw Tests: each component's health check and AICR's validators that apply;
- `chart_values/`: which values paths the pinned chart knows (`recipes/chart-values/`), so
  a misspelt `set` path is a config error rather than a silently ignored value;
- `chainsaw/`: Chainsaw Test documents, built, read and checked against Chainsaw's schema;
- `releases/`: each component as planned, the stack's overrides (`comp:path=val` /
  `comp:enabled=false`), manifests, the Kubeflow Trainer runtime patch, GPU sharing.

Importing this package registers nothing; resources exist only once a component is built.
"""
