"""Maintainers' tools: the engine's and stand-ins' builds, and the price table's refresh (prices/)."""
