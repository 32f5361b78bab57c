"""Reproduction: nonstationary kernels on Brown corpus paths (`make nsk`)."""
