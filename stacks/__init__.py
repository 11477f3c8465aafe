"""Stack-level code: config models, graph assembly, offline plan and diff tooling."""
