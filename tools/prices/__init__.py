"""The price table's refresh (refresh.py) and its coverage (coverage.py): read by
maintainers, never imported by the program or the provider (docs/costs.md)."""
