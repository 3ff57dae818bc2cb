"""The pure domain below every layer: records that cross layers (`model`), their
refusals, the ranking rule (`ranking`) and the time arithmetic (`timing`).

Nothing here does I/O; competition, store, net, audit and the client all build on it.
"""
