"""Declares the native double-dummy solver (rules/arbitar/_dds.c); everything else lives in pyproject.toml."""

import os

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "rules.arbitar._dds",
            sources=["rules/arbitar/_dds.c"],
            # Portable flags only (no -march=native); MSVC keeps its defaults. -fno-wrapv undoes the -fwrapv
            # that Python's own CFLAGS add (CPython needs it, this file has no signed overflow): fewer
            # instructions per node (docs/solver-journal.md).
            extra_compile_args=[] if os.name == "nt" else ["-O3", "-std=c99", "-fno-wrapv"],
        )
    ]
)
