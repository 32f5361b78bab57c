"""The ``phsic`` artifact: what ``PHSIC.save`` and ``kcooc phsic train`` write, read back and checked
against the kind's schema (arrays, header parameters, config and encoder specs) before any model is built.
"""

from __future__ import annotations

import numpy as np

from ..artifact import check_arrays
from ..errors import InputError
from ..kernels import KERNELS

KIND = "phsic"


def check_artifact(header: dict, arrays: dict[str, np.ndarray]) -> None:
    """A ``phsic`` artifact's header and arrays checked: sum_x (dx), sum_y (dy), sum_xy (dx, dy); data-space
    kernels also x_pivots (dx, input dim), x_lower (dx, dx, non-zero diagonal) and the same for y."""
    params = header["model"]
    if not isinstance(params, dict) or not isinstance(header.get("config"), dict):
        raise InputError("header lacks the model parameters or the config")
    if not isinstance(params["n"], int) or params["n"] < 1:
        raise InputError(f"n (the number of training pairs) must be a positive integer, got {params['n']!r}")
    if params["kernel"] not in KERNELS:
        raise InputError(f"unknown kernel {params['kernel']!r}")
    check_params(params)
    icd = not KERNELS[params["kernel"]].feature_space
    pivots = ("x_pivots", "x_lower", "y_pivots", "y_lower")
    check_arrays(arrays, {"sum_x": ("f", ("dx",)), "sum_y": ("f", ("dy",)), "sum_xy": ("f", ("dx", "dy")),
                          "x_pivots": ("f", ("dx", "x_input")), "x_lower": ("f", ("dx", "dx")),
                          "y_pivots": ("f", ("dy", "y_input")), "y_lower": ("f", ("dy", "dy"))},
                 optional=() if icd else pivots)
    if icd and not all((np.diag(arrays[name]) != 0).all() for name in ("x_lower", "y_lower")):
        raise InputError("an incomplete Cholesky factor has a zero on its diagonal")


def check_params(params: dict) -> None:
    """The header's model parameters, checked as a config's kernel section is checked: the kernel
    parameters (map_params) and each side's resolved kernel (x_kernel, y_kernel), and the seed."""
    from ..config import SEED, from_dict
    from .config import KernelConfig

    if not isinstance(params["seed"], int) or params["seed"] not in SEED:
        raise InputError(f"seed must be an integer {SEED}, got {params['seed']!r}")
    for key, kernel in (("map_params", {"name": params["kernel"], **params["map_params"]}),
                        ("x_kernel", params["x_kernel"]), ("y_kernel", params["y_kernel"])):
        from_dict(KernelConfig, kernel, prefix=f"{key}.")


def check_encoder_specs(specs: list | dict) -> None:
    """A header's encoders: the x and y encoder specs (each checked as a config's encoder section),
    or, for a model of precomputed vectors, the two vector files' paths."""
    from ..config import EncoderConfig, from_dict

    if isinstance(specs, dict):
        if set(specs) != {"x_vectors", "y_vectors"} or not all(isinstance(v, str) for v in specs.values()):
            raise InputError("encoders must name the x_vectors and y_vectors files")
        return
    if not isinstance(specs, list) or len(specs) != 2:
        raise InputError("encoders must be the specs of the x and y encoders")
    for side, spec in zip("xy", specs):
        from_dict(EncoderConfig, spec, prefix=f"encoders.{side}.")


def check_header(header: dict) -> None:
    """A saved model's encoder specs and config, checked as a config file's are."""
    from ..config import from_dict
    from .config import PhsicConfig

    check_encoder_specs(header.get("encoders"))
    if isinstance(header.get("config"), dict):
        from_dict(PhsicConfig, header["config"], prefix="config.")
