"""SMPI profiles: named sets of ``--cfg`` options, read from TOML.

The built-in profiles live in ``profiles.toml`` beside this module; a user
profile is a TOML file with the same keys (``description``, ``envelope_bytes``,
``exact_models``, ``cfg``, and the machine-model elements ``send_overhead_s``,
``recv_overhead_s``, ``eager_threshold_bytes``, ``sources``) at the top level; both
are checked against one schema (:class:`ProfileFile`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from pydantic import PlainValidator, model_validator

from collsim.analysis.models._base import NetworkParams, parse_factors
from collsim.errors import CollsimError
from collsim.files import read_toml
from collsim.files import BadInput
from collsim.limits import BOUNDS, check
from collsim.platforms.catalog import CATALOG, catalog_profile
from collsim.schema import Problem, Table, bounded, validate


__all__ = ["Profile", "HARNESS_CFG", "ProfileFile", "builtin_profiles", "checked_profile",
           "default_profile", "load_profile", "overhead_cfg_value"]

# What collbench needs whatever the network model: simulated times must not
# depend on the host (no timing of host code), timing calls must not cost
# simulated time, and collbench keeps no mutable globals, so ranks can share
# one copy of the program.
# smpirun's own default timing precision (1e-9 s) merges events a few
# nanoseconds apart, which shows as errors of 1e-4 on microsecond collectives;
# 1e-12 s keeps simulated times exact to well below 1e-6.  ("surf/precision"
# is SimGrid 3.32's name, kept as an alias of "precision/timing" later.)
# The engine's other settings stay SimGrid's defaults, by measurement
# (tests/benchmarks/engine_settings.py: ring allreduce of 1 MiB on a 256-node
# fat-tree, recursive doubling of 8 B on 4096 nodes): network/optim:Full
# changes simulated times in the last bits and is slower than the default
# Lazy; smaller context stacks (contexts/stack-size:64) save nothing
# measurable; contexts/nthreads:2 crashes (the harness's shared bookkeeping
# assumes one actor at a time, as SimGrid's default does).  What made
# simulations faster was elsewhere: DijkstraCache routing, no MPI_Comm_dup,
# no messages for the harness's bookkeeping, and jemalloc instead of the C
# library's allocator (collsim.harness.engine_environment: a third less CPU on
# a 1024-rank ring).  contexts/guard-size:0 is added only where the stacks'
# guard pages would pass the kernel's map limit
# (collsim.harness._stack_guard_args).
HARNESS_CFG = {
    "smpi/simulate-computation": "no",
    "smpi/wtime": "0",
    "smpi/privatization": "no",
    "surf/precision": "1e-12",
}

# SimGrid's piecewise correction factors of its SMPI network model, as SimGrid
# 3.32 sets them by default (read from libsimgrid and checked with
# ping-pongs: tests/test_profiles.py); used for a profile that selects that
# model without giving its own.
SIMGRID_LAT_FACTOR = ("65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;"
                      "1426:1.61075;732:1.9503;257:1.95341;0:2.01467")
SIMGRID_BW_FACTOR = ("65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;"
                     "1426:0.608902;732:0.341987;257:0.338112;0:0.812084")

# What a profile may set: SimGrid's network model and its factors, SMPI's cost of
# MPI calls, and the solver's precision: nothing that changes the run itself
# (smpi/np, smpi/hostfile: the harness's), what is timed (smpi/simulate-computation,
# smpi/host-speed), or that writes files (tracing/*, smpi/keep-temps,
# smpi/tmpdir, smpi/trace-call-*).  Names as SimGrid 3.32 lists them
# (smpirun --cfg=help-cfg:1).
ALLOWED_CFG = frozenset({
    "network/model", "network/crosstraffic", "network/TCP-gamma",
    "network/latency-factor", "network/bandwidth-factor", "network/weight-S",
    "network/loopback-lat", "network/loopback-bw", "network/maxmin-selective-update",
    "network/optim", "network/solver",
    "smpi/lat-factor", "smpi/bw-factor", "smpi/IB-penalty-factors",
    "smpi/os", "smpi/or", "smpi/ois", "smpi/async-small-thresh",
    "smpi/send-is-detached-thresh", "smpi/iprobe", "smpi/test", "smpi/init",
    "maxmin/precision", "maxmin/concurrency-limit", "bmf/precision", "bmf/max-iterations",
})
NETWORK_MODELS = ("SMPI", "CM02", "LV08", "IB", "Constant", "ns-3", "Vegas", "Reno", "Reno2")

_BUILTIN = Path(__file__).with_name("profiles.toml")
# The machine-model elements a profile names with units, and the SMPI option
# each becomes; a profile gives an element or its option, not both.
_ELEMENT_CFG = {"send_overhead_s": "smpi/os", "recv_overhead_s": "smpi/or",
                "eager_threshold_bytes": "smpi/send-is-detached-thresh"}
_ELEMENT_OPTIONS = {*_ELEMENT_CFG.values(), "smpi/ois"}
# The first SimGrid whose smpi/os, smpi/or and smpi/ois take a single number as
# their value for every size (overhead_cfg_value)
FACTORSET_SIMGRID = (3, 34)


@dataclass(frozen=True)
class Profile:
    """A named set of SMPI configuration values."""

    name: str
    description: str
    envelope_bytes: int
    exact_models: bool
    cfg: dict[str, str] = field(default_factory=dict)
    send_overhead_s: float = 0.0
    recv_overhead_s: float = 0.0
    eager_threshold_bytes: int = 0
    sources: dict[str, str] = field(default_factory=dict)

    def model_network(self, alpha_s: float, beta_s_per_byte: float,
                      gamma_s_per_byte: float = 0.0) -> NetworkParams:
        """The models' parameters of a route under this profile (factors, envelope, overheads)."""
        latency_factors, bandwidth_factors = self.network_factors
        return NetworkParams(alpha_s=alpha_s, beta_s_per_byte=beta_s_per_byte,
                             gamma_s_per_byte=gamma_s_per_byte,
                             envelope_bytes=self.envelope_bytes,
                             latency_factors=latency_factors, bandwidth_factors=bandwidth_factors,
                             send_overhead_s=self.send_overhead_s,
                             recv_overhead_s=self.recv_overhead_s,
                             eager_threshold_bytes=self.eager_threshold_bytes)

    def element_cfg(self) -> dict[str, str]:
        """The SMPI options of the profile's machine-model elements (none when they are off).

        ``smpi/os`` and ``smpi/or`` are ``threshold:constant:per_byte``
        lists; one segment from 0 with no per-byte part is LogGP's constant o.
        """
        cfg = {}
        if self.eager_threshold_bytes:
            cfg["smpi/send-is-detached-thresh"] = str(self.eager_threshold_bytes)
        if self.send_overhead_s:
            # smpi/os is charged to MPI_Send, smpi/ois to MPI_Isend (and so
            # to MPI_Sendrecv): LogGP has one o for both
            cfg["smpi/os"] = cfg["smpi/ois"] = f"0:{self.send_overhead_s!r}:0"
        if self.recv_overhead_s:
            cfg["smpi/or"] = f"0:{self.recv_overhead_s!r}:0"
        return cfg

    @property
    def network_factors(self) -> tuple[tuple[tuple[int, float], ...], tuple[tuple[int, float], ...]]:
        """The latency and bandwidth factors the profile's network model applies.

        SimGrid's ``SMPI`` network model (smpirun's default) scales every
        message's latency and bandwidth by piecewise factors of its size
        (``smpi/lat-factor``, ``smpi/bw-factor``); ``CM02`` and the others
        used here do not.  Returned as :class:`NetworkParams` takes them;
        empty when no factor applies.
        """
        if self.cfg.get("network/model", "SMPI") != "SMPI":
            return (), ()
        return (parse_factors(self.cfg.get("smpi/lat-factor", SIMGRID_LAT_FACTOR)),
                parse_factors(self.cfg.get("smpi/bw-factor", SIMGRID_BW_FACTOR)))

    @property
    def all_cfg(self) -> dict[str, str]:
        """The profile's SMPI options: ``cfg`` and those of its elements (what keys results)."""
        return {**self.cfg, **self.element_cfg()}

    def smpirun_args(self, simgrid_version: tuple[int, int] = (3, 32)) -> list[str]:
        """The ``--cfg=key:value`` arguments for smpirun, harness requirements last.

        Parameters
        ----------
        simgrid_version : tuple of int
            The (major, minor) version of the SimGrid that runs them
            (``harness.simgrid_version``): from 3.34 a constant overhead is
            written in that version's form (:func:`overhead_cfg_value`).
        """
        merged = {**self.all_cfg, **HARNESS_CFG}
        for key in _ELEMENT_OPTIONS & merged.keys() - {"smpi/send-is-detached-thresh"}:
            merged[key] = overhead_cfg_value(merged[key], simgrid_version)
        return [f"--cfg={key}:{value}" for key, value in merged.items()]


