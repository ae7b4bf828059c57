"""The PyTorch and JAX adapters: state to bytes and back where the framework is installed, a clear
error naming it where it is not, and never imported by `import spot_runtime` itself."""

import importlib
import importlib.util
import subprocess
import sys

import pytest

HAVE = {name: importlib.util.find_spec(name) is not None for name in ("torch", "jax")}


def test_the_core_imports_no_framework_and_no_cloud_client():
    # What the import adds to what the interpreter started with (.pth files load Google's namespace packages).
    code = (
        "import sys; before = set(sys.modules); import spot_runtime; "
        "print(sorted(m for m in set(sys.modules) - before if m.split('.')[0] in ('torch', 'jax', 'numpy', 'google')))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(("module", "framework"), [("torch", "PyTorch"), ("jax", "JAX")])
def test_an_adapter_without_its_framework_names_it(module, framework):
    if HAVE[module]:
        pytest.skip(f"{module} is installed here: its round trip is tested instead")
    sys.modules.pop(f"spot_runtime.{module}", None)
    with pytest.raises(ImportError, match=f"spot_runtime.{module} needs {framework}, which is not installed"):
        importlib.import_module(f"spot_runtime.{module}")


@pytest.mark.skipif(not HAVE["torch"], reason="PyTorch is not installed in this environment")
def test_torch_state_round_trips_through_a_checkpoint(tmp_path):
    import spot_runtime
    import torch
    from spot_runtime import torch as adapter

    model = torch.nn.Linear(3, 2)
    state = {"model": model.state_dict(), "step": 7, "rng": torch.get_rng_state()}
    ckpt = spot_runtime.Checkpointer(tmp_path)
    ckpt.save(7, {"state.pt": adapter.state_bytes(state)})
    back = adapter.load_state(ckpt.restore().files["state.pt"])
    assert back["step"] == 7 and torch.equal(back["rng"], state["rng"])
    assert all(torch.equal(back["model"][k], v) for k, v in model.state_dict().items())


@pytest.mark.skipif(not HAVE["jax"], reason="JAX is not installed in this environment")
def test_jax_pytree_round_trips_through_a_checkpoint(tmp_path):
    import jax
    import jax.numpy as jnp
    import numpy as np
    import spot_runtime
    from spot_runtime import jax as adapter

    tree = {"params": {"w": jnp.arange(6.0).reshape(2, 3), "b": jnp.zeros(3)}, "key": jax.random.key_data(jax.random.PRNGKey(0))}
    ckpt = spot_runtime.Checkpointer(tmp_path)
    ckpt.save(5, {"state.npz": adapter.state_bytes(tree)})
    data = ckpt.restore().files["state.npz"]
    back = adapter.load_state(data, target=tree)
    assert jax.tree_util.tree_structure(back) == jax.tree_util.tree_structure(tree)
    for got, want in zip(jax.tree_util.tree_leaves(back), jax.tree_util.tree_leaves(tree)):
        assert got.dtype == want.dtype and np.array_equal(np.asarray(got), np.asarray(want))
    assert set(adapter.load_state(data)) == {"['key']", "['params']['b']", "['params']['w']"}
    with pytest.raises(ValueError, match="target tree has 1 leaves"):
        adapter.load_state(data, target={"only": jnp.zeros(1)})
