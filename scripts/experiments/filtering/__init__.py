"""Reproduction: filter-parallel on labelled noisy parallel corpora (`make filter-eval`)."""
