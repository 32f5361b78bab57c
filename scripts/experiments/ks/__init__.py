"""Reproduction: kernelized sorting of names and documents (`make ks`)."""
