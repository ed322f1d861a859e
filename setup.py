"""Packaging glue pyproject.toml cannot express: ship resources/ as `workbench._resources`.

Everything else about the project is in pyproject.toml. `workbench.core.resources` finds the
folder there in an installed wheel (and beside the package in a source checkout).
"""

from setuptools import find_namespace_packages, setup

setup(
    packages=find_namespace_packages(include=["workbench", "workbench.*"],
                                     exclude=["*.__pycache__"])
    + ["workbench._resources"],
    package_dir={"workbench._resources": "resources"},
    package_data={"workbench._resources": ["**/*"]},
)
