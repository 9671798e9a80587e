"""collsim: discrete-event simulation of MPI collective algorithms in SimGrid's SMPI.

From Python (notebooks, scripts)::

    import collsim
    df = collsim.run("allreduce", "ring", 16, ["8", "1MiB"], platform="seed003_hydra")
    df = collsim.study("scenarios/quickstart.toml", jobs=2)
    df = collsim.load("quickstart.db")          # a study's measurements
    df = collsim.check("scenarios/ci.toml")     # one verdict per measurement
    df = collsim.predict("allreduce", "ring", 1 << 20, "1MiB",
                         platform={"generator": "fat_tree", "levels": 3,
                                   "down_ports": [64, 64, 256], "up_ports": [1, 64, 64]})

Each returns a pandas DataFrame whose ``attrs["units"]`` names the unit of
every column that has one.  The functions live in :mod:`collsim.api` and are
imported on first use, so that ``import collsim.platforms`` stays light.  (No
submodule is named ``run``, ``study``, ``check``, ``load`` or ``predict``:
importing one would replace the function of that name; the commands live in
``studies``, ``checks`` and ``predictions``.)
"""

__version__ = "0.1.0"

from collsim.errors import CollsimError  # noqa: E402 - light: no dependency

__all__ = ["CollsimError", "check", "load", "predict", "run", "study", "to_frame"]


def __getattr__(name: str):
    if name in __all__:
        from collsim import api

        return getattr(api, name)
    raise AttributeError(f"module 'collsim' has no attribute {name!r}")