def overhead_cfg_value(value: str, simgrid_version: tuple[int, int]) -> str:
    """An ``smpi/os``/``or``/``ois`` value in the form a SimGrid version reads.

    collsim writes these options in SimGrid 3.32's form,
    ``threshold:seconds:seconds_per_byte;...``, where the first segment also
    covers the sizes below its threshold, so ``0:o:0`` is LogGP's constant
    ``o`` for every size.  From 3.34 (SimGrid's ``FactorSet``; read in the
    sources of 3.35, 4.0 and 4.1: ``src/kernel/resource/FactorSet.cpp``) a
    segment applies only to sizes above its threshold and the sizes up to the
    first one take the option's default, which only a single number sets:
    ``0:o:0`` would leave 0-byte messages without overhead.  A one-segment
    value from 0 with no per-byte part therefore becomes ``o`` there; any
    other value is passed as written (that SimGrid's meaning applies to the
    sizes up to its first threshold).
    """
    if simgrid_version < FACTORSET_SIMGRID:
        return value
    fields = value.strip().split(":")
    if len(fields) == 3 and float(fields[0]) == 0 and float(fields[2]) == 0:
        return fields[1]
    return value


def _cfg_value_problem(key: str, value: str) -> str | None:
    """Why an SMPI option's value is malformed or out of range, or None."""
    if key in ("smpi/lat-factor", "smpi/bw-factor"):
        try:
            parse_factors(value)
        except ValueError as error:
            return str(error)
        return None
    if key in ("smpi/os", "smpi/or", "smpi/ois"):  # threshold:constant:per_byte;...
        for part in value.split(";"):
            fields = part.strip().split(":")
            try:
                numbers = [float(x) for x in fields]
            except ValueError:
                numbers = []
            if len(numbers) != 3 or not all(math.isfinite(x) and x >= 0 for x in numbers):
                return "want threshold:seconds:seconds_per_byte;... of finite numbers >= 0"
        return None
    if key in ("network/crosstraffic", "network/maxmin-selective-update"):
        if value.lower() not in ("0", "1", "yes", "no", "on", "off", "true", "false"):
            return "want 0 or 1 (yes/no, on/off, true/false)"
        return None
    if key in BOUNDS:  # a number: its bounds are in the one table (collsim.limits)
        bound = BOUNDS[key]
        try:
            check(key, int(value) if bound.whole else float(value))
        except (ValueError, BadInput):
            return f"want {bound.describe()}"
    return None


