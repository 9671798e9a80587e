"""Analytic alpha-beta-gamma cost models of the registry's algorithms.

One module per collective (``allreduce``, ``reduce``, ``bcast``, ``allgather``, ...:
every collective of algorithms/collectives.def), one function
per registry entry with the entry's name and one signature::

    model(p, n_bytes, net, *, elem_bytes=8, root=0, commutative=True,
          params=AlgorithmParams()) -> Prediction

Each docstring cites the seed formula it implements and its accuracy class on
the crossbar under the ``hockney`` profile.
"""

from __future__ import annotations

from typing import Callable

from collsim.params import AlgorithmParams

from . import (allgather, allreduce, alltoall, barrier, bcast, exscan, gather, reduce,
               reduce_scatter, scan, scatter)
from ._base import NetworkParams, Prediction, message_s, reduce_s
from ._lookup import model_for

__all__ = ["AlgorithmParams", "NetworkParams", "Prediction", "model_for", "predict", "message_s", "reduce_s"]

Model = Callable[..., Prediction]


def predict(
    collective: str,
    algorithm: str,
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams | None = None,
) -> Prediction:
    """Predict the time of one registry entry (see :func:`model_for`).

    Examples
    --------
    >>> net = NetworkParams(alpha_s=2e-6, beta_s_per_byte=1e-10, gamma_s_per_byte=0.0)
    >>> predict("bcast", "binomial", 8, 1024, net).time_s
    6.312e-06
    """
    return model_for(collective, algorithm)(
        p,
        n_bytes,
        net,
        elem_bytes=elem_bytes,
        root=root,
        commutative=commutative,
        params=params if params is not None else AlgorithmParams(),
    )
