"""Pointwise HSIC (Yokoi et al., 2018): see :mod:`kcooc.phsic.model` for the equations."""

from .model import PHSIC, CrossMoments, FeatureMap

__all__ = ["PHSIC", "CrossMoments", "FeatureMap"]
