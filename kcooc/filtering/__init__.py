"""Parallel-corpus filtering by PHSIC (Yokoi et al., 2018, §6.3): hard rules, PHSIC learned on
the corpus itself, selection, on a local or Dask engine. See job.py for the passes."""
