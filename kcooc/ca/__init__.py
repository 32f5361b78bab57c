"""Correspondence analysis for word vectors (Niitsuma): counting.py (tables, Eq. 62-64), svd.py (the delayed sparse
randomized SVD, Eq. 59-61), model.py (LCA, Def. 3; word similarity)."""
