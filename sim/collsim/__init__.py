"""collsim: discrete-event simulation of MPI collective algorithms in SimGrid's SMPI."""

__version__ = "0.1.0"
