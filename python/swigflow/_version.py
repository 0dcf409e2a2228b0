"""The one place swigflow's version is written; pkg/setup.py reads it from here."""

__version__ = "0.1.0"
