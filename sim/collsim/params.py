"""The algorithm parameters of a run: one struct, read by the command line,
the runner, scenarios and suites, rules files, and the models.

collbench receives them as options (``runner.collbench_args``) and echoes
them in every row's ``params``; C checks which ones an algorithm reads
(``algorithms/registry.c``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AlgorithmParams", "DEFAULT_PARAMS", "parameter_names"]


@dataclass(frozen=True)
class AlgorithmParams:
    """The algorithm parameters of a run, as collbench reports them in ``params``.

    Zero / None means "the algorithm's default".  Each model reads the ones its
    algorithm uses.

    Attributes
    ----------
    segment_bytes : int
        Pipelined algorithms: bytes per segment.
    block_count : int
        Pipelined algorithms: number of blocks (instead of segment_bytes).
    alpha_over_beta_bytes : float
        Pipelined algorithms without a block count or size: the network's
        alpha / beta used by the pipelining lemma (the runner passes the
        platform's; 0 = the nominal ratio of ``collsim.analysis.segments``).
    group_count : int
        Hierarchical algorithms: number of groups G.
    inner_algorithm, outer_algorithm : str or None
        Two-level algorithms: registry names used inside groups / between leaders.
    node_size : int
        Node-aware algorithms: ranks per exposed node (0 = the real node).
    chain_fanout : int
        Chain algorithms (``chain``): the chains the root heads, Open MPI's
        ``coll_tuned_<collective>_algorithm_chain_fanout`` (at most 32; 0 =
        the registry's default, 1: one chain; Open MPI's forced chain uses its
        MCA default 4).
    cached_comms : bool
        Node-aware algorithms: the node and leader communicators are made once
        per communicator and kept, as MPICH makes them with the communicator
        (collbench makes them in an untimed first call); False: made and freed
        in every call, and timed.
    selected : str or None
        Selectors (``openmpi_default``, ``mpich_default``): the registry entry
        the selector ran, as collbench records it in the row's ``selected``;
        an output of the run, never an input to it.
    """

    segment_bytes: int = 0
    block_count: int = 0
    alpha_over_beta_bytes: float = 0.0
    group_count: int = 0
    inner_algorithm: str | None = None
    outer_algorithm: str | None = None
    node_size: int = 0
    chain_fanout: int = 0
    cached_comms: bool = False
    selected: str | None = None

    def __post_init__(self) -> None:
        for name in ("segment_bytes", "block_count", "group_count", "node_size", "chain_fanout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
        if not isinstance(self.cached_comms, bool):
            raise ValueError(f"cached_comms must be true or false, got {self.cached_comms!r}")
        ratio = self.alpha_over_beta_bytes
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not (
                0 <= ratio < float("inf")):
            raise ValueError(f"alpha_over_beta_bytes must be a finite number >= 0, got {ratio!r}")
        if self.segment_bytes and self.block_count:
            raise ValueError("give segment_bytes or block_count, not both")

    @classmethod
    def from_row(cls, params: dict) -> "AlgorithmParams":
        """Build from the ``params`` object of a collbench row (gamma is not one)."""
        fields = {name: params[name] for name in cls.__dataclass_fields__ if name in params}
        return cls(**fields)


DEFAULT_PARAMS = AlgorithmParams()


def parameter_names() -> tuple[str, ...]:
    """The names of the algorithm parameters, in :class:`AlgorithmParams`'s order."""
    return tuple(AlgorithmParams.__dataclass_fields__)
