"""The plugin's entry point: Pulumi's Python language host runs this folder.

The language host runs `python <plugin folder> <engine address>` (pulumi/sdk/python/cmd/
pulumi-language-python/main.go @ v3.259.0, `RunPlugin`); the package imports the program
(`stacks`, `components`, `core`), which sits one folder up, in the same checkout or the
same git clone of a release.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from pulumi.provider import main  # noqa: E402  (after the checkout is importable)

from gpu_ci_package.provider import GpuCiProvider  # noqa: E402

if __name__ == "__main__":
    main(GpuCiProvider(), sys.argv[1:])
