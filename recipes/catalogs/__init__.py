"""Reading recipe catalogs: AICR's formats, layered data directories, cross-file checks.

Each catalog file through the careful reader (`yamlfiles.py`), each document in its own
format (`versions.py`, `documents.py`), the loaded `Catalog` and the rules it resolves by
(`catalog.py`), the checks of every reference when it loads (`catalog_checks.py`), and
the loader of one or more `--data` directories (`load.py`). It may import
`recipes.model`, `recipes.errors` and `core`.
"""
