"""A file read only when it is what it claims to be: the first step of the careful reader.

A catalog, a project or a plan folder names its files by relative path, and a path can be a
symlink to a file elsewhere (`~/.ssh/id_rsa`, `/etc/shadow`), whose content would then be
printed, planned and diffed; a named pipe, which blocks `open()` forever; a device, which
never ends; or a file of gigabytes. So, before anything is read:

- the path, its symlinks followed, must lie inside its `root` (when the caller gives one);
- it must be a regular file, checked with `stat` before it is opened (a FIFO is never opened);
- its size must be within the kind's `Limits.max_bytes`.

Then it is opened with O_NOFOLLOW and O_NONBLOCK (a FIFO swapped in after the check cannot
block either), checked again on the open descriptor (same file, still regular), and read
up to the limit. Every refusal is one line naming the file and the fix, never its content
or where a symlink leads.
"""

from __future__ import annotations

import functools
import os
import stat
from pathlib import Path

from core.errors import GpuCiError
from core.read_limits import Limits, size_text

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileRefusedError(GpuCiError):
    """A file the careful reader will not read; the message names it and the fix."""


class FileMissingError(FileRefusedError):
    """No file at the path (a dangling symlink included): callers often say it their way."""


def inside(path: Path, root: Path) -> bool:
    """Whether `path`, every symlink followed, lies in `root` (itself resolved)."""
    return _within(os.path.realpath(path), _real_root(str(root)))


def _within(real: str, base: str) -> bool:
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


@functools.lru_cache(maxsize=256)
def _real_root(root: str) -> str:
    """A root resolved once per process: a catalog's hundred files share it."""
    return os.path.realpath(root)


def inspect(
    path: Path, *, name: str, limits: Limits, root: Path | None = None, where: str = ""
) -> os.stat_result:
    """The checks of `read_bytes`, without opening the file: its `stat` when it passes.

    `where` names `root` in messages ("the catalog's data directory X")."""
    return _checked(path, name, limits, root, where)[1]


def read_bytes(
    path: Path, *, name: str, limits: Limits, root: Path | None = None, where: str = ""
) -> bytes:
    """The bytes of `path` once `inspect` passes, read through a descriptor that cannot
    block or follow a symlink swapped in since."""
    real, info = _checked(path, name, limits, root, where)
    try:
        fd = os.open(real, _OPEN_FLAGS)
    except OSError as err:
        raise FileRefusedError(f"{name}: cannot read it ({err.strerror or err})") from None
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(handle.fileno())
        _regular(opened, name)
        if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
            raise FileRefusedError(f"{name}: the file changed while it was read; read it again")
        data = handle.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:  # it grew after the check
        raise FileRefusedError(
            f"{name}: more than the {size_text(limits.max_bytes)} a {limits.kind} may be "
            f"({limits.reason}); make it smaller"
        )
    return data


def _checked(
    path: Path, name: str, limits: Limits, root: Path | None, where: str
) -> tuple[str, os.stat_result]:
    real = os.path.realpath(path)
    if root is not None and not _within(real, _real_root(str(root))):
        place = where or str(root)
        raise FileRefusedError(
            f"{name}: a symlink that leads outside {place}; put the file itself in {place} "
            "instead of a link to a file elsewhere"
        )
    try:
        info = os.stat(real)
    except FileNotFoundError:
        raise FileMissingError(f"{name}: no such file") from None
    except OSError as err:
        raise FileRefusedError(f"{name}: cannot read it ({err.strerror or err})") from None
    _regular(info, name)
    if info.st_size > limits.max_bytes:
        raise FileRefusedError(
            f"{name}: {size_text(info.st_size)}, more than the {size_text(limits.max_bytes)} "
            f"a {limits.kind} may be ({limits.reason}); make it smaller"
        )
    return real, info


def _regular(info: os.stat_result, name: str) -> None:
    if stat.S_ISREG(info.st_mode):
        return
    kind = next((what for test, what in _KINDS if test(info.st_mode)), "not a file")
    raise FileRefusedError(f"{name}: {kind}, not a regular file; replace it with a regular file")
