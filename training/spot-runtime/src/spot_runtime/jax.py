"""JAX pytrees to checkpoint bytes and back, as a NumPy .npz of the tree's leaves.

Importing this module needs JAX (and so NumPy); ``import spot_runtime`` never imports it. The
leaves are keyed by their path in the tree (``jax.tree_util.keystr``), so the file reads with
plain NumPy too; restoring into a ``target`` tree gives back its structure and leaf types.
"""

from __future__ import annotations

import io
from typing import Any

try:
    import jax as _jax
    import numpy as _np
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError("spot_runtime.jax needs JAX, which is not installed (pip install jax)") from None


def state_bytes(tree: Any) -> bytes:
    """A pytree of arrays (params, optimizer state, a PRNG key's data) as .npz bytes."""
    leaves, _ = _jax.tree_util.tree_flatten_with_path(tree)
    arrays = {f"{i:06d}{_jax.tree_util.keystr(path)}": _np.asarray(leaf) for i, (path, leaf) in enumerate(leaves)}
    buffer = io.BytesIO()
    _np.savez(buffer, allow_pickle=False, **arrays)
    return buffer.getvalue()


def load_state(data: bytes, target: Any = None) -> Any:
    """The leaves ``state_bytes`` wrote: into ``target``'s structure when given (it must have the
    same number of leaves and shapes), else a dict of path -> numpy array."""
    with _np.load(io.BytesIO(data), allow_pickle=False) as npz:
        # Only the leaves: an older NumPy, whose savez has no allow_pickle, stores it as one more array.
        arrays = {name: npz[name] for name in sorted(npz.files) if name[:6].isdigit()}
    if target is None:
        return {name[6:]: array for name, array in arrays.items()}
    leaves, treedef = _jax.tree_util.tree_flatten(target)
    if len(leaves) != len(arrays):
        raise ValueError(f"checkpoint has {len(arrays)} arrays, the target tree has {len(leaves)} leaves")
    restored = []
    for (name, array), leaf in zip(arrays.items(), leaves):
        if _np.shape(leaf) != array.shape:
            raise ValueError(f"checkpoint array {name[6:]} has shape {array.shape}, the target's leaf {_np.shape(leaf)}")
        restored.append(_jax.numpy.asarray(array, dtype=getattr(leaf, "dtype", array.dtype)))
    return _jax.tree_util.tree_unflatten(treedef, restored)
