"""The checks after deploying: which run (`plan`), one model for all (`model`), and their Jobs.

Each deployed component's health check (`health_checks`), the AICR validators that apply
(`aicr_validators`), the GPU count check (`gpu_count`) and the NCCL check
(`nccl_all_reduce`), planned in order by `plan`; their Jobs, ConfigMaps and read-only RBAC
(`jobs`), the start Jobs before them (`starts`), all registered by the `DeploymentChecks`
component (`deployment_checks`).

May import: `components.platform.chainsaw`, `components.platform.releases`, `components`
(base, pins), `recipes`, `core`. The platform's plan and `RecipeReleases` import it.
"""
