"""Finding agents by name, as CS188's ``-p NAME`` does, and building them.

A name is looked up, in order:
1. ``path/to/file.py:ClassName`` — that class in that file;
2. ``package.module.ClassName`` — an importable dotted name;
3. a plain name — first in ``*gents.py`` files of the current directory (a
   CS188 course folder's ``multiAgents.py``), then in the ``agents`` package,
   then among the ghosts.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from pacman import untrusted
from pacman.errors import AgentError, PacmanError, UsageError
from pacman.game import describe
from pacman.ghosts import GHOST_TYPES

#: Modules named ``util`` and ``game`` for CS188 student files, used when nothing else provides them.
SHIMS_DIR = Path(__file__).resolve().parent / "shims"
#: Module names of agent files imported by path (``file.py:Class``, ./*gents.py).
USER_MODULE_PREFIX = "_pacman_user_"


def parse_agent_args(text: str | None, flag: str = "-a") -> dict[str, str]:
    """``"depth=3,evalFn=better"`` -> ``{"depth": "3", "evalFn": "better"}``.

    A key without ``=`` is refused: CS188 read ``-a depth`` as ``depth=1``, which nobody means.
    """
    options: dict[str, str] = {}
    if not text:
        return options
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not key.isidentifier():
            raise UsageError(f"{flag} {text!r}: {part!r} is not of the form key=value")
        if not sep:
            raise UsageError(f"{flag} {text!r}: {key} has no value; write {key}=VALUE" + (
                f" (or {last}={options[last]}:{key}: {flag} splits on commas)"
                if (last := next(reversed(options), None)) else ""
            ))  # fmt: skip
        if key in options:
            raise UsageError(f"{flag} {text!r}: {key} is given twice; give it once")
        options[key] = value.strip()
    return options


def _import_file(path: Path) -> ModuleType:
    if str(SHIMS_DIR) not in sys.path and SHIMS_DIR.is_dir():
        sys.path.append(str(SHIMS_DIR))
    name = f"{USER_MODULE_PREFIX}{path.stem}_{abs(hash(str(path.resolve())))}"
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise AgentError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    folder = str(path.resolve().parent)
    sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise AgentError(f"{path}: importing it failed: {type(error).__name__}: {error}") from None
    finally:
        sys.path.remove(folder)
    return module


def _from_course_folder(name: str) -> type | None:
    """A class of that name in ``*gents.py`` of the current directory, as CS188 finds agents."""
    for path in sorted(Path.cwd().glob("*gents.py")):
        if name in path.read_text(encoding="utf-8", errors="replace"):
            found = getattr(_import_file(path), name, None)
            if inspect.isclass(found):
                return found
    return None


def known_names() -> list[str]:
    """Names ``-p``/``-g`` accept without a path: the agent classes of ``agents`` and the ghosts."""
    import agents

    classes = [name for name in agents.public_names() if _is_agent_class(getattr(agents, name))]
    return sorted({*classes, *GHOST_TYPES})


def _is_agent_class(found: object) -> bool:
    return inspect.isclass(found) and any(
        hasattr(found, method) for method in ("get_action", "getAction")
    )


def find_class(name: str, role: str = "agent") -> type:
    """The class a ``-p``/``-g`` name stands for; AgentError names the closest matches."""
    if ":" in name:
        file_name, _, class_name = name.rpartition(":")
        path = Path(file_name)
        if not path.is_file():
            raise AgentError(f"{role} {name!r}: no file {file_name}")
        found = getattr(_import_file(path), class_name, None)
        if not inspect.isclass(found):
            raise AgentError(f"{role} {name!r}: {file_name} has no class {class_name}")
        return found
    if "." in name:
        module_name, _, class_name = name.rpartition(".")
        if not all(part.isidentifier() for part in name.split(".")):
            # (A relative or path-like name would reach the import machinery as a traceback.)
            raise AgentError(
                f"{role} {name!r}: not a module.Class name (a file's class is FILE.py:Class)"
            )
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise AgentError(f"{role} {name!r}: cannot import {module_name} ({error})") from None
        found = getattr(module, class_name, None)
        if not inspect.isclass(found):
            raise AgentError(f"{role} {name!r}: {module_name} has no class {class_name}")
        return found
    found = _from_course_folder(name)
    if found is not None:
        return found
    import agents

    found = GHOST_TYPES.get(name) or getattr(agents, name, None)
    if inspect.isclass(found):
        return found
    close = difflib.get_close_matches(name, known_names(), n=3, cutoff=0.5)
    hint = (
        f"; did you mean {', '.join(close)}?" if close else f"; known: {', '.join(known_names())}"
    )
    raise AgentError(f"unknown {role} {name!r}{hint}")


def build_agent(cls: type, role: str, *args: Any, **kwargs: Any) -> Any:
    """Instantiate an agent class, turning a bad argument into one clear AgentError."""
    try:
        return _built(cls, role, *args, **kwargs)
    except AgentError as error:  # on one line, whatever -a carried (a newline, a control)
        raise AgentError(untrusted.line(error)) from None


def _built(cls: type, role: str, *args: Any, **kwargs: Any) -> Any:
    try:
        return cls(*args, **kwargs)
    except PacmanError as error:  # the agent's own check of its arguments: a whole sentence
        raise AgentError(f"{role} {cls.__name__}: {error}") from None
    except Exception as error:
        if isinstance(error, TypeError):
            try:
                signature = inspect.signature(cls)
                signature.bind(*args, **kwargs)
            except TypeError as mismatch:
                takes = ", ".join(
                    p for p in signature.parameters if p not in ("self", "index", "rng")
                )
                raise AgentError(
                    f"{role} {cls.__name__}: {mismatch} (it takes: {takes or 'no arguments'})"
                ) from None
            except ValueError:
                pass
        given = ",".join(f"{key}={value}" for key, value in kwargs.items()) or "no arguments"
        raise AgentError(
            f"{role} {cls.__name__} could not be built with {given}: {describe(error)}"
        ) from None


def accepts(cls: type, keyword: str) -> bool:
    """Whether building ``cls`` takes the argument ``keyword`` (by name or ``**kwargs``)."""
    import inspect

    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == keyword or p.kind is p.VAR_KEYWORD for p in parameters)
