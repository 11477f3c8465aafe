"""gpu-ci's policy pack: `pulumi preview --policy-pack policy` (rules in `policy.rules`)."""