def _cfg(value: object) -> dict[str, str]:
    """A profile's ``cfg``: SMPI options a profile may set, with well-formed values."""
    if not isinstance(value, dict) or not all(
            isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value.values()):
        raise ValueError("must map option names to values (strings or numbers)")
    for key in value:
        if key in HARNESS_CFG:
            raise ValueError(f"may not set {key!r} (collsim fixes it)")
        if key not in ALLOWED_CFG:
            raise ValueError(f"may not set {key!r} (a profile sets the network model and "
                             "SMPI's costs only: network/*, smpi/lat-factor, smpi/bw-factor, "
                             "smpi/os, smpi/or, smpi/ois, ...)")
    cfg = {str(k): str(v) for k, v in value.items()}
    for key, text in cfg.items():
        problem = _cfg_value_problem(key, text)
        if problem:
            raise Problem(f"{text[:60]!r}: {problem}", key)
    if cfg.get("network/model", "SMPI") not in NETWORK_MODELS:
        raise Problem(f"network/model must be one of {', '.join(NETWORK_MODELS)}, "
                      f"got {cfg['network/model']!r}", "network/model")
    return cfg


class ProfileFile(Table):
    """What a profile may hold (its schema): a user profile's file, or a table of
    ``profiles.toml``."""

    description: str = ""
    envelope_bytes: Annotated[int, bounded("envelope_bytes")] = 16
    exact_models: bool = False
    cfg: Annotated[dict[str, str], PlainValidator(_cfg)] = {}
    send_overhead_s: Annotated[float, bounded("send_overhead_s")] = 0.0
    recv_overhead_s: Annotated[float, bounded("recv_overhead_s")] = 0.0
    eager_threshold_bytes: Annotated[int, bounded("eager_threshold_bytes")] = 0
    sources: dict[str, str] = {}

    @model_validator(mode="after")
    def _elements_once(self) -> "ProfileFile":
        for key, option in _ELEMENT_CFG.items():
            if key in self.model_fields_set and (
                    option in self.cfg or (key == "send_overhead_s" and "smpi/ois" in self.cfg)):
                raise Problem(f"gives both {key} and cfg {option!r}", key)
        if (self.send_overhead_s or self.recv_overhead_s) and not self.eager_threshold_bytes:
            # SimGrid charges o only to eager sends: an overhead without them would be ignored
            raise ValueError("has an overhead but no eager_threshold_bytes (SMPI charges it "
                             "to eager messages only)")
        return self


