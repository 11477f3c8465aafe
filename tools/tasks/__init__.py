"""The tasks `python3 tasks.py TASK` runs, with nothing but Python 3.11+'s standard library
(they run before .venv exists):

- `checkout`: where the checkout and its .venv are, and how a task runs a command there.
- `locks`: the lock files, read with the standard library, and the `lock` task.
- `venv_setup`: each task's set-up, .venv holding the lock the task needs.
- `mutation_tests`: the module → tests table of the `mutate` task.
- `mutate`: the `mutate` task, mutmut over each module, and its scores.
"""
