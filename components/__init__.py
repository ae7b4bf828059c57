"""spot-training components. Import submodules explicitly; this package imports nothing."""