def _profile_from_table(name: str, table: dict, origin: str) -> Profile:
    where = f"{origin}: profile {name!r}"
    checked = validate(ProfileFile, table, where)
    profile = Profile(name=name, **checked.model_dump())
    try:
        profile.network_factors
    except ValueError as error:
        raise BadInput(f"{where}: {error}") from None
    return profile


def builtin_profiles() -> dict[str, Profile]:
    """Return the built-in profiles by name."""
    data, _ = read_toml(_BUILTIN, "built-in profiles")
    return {name: _profile_from_table(name, table, str(_BUILTIN)) for name, table in data.items()}


def load_profile(name_or_path: str) -> Profile:
    """Return a built-in profile by name, or a user profile from a TOML file.

    Raises
    ------
    ValueError
        If the name is unknown or the file is unreadable or malformed.
    """
    profiles = builtin_profiles()
    if name_or_path in profiles:
        return profiles[name_or_path]
    path = Path(name_or_path)
    if path.suffix != ".toml":
        raise ValueError(
            f"unknown profile {name_or_path!r} (built-in: {', '.join(profiles)}; "
            "or a .toml file)"
        )
    data, _ = read_toml(path, "profile")
    return _profile_from_table(path.stem, data, str(path))


def default_profile(platform: str | None) -> str:
    """The profile of a run that names none: a catalog machine's own, else ``hockney``."""
    if platform in CATALOG:
        return catalog_profile(platform)
    return "hockney"


def checked_profile(name: str):
    """A profile by name or file (``profiles.load_profile``), a bad one as a CollsimError."""
    try:
        return load_profile(name)
    except ValueError as error:
        raise CollsimError(str(error)) from None
