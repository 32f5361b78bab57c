"""Kernelized sorting for cross-lingual matching (Jagarlamudi, Juarez & Daume III, 2010, on
Quadrianto, Song & Smola, 2009): sorting.py (the iterations), align.py (KS, p-smooth, S-U, S-Z),
mcca.py (the MCCA baseline), convex.py (convex kernelized sorting, Djuric et al. 2012), features.py
(kernels from text)."""
