"""gpu-ci: GPU CI infrastructure as one typed Pulumi stack graph (see README.md)."""

from stacks.program import main

main()
