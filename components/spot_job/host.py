"""The SDK's dynamic provider host, the process the engine runs the provider in,
and the threads its calls run on.

The engine starts `python -m pulumi.dynamic` (pulumi/dynamic/__main__.py): a
sync gRPC server on `ThreadPoolExecutor(max_workers=4)`, with no limit on the
calls it accepts. A call that finds the 4 threads busy waits in the executor's
queue, behind every call that came before it, whatever it is. So four calls
that wait (for a quota slot, or on a job) held up every diff and read of the
stack: issue 21 saw a diff that makes no call wait 14.8 s behind creates paced
to the submission quota.

A provider call cannot give its thread back while it waits: the server is
sync, and a call's answer is due on the thread that runs it. What can be chosen
is which threads run which calls: grpc's server runs a method on the executor
named by its handler's `experimental_thread_pool` attribute, read at every
call, else on the server's own. So, once per process, the calls that reach
Vertex AI get threads of the provider's own:

- the host's own 4 threads: Check and Diff (and the SDK's Configure and the
  like), which make no call to Vertex AI and never wait: a diff always finds a
  thread;
- READ_THREADS for Read: a read waits only for its own region's slot of the
  600-a-minute request quota, or for the listing of its stack's jobs that the
  reads arriving with it share (client/read_coalescer.py), never behind a
  submission;
- CHANGE_THREADS for Create, Update and Delete: they wait for quota slots of
  either kind, and at most blocking.MAX_BLOCKING_CALLS of them at once on a job
  (blocking.py), so the others, a delete's cancel among them, always find one
  of these threads.

So none of the host's own threads is ever held waiting, on a quota or a job.
Attributes of the SDK's servicer and an experimental grpc hook: with an SDK or
grpc that no longer has them, nothing is changed and every call runs on the
host's 4 threads as before (tests/test_host_concurrency.py shows the difference).

Module state on purpose: the host imports this module once and keeps it.
"""

from __future__ import annotations

import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from types import FunctionType, ModuleType

# A refresh's reads of one stack wait together for the one listing that serves them
# (client/read_coalescer.py): as many as the engine sends at once (`--parallel`, 4 per CPU by
# default) find a thread, up to a 4-CPU machine's; more wait in the pool's queue, as before.
READ_THREADS = 16
CHANGE_THREADS = 4  # as many creates, updates and deletes at once as the host served before
# The host servicer's methods, by the threads they run on.
_READS = ("Read",)
_CHANGES = ("Create", "Update", "Delete")

_arranging = threading.Lock()


def module() -> ModuleType | None:
    """The host's module (`pulumi.dynamic.__main__`, run as `__main__`), if this process is the host."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return main if getattr(spec, "name", None) == "pulumi.dynamic.__main__" else None


def give_calls_to_vertex_threads_of_their_own() -> None:
    """In the host only, once per process: Read, and Create, Update and Delete, run on the
    provider's own threads from the next call on (see the module's docstring)."""
    servicer = getattr(module(), "DynamicResourceProviderServicer", None)
    methods = [getattr(servicer, name, None) for name in (*_READS, *_CHANGES)]
    if not all(isinstance(method, FunctionType) for method in methods):
        return  # not the host, or one laid out otherwise: its own threads serve every call
    with _arranging:  # the host configures each provider it unpickles: the first does it
        if getattr(getattr(servicer, _READS[0], None), "experimental_thread_pool", None) is not None:
            return
        for names, threads, role in ((_READS, READ_THREADS, "reads"), (_CHANGES, CHANGE_THREADS, "changes")):
            pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=f"spot-training-{role}")
            for name in names:
                # A function's attribute, which the handler's bound method reads through.
                getattr(servicer, name).experimental_thread_pool = pool
