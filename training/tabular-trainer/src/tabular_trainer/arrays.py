"""Named arrays to and from .npz bytes, byte for byte the same for the same arrays.

`numpy.savez` stamps each member with the current time, so two saves of equal
arrays differ; here every member has a fixed date and the members are sorted,
so equal models are equal files (what the interrupted-and-resumed runs are
compared on). `numpy.load` reads the result as any .npz.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

# The earliest date a zip member can carry.
FIXED_DATE = (1980, 1, 1, 0, 0, 0)


def to_npz(arrays: Mapping[str, NDArray[np.generic]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name in sorted(arrays):
            member = zipfile.ZipInfo(f"{name}.npy", date_time=FIXED_DATE)
            member.external_attr = 0o644 << 16
            with archive.open(member, "w", force_zip64=True) as out:
                np.lib.format.write_array(out, np.ascontiguousarray(arrays[name]), allow_pickle=False)
    return buffer.getvalue()


def from_npz(data: bytes) -> dict[str, NDArray[np.generic]]:
    """Raises ValueError (numpy's or zipfile's, wrapped) when `data` is not an .npz of plain arrays."""
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as loaded:
            return {name: loaded[name] for name in loaded.files}
    except (OSError, zipfile.BadZipFile, EOFError) as err:
        raise ValueError(f"not an .npz archive: {err}") from err
