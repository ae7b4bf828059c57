"""What the checkpointer needs from where checkpoints live."""

from __future__ import annotations

from typing import Protocol


class Store(Protocol):
    """A checkpoint directory: keys are ``name`` or ``folder/name`` relative to it.

    ``write`` is all-or-nothing for one key: a reader sees the old content, the new content,
    or (for a new key) nothing, never a part. Nothing more is assumed (no atomic directory
    rename: Cloud Storage and its FUSE mount have none), which is why a checkpoint is made
    complete by its manifest, written last.
    """

    location: str  # the directory as the user wrote it (a path or a gs:// URI), for messages

    def describe(self, key: str) -> str:
        """The full path or URI of a key, for messages."""
        ...

    def read(self, key: str) -> bytes | None:
        """The content of a key, or None when it does not exist."""
        ...

    def write(self, key: str, data: bytes) -> None: ...

    def folders(self) -> list[str]:
        """The names of the directory's immediate sub-folders."""
        ...

    def files(self, folder: str) -> dict[str, int]:
        """The files directly in a folder and their sizes (empty when the folder does not exist)."""
        ...

    def delete(self, key: str) -> None:
        """Remove one key; a missing key is not an error."""
        ...

    def delete_folder(self, folder: str) -> None:
        """Remove a folder and everything in it; a missing folder is not an error."""
        ...
