"""What the sandbox's stand-in provider plugins share: the engine's property encoding, and serving.

A plugin is a gRPC ResourceProvider server on the stubs the Pulumi Python SDK
ships (`pulumi.runtime.proto`), started by the engine as `pulumi-resource-<name>`
(sandbox/bin/): it prints its port and serves until it is killed. Properties
travel as the engine's JSON-shaped Struct, in which a secret, an unknown and an
asset are objects with the engine's signature key: a secret or an unknown is
answered back unchanged, so the engine keeps it secret or unknown.
"""

from __future__ import annotations

import json
import sys
import threading
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format, struct_pb2
from pulumi.runtime.proto import provider_pb2_grpc

SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
ASSET_SIG = "c44067f5952c0a294b673a41bacd8c17"
UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9"  # how the engine's Struct carries a value not known yet


def as_dict(struct: struct_pb2.Struct | None) -> dict[str, Any]:
    return json_format.MessageToDict(struct) if struct is not None else {}


def as_struct(value: dict[str, Any]) -> struct_pb2.Struct:
    s = struct_pb2.Struct()
    s.update(value)
    return s


def plain(value: Any) -> Any:
    """A value with the engine's secret wrapper taken off (to compute outputs from it)."""
    if isinstance(value, dict) and value.get(SIG_KEY) == SECRET_SIG:
        return value.get("value")
    return value


def secret(value: Any) -> dict[str, Any]:
    return {SIG_KEY: SECRET_SIG, "value": value}


def asset_bytes(value: Any) -> bytes | None:
    """The content of an asset the engine passed (a file's `path` or a `text`), None if it is not one."""
    value = plain(value)
    if not isinstance(value, dict) or value.get(SIG_KEY) != ASSET_SIG:
        return None
    if "text" in value:
        return str(value["text"]).encode()
    if "path" in value:
        return Path(value["path"]).read_bytes()
    return None


def resource_type(urn: str) -> str:
    # urn:pulumi:stack::project::parent$type::name
    return urn.split("::")[2].split("$")[-1]


class CallLog:
    """Every call a plugin is asked, one JSON line each, in the file STAND_IN_GCP_LOG names (the engine
    tests read it to check what the engine asked); nothing without it."""

    def __init__(self, path: str | None) -> None:
        self._path = path
        self._lock = threading.Lock()

    def record(self, method: str, **fields: Any) -> None:
        if not self._path:
            return
        with self._lock, open(self._path, "a") as f:
            f.write(json.dumps({"method": method, **fields}) + "\n")


def serve(provider: provider_pb2_grpc.ResourceProviderServicer) -> None:
    """Serve on a free loopback port, print it for the engine, and run until killed."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    provider_pb2_grpc.add_ResourceProviderServicer_to_server(provider, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    sys.stdout.write(f"{port}\n")
    sys.stdout.flush()
    server.wait_for_termination()
