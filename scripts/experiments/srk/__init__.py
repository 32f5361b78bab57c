"""Reproduction: string rewriting kernels on paraphrase and answer selection (`make srk`)."""
