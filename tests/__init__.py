"""The test suite; `tests/<area>/` mirrors the source tree."""
