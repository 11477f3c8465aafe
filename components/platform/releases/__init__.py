"""What each component of the recipe deploys, as one planned release and what goes with it.

One component as it will be deployed (`component_plan`), the stack's `platform.set`
overrides and the platform's error (`overrides`), its manifest files parsed into objects
(`manifests`), the Kubeflow Trainer runtime patch (`runtime_patch`), and whether the device
plugin shares GPUs (`gpu_sharing`, reading the plugin's config as it does:
`device_plugin_config`). The plan of all releases and the component that registers them
are one floor up (`components/platform/release_plan.py`, `recipe_releases.py`).

May import: `recipes`, `core`. Every other platform package may import it.
"""
