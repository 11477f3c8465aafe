"""One Pulumi ComponentResource per concept, each on one convention:

- typed flat args: a `components.base.ComponentArgs` model of what it builds from;
- what it waits for and the provider it deploys with come through `opts`, never args:
  `opts.provider` goes into the component's providers map, which its children of that
  package inherit (none sets `provider=`); the children that start its work take
  `components.base.upstream(opts)`, since the engine makes a component's dependents wait
  for its children but not its children wait for what the component depends on;
- children are named from the component's name (renaming one changes its URN: alias it);
- typed output attributes, and `register_outputs` as the last statement of `__init__`.
"""
