"""PyTorch state to checkpoint bytes and back: ``torch.save`` into memory, ``torch.load`` out of it.

Importing this module needs PyTorch; ``import spot_runtime`` never imports it.
"""

from __future__ import annotations

import io
from typing import Any

try:
    import torch as _torch
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError("spot_runtime.torch needs PyTorch, which is not installed (pip install torch)") from None


def state_bytes(obj: Any) -> bytes:
    """``obj`` (a state_dict, or a dict of them with the step and RNG states) as bytes for ``save``."""
    buffer = io.BytesIO()
    _torch.save(obj, buffer)
    return buffer.getvalue()


def load_state(data: bytes, **load_kwargs: Any) -> Any:
    """The object ``state_bytes`` made. ``load_kwargs`` go to ``torch.load`` (``map_location``,
    ``weights_only``: PyTorch's default, True since 2.6, loads tensors and plain containers only)."""
    return _torch.load(io.BytesIO(data), **load_kwargs)
