"""The nvkind GPU cluster: a typed kind `Cluster` config rendered for nvkind, and the
node-image table that keeps it consistent with the kind version the host installed."""
