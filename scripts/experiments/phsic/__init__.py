"""Reproduction: PHSIC on dialogue pairs (`make dialogue`, `make demo`)."""
