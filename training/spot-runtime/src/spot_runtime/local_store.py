"""A checkpoint directory on a local file system."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from spot_runtime.errors import CheckpointError


class LocalStore:
    """A directory on disk. A write is a temp file in the same directory, fsynced, then
    ``os.replace``d over the key: on a POSIX file system the rename is atomic, so a reader
    (or the next attempt after a SIGKILL) sees the whole old file or the whole new one."""

    def __init__(self, path: str | os.PathLike[str], *, location: str | None = None) -> None:
        self.root = Path(path).absolute()
        self.location = location or str(self.root)
        if self.root.exists() and not self.root.is_dir():
            raise CheckpointError(f"checkpoint dir {self.location} is not a directory")

    def describe(self, key: str) -> str:
        return str(self.root / key)

    def _fail(self, what: str, key: str, error: OSError) -> CheckpointError:
        return CheckpointError(f"cannot {what} {self.describe(key)}: {error.strerror or error}")

    def read(self, key: str) -> bytes | None:
        try:
            return (self.root / key).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as error:
            raise self._fail("read", key, error) from None

    def write(self, key: str, data: bytes) -> None:
        target = self.root / key
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix="-" + target.name)
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                    out.flush()
                    # Durable before it is visible: after a power loss a renamed file is never empty.
                    os.fsync(out.fileno())
                os.replace(temp, target)
            except BaseException:
                # Also on KeyboardInterrupt: no temp file left behind (a SIGKILL may leave one;
                # it is named .tmp-*, never a checkpoint file, and goes with its folder).
                Path(temp).unlink(missing_ok=True)
                raise
            self._sync_dir(target.parent)
        except OSError as error:
            raise self._fail("write", key, error) from None

    @staticmethod
    def _sync_dir(directory: Path) -> None:
        # The rename itself is durable once the directory is fsynced. Some file systems (FUSE
        # mounts among them) refuse to open or fsync a directory: the rename is then as durable
        # as that file system makes it, which is all it offers.
        try:
            fd = os.open(directory, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        except OSError:
            pass
        finally:
            os.close(fd)

    def folders(self) -> list[str]:
        try:
            return sorted(entry.name for entry in os.scandir(self.root) if entry.is_dir())
        except FileNotFoundError:
            return []
        except OSError as error:  # not a directory (or under a file), no permission, an I/O error
            raise CheckpointError(f"cannot read checkpoint dir {self.location}: {error.strerror or error}") from None

    def files(self, folder: str) -> dict[str, int]:
        try:
            with os.scandir(self.root / folder) as entries:
                return {entry.name: entry.stat().st_size for entry in entries if entry.is_file()}
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise self._fail("list", folder, error) from None

    def delete(self, key: str) -> None:
        try:
            (self.root / key).unlink(missing_ok=True)
        except OSError as error:
            raise self._fail("delete", key, error) from None

    def delete_folder(self, folder: str) -> None:
        try:
            shutil.rmtree(self.root / folder)
        except FileNotFoundError:
            pass
        except OSError as error:
            raise self._fail("delete", folder, error) from None
