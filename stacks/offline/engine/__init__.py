"""The recording mock engine: the real program run in-process, every request kept whole.

The SDK's mock monitor, recording each registration (`monitor`, `mocks`), what a run leaves
(`records`), values with their secret and unknown markers (`values`), URNs as the engine
makes them (`urns`) and the fake cloud's answers (`fakes`). The lowest room of the offline
engine: it imports only `core`.
"""
