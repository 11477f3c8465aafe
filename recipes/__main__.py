"""Run the recipe CLI: ``python -m recipes recipe --service kind --accelerator a10 ...``."""

import sys

from recipes.cli import main

sys.exit(main())
