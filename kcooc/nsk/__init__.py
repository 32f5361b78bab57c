"""Nonstationary convolution kernels, kernel-LSH k-NN and stochastic learning (Garg et al., 2018)."""
