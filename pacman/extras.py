"""The one-line install hint for an optional part (an extra of ``pyproject.toml``).

The project is installed from a checkout, not from an index, so ``pip install
'pacman-multiagent[gif]'`` would fail: the hint names the extra's packages themselves,
read from the installed project's metadata, which works from any folder.
"""

from __future__ import annotations

import re
from functools import cache

#: The project's distribution name (pyproject.toml's ``name``).
DISTRIBUTION = "pacman-multiagent"

#: torch from PyPI is a CUDA build of several GB; the CPU build is what the examples need.
CPU_TORCH = "pip install torch --index-url https://download.pytorch.org/whl/cpu"


@cache
def extra_requirements(extra: str) -> tuple[str, ...]:
    """The requirements the extra adds (``("pillow>=10", "pygame>=2.5")``), or () if unknown."""
    from importlib import metadata

    try:
        requires = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return ()
    marker = re.compile(rf"""^\s*extra\s*==\s*["']{re.escape(extra)}["']\s*$""")
    found = []
    for requirement in requires:
        spec, _, condition = requirement.partition(";")
        if marker.match(condition):
            found.append(spec.strip().replace(" ", ""))
    return tuple(found)


def install_hint(extra: str) -> str:
    """``pip install 'pillow>=10' 'pygame>=2.5'``: what installs ``extra`` from anywhere."""
    packages = extra_requirements(extra)
    if not packages:
        return f"pip install '.[{extra}]' in the project's folder"
    command = "pip install " + " ".join(f"'{package}'" for package in packages)
    if extra == "learn":
        return f"{CPU_TORCH}, then {command}"
    return command
