"""Correspondence analysis for word vectors (Niitsuma & Lee 2022): counting.py (tables, Niitsuma 2022,
Eq. 62-64), svd.py (the delayed sparse randomized SVD, Niitsuma 2022, Eq. 59-61), model.py (LCA, Niitsuma 2022,
Def. 3; word similarity)."""
