"""Type-enriched string rewriting kernels (Gleize & Grau, ACL 2015) and SVMs on them."""
