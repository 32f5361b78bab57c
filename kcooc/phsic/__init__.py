"""Pointwise HSIC (Yokoi et al., 2018): see :mod:`kcooc.phsic.model` for the equations."""

__all__ = ["PHSIC", "CrossMoments", "FeatureMap"]


def __getattr__(name: str):
    """The estimators load with :mod:`kcooc.phsic.model` on first use, so the CLI's option
    parsing (which imports ``kcooc.phsic.config``) does not pay for scipy and numba."""
    if name in __all__:
        from . import model

        return getattr(model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
