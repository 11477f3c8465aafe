"""Typed readers of gpu-ci stacks, for other Pulumi Python programs.

A gpu-ci stack exports one object per layer (`stacks/outputs.py`): `capacity`, `host`,
`cluster` (plus the secret `kubeconfig`) and `platform`, and its monthly compute estimate
`cost` (`stacks/layers/cost.py`), each with a `contractVersion`. `capacity` is either kind:
`gpu.capacity()` gives a `VmCapacityOutputs` or an `ArcCapacityOutputs`, as its `kind`
("vm" or "arc") says. Another program reads them through one StackReference:

    from stacks.contracts.reader import GpuCiStack

    gpu = GpuCiStack.from_stack("acme/gpu-ci/gpu-dev")
    cluster = gpu.cluster()               # Output[ClusterOutputs], validated
    provider = k8s.Provider("gpu", kubeconfig=gpu.kubeconfig())   # a secret Output[str]
    pulumi.export("gpus", cluster.gpuCount)                       # attribute access lifts

Each reader validates what the stack exports against this checkout's model and fails the
update with a `ContractError` (a `pulumi.RunError`: the message alone, no traceback) that
names the stack, the export and the field or version that does not match. An export the
referenced stack marks secret stays secret; `kubeconfig` is always secret.

`contract` holds the models (one `Contract` per layer export), `reader` the one reader.
"""
