"""What a restore hands back to the training loop."""

from __future__ import annotations

from dataclasses import dataclass, field

from spot_runtime.layout import folder_name


@dataclass(frozen=True)
class Restored:
    """The newest complete checkpoint: the step it was saved at and its data files by name."""

    step: int
    files: dict[str, bytes] = field(repr=False)

    @property
    def folder(self) -> str:
        """The checkpoint's folder name, e.g. ``step-000000001200``."""
        return folder_name(self.step)
