"""Stack files as the Pulumi CLI reads them, and the ESC environments they import.

`Pulumi.yaml` and `Pulumi.<stack>.yaml` to the flat config the program gets (`read`),
YAML read as yaml.v3 reads it (`yaml_document`, its checks in `yaml_checks`), ESC
environment definitions and their merge (`esc_definitions`, `environments`), and config
values as the CLI hands them over (`cli_values`). May import only `core`.
"""
