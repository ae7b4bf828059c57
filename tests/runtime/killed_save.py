"""A trainer process that is SIGKILLed in the middle of a save (run by test_interrupted_save.py).

argv: directory mount_root kill_at. It saves step 100 whole, then step 200 with a SIGKILL at
`kill_at`, the way a reclaimed VM or an OOM kill ends a process: no handler, no cleanup.
"""

import os
import signal
import sys

import spot_runtime
from spot_runtime import local_store

directory, mount_root, kill_at = sys.argv[1:4]


def files(step):
    return {"model.npz": f"weights at {step}".encode() * 50, "rng.json": f'{{"step": {step}}}'.encode()}


def die():
    os.kill(os.getpid(), signal.SIGKILL)


ckpt = spot_runtime.Checkpointer.from_environment(
    keep=3, environ={"AIP_CHECKPOINT_DIR": directory, "CLOUD_ML_JOB_ID": "7"}, mount_root=mount_root
)
ckpt.restore()
ckpt.save(100, files(100))

write = ckpt.store.write
written = []


def killing_write(key, data):
    if key.startswith("step-000000000200/"):
        if kill_at == "manifest-started" and key.endswith("MANIFEST.json"):
            die()
        if kill_at == "replace" and key.endswith("rng.json"):
            # In the local store's write, after the temp file is written and fsynced, before the rename.
            local_store.os.replace = lambda *_: die()
    if kill_at == "progress" and key == "progress.json" and written and written[-1].endswith("MANIFEST.json"):
        die()
    write(key, data)
    written.append(key)
    if key.startswith("step-000000000200/"):
        data_files = [k for k in written if k.startswith("step-000000000200/") and not k.endswith("MANIFEST.json")]
        if kill_at == "data-1" and len(data_files) == 1:
            die()
        if kill_at == "data-all" and len(data_files) == 2:
            die()


ckpt.store.write = killing_write
ckpt.save(200, files(200))
print("the save finished: it was not killed", flush=True)
