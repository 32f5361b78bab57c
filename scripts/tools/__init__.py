"""Generators of the reference pages docs/cli.md and configs/README.md (tests keep them current)."""
