"""gpu-ci's components for every Pulumi language: a source-based Pulumi plugin package.

`pulumi package add` runs this folder (`PulumiPlugin.yaml`, `__main__.py`) and generates an
SDK from the schema the SDK's analyzer infers from these components; each takes a stack
file's `gpu-ci:` keys as plain inputs and registers the Python program's own layers
(docs/multi-language.md). The package sits above `stacks/` and `components/`, which
never import it.
"""
