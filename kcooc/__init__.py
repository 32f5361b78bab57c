"""kcooc: corpus-scale NLP batch jobs built on kernel methods, as a command line and a Python API.

One estimator per method, importable from here (see docs/python-api.md); each is loaded on first use,
so ``import kcooc`` stays light:

* :class:`PHSIC` -- pointwise HSIC of sentence pairs (Yokoi et al. 2018)
* :class:`PairClassifier` -- the learned pair-quality score of ``filter-parallel``
* :class:`CorrespondenceAnalysis`, :class:`PPMISVD` -- word vectors (Niitsuma & Lee 2022; Levy et al. 2015)
* :class:`StringRewritingKernel`, :class:`SRKClassifier` -- typed string rewriting kernels (Gleize & Grau 2015)
* :class:`ConvolutionKernel`, :class:`NSKClassifier` -- nonstationary kernels on paths and trees (Garg et al. 2018)
* :class:`KernelizedSorting` -- matching objects across two sources (Jagarlamudi et al. 2010)

Errors in inputs or parameters raise :class:`InputError`, a :class:`ValueError`; an estimator used
before ``fit`` raises :class:`NotFittedError`, an :class:`InputError` naming the method to call.
"""

from __future__ import annotations

import importlib

__version__ = "0.2.0"

_EXPORTS = {
    "PHSIC": "kcooc.phsic.model",
    "PairClassifier": "kcooc.filtering.classifier",
    "CorrespondenceAnalysis": "kcooc.ca.model",
    "PPMISVD": "kcooc.ca.model",
    "StringRewritingKernel": "kcooc.srk.estimator",
    "SRKClassifier": "kcooc.srk.estimator",
    "ConvolutionKernel": "kcooc.nsk.model",
    "NSKClassifier": "kcooc.nsk.classifier",
    "KernelizedSorting": "kcooc.ks.estimator",
    "InputError": "kcooc.errors",
    "NotFittedError": "kcooc.errors",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'kcooc' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
