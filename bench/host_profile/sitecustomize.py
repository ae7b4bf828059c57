"""Loaded by the dynamic provider host only when `python -m bench.engine --profile` puts this
folder on the host's PYTHONPATH (BENCH_ENGINE_PROFILE names the output folder): every provider
call the engine sends (Check, Diff, Create, Read, Update, Delete) is timed, and with
BENCH_ENGINE_CPROFILE=1 also run under its own cProfile.Profile (per thread: Python 3.11's
cProfile profiles the thread that enables it; its timer is the wall clock, so waits count).

The host is a sync gRPC server whose servicer class is defined in `pulumi.dynamic.__main__`;
its methods are wrapped when that module calls `grpc.server`, before it serves a call, so the
provider's own `host.give_calls_to_vertex_threads_of_their_own` still finds plain functions.
"""

from __future__ import annotations

import os

_OUT = os.environ.get("BENCH_ENGINE_PROFILE")

if _OUT:
    import cProfile
    import functools
    import itertools
    import json
    import sys
    import threading
    import time

    import grpc

    _METHODS = ("Check", "Diff", "Create", "Read", "Update", "Delete")
    _CPROFILE = os.environ.get("BENCH_ENGINE_CPROFILE") == "1"
    _counter = itertools.count()
    _write = threading.Lock()
    _serve = grpc.server

    def _timed(name, method):
        @functools.wraps(method)
        def call(self, request, context):
            n = next(_counter)
            profile = cProfile.Profile() if _CPROFILE else None
            start = time.time()
            if profile:
                profile.enable()
            try:
                return method(self, request, context)
            finally:
                if profile:
                    profile.disable()
                end = time.time()
                if profile:
                    profile.dump_stats(os.path.join(_OUT, f"{name}-{os.getpid()}-{n}.prof"))
                line = json.dumps({"method": name, "start": start, "end": end, "thread": threading.current_thread().name})
                with _write, open(os.path.join(_OUT, f"calls-{os.getpid()}.jsonl"), "a") as out:
                    out.write(line + "\n")

        return call

    def _server(*args, **kwargs):
        servicer = getattr(sys.modules.get("__main__"), "DynamicResourceProviderServicer", None)
        if servicer is not None and not getattr(servicer, "_bench_timed", False):
            for name in _METHODS:
                setattr(servicer, name, _timed(name, getattr(servicer, name)))
            servicer._bench_timed = True
        return _serve(*args, **kwargs)

    grpc.server = _server
