"""Declares the native double-dummy solver (rules/arbitar/_dds.c); everything else lives in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "rules.arbitar._dds",
            sources=["rules/arbitar/_dds.c"],
            # Portable: plain optimisation, no -march=native; MSVC ignores the GCC/Clang spelling.
            extra_compile_args=["-O2", "-std=c99"] if __import__("os").name != "nt" else [],
        )
    ]
)
