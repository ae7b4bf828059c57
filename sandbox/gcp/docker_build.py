"""StandInDockerBuildProvider: the sandbox's stand-in for the `docker-build` plugin (pulumi-docker-build).

No image is built and nothing is pushed: the sandbox uses no container engine,
and a containerSpec job's image is never run there (its lifecycle is simulated,
docs/sandbox.md). What an `Image` gives the program is what a build would give
it, computed without one: `contextHash`, the SHA-256 of the build context's
files (their paths and bytes, sorted) and the Dockerfile, and `digest`, a
sha256 made from that hash and the tags, so a change of the context is a new
digest and resubmits the jobs that run the image, as a real rebuild does; `ref`
is the first tag at that digest. At preview both are unknown, as the real
plugin leaves them without `buildOnPreview`.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import empty_pb2
from pulumi.runtime.proto import plugin_pb2, provider_pb2, provider_pb2_grpc

from sandbox.gcp.plugin import UNKNOWN, CallLog, as_dict, as_struct, plain, serve

# What a build context never holds of the image: as `docker build` reads .dockerignore, the sandbox skips these.
_NOT_CONTEXT = {".git", ".venv", "__pycache__", ".pytest_cache", ".sandbox", ".engine"}


def context_hash(context: str, dockerfile: str | None) -> str:
    """The SHA-256 of the context's files (relative path, then bytes; sorted) and the Dockerfile."""
    root = Path(context)
    digest = hashlib.sha256()
    files = sorted(p for p in root.rglob("*") if p.is_file() and not _NOT_CONTEXT & set(p.relative_to(root).parts)) if root.is_dir() else []
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    named = Path(dockerfile) if dockerfile else root / "Dockerfile"
    if named.is_file():
        digest.update(b"Dockerfile\0" + named.read_bytes())
    return digest.hexdigest()


def built(inputs: dict[str, Any]) -> dict[str, Any]:
    """The outputs of a build of `inputs`: the inputs, contextHash, digest and ref."""
    i = {k: plain(v) for k, v in inputs.items()}
    context = ((i.get("context") or {}).get("location")) or "."
    dockerfile = (i.get("dockerfile") or {}).get("location")
    hashed = context_hash(context, dockerfile)
    tags = [str(t) for t in i.get("tags") or []]
    digest = "sha256:" + hashlib.sha256((hashed + "\0" + "\0".join(tags)).encode()).hexdigest()
    ref = f"{tags[0]}@{digest}" if tags else digest
    return {**inputs, "contextHash": hashed, "digest": digest, "ref": ref}


class StandInDockerBuildProvider(provider_pb2_grpc.ResourceProviderServicer):
    def __init__(self, log_path: str | None) -> None:
        self._log = CallLog(log_path)

    def GetPluginInfo(self, request: empty_pb2.Empty, context: grpc.ServicerContext) -> plugin_pb2.PluginInfo:
        return plugin_pb2.PluginInfo(version=importlib.metadata.version("pulumi_docker_build"))

    def CheckConfig(self, request: provider_pb2.CheckRequest, context: grpc.ServicerContext) -> provider_pb2.CheckResponse:
        return provider_pb2.CheckResponse(inputs=request.news)

    def DiffConfig(self, request: provider_pb2.DiffRequest, context: grpc.ServicerContext) -> provider_pb2.DiffResponse:
        return provider_pb2.DiffResponse(changes=provider_pb2.DiffResponse.DIFF_NONE)

    def Configure(self, request: provider_pb2.ConfigureRequest, context: grpc.ServicerContext) -> provider_pb2.ConfigureResponse:
        return provider_pb2.ConfigureResponse(acceptSecrets=True, supportsPreview=True, acceptResources=True)

    def Check(self, request: provider_pb2.CheckRequest, context: grpc.ServicerContext) -> provider_pb2.CheckResponse:
        return provider_pb2.CheckResponse(inputs=request.news)

    def Diff(self, request: provider_pb2.DiffRequest, context: grpc.ServicerContext) -> provider_pb2.DiffResponse:
        olds, news = as_dict(request.old_inputs) or as_dict(request.olds), as_dict(request.news)
        changed = sorted(k for k in set(olds) | set(news) if olds.get(k) != news.get(k))
        # A rebuild is seen by its context: the real plugin diffs contextHash, not only the inputs.
        if UNKNOWN not in str(news) and built(news)["contextHash"] != as_dict(request.olds).get("contextHash"):
            changed = sorted({*changed, "contextHash"})
        self._log.record("Diff", urn=request.urn, changed=changed)
        return provider_pb2.DiffResponse(
            changes=provider_pb2.DiffResponse.DIFF_SOME if changed else provider_pb2.DiffResponse.DIFF_NONE, diffs=changed
        )

    def Create(self, request: provider_pb2.CreateRequest, context: grpc.ServicerContext) -> provider_pb2.CreateResponse:
        inputs = as_dict(request.properties)
        outs = {**inputs, "contextHash": UNKNOWN, "digest": UNKNOWN, "ref": UNKNOWN} if request.preview else built(inputs)
        self._log.record("Create", urn=request.urn, preview=request.preview, inputs=inputs)
        name = request.urn.split("::")[-1]
        return provider_pb2.CreateResponse(id="" if request.preview else f"{name}-{outs['digest'][7:19]}", properties=as_struct(outs))

    def Read(self, request: provider_pb2.ReadRequest, context: grpc.ServicerContext) -> provider_pb2.ReadResponse:
        return provider_pb2.ReadResponse(id=request.id, properties=request.properties, inputs=request.inputs)

    def Update(self, request: provider_pb2.UpdateRequest, context: grpc.ServicerContext) -> provider_pb2.UpdateResponse:
        news = as_dict(request.news)
        outs = {**news, "contextHash": UNKNOWN, "digest": UNKNOWN, "ref": UNKNOWN} if request.preview else built(news)
        return provider_pb2.UpdateResponse(properties=as_struct(outs))

    def Delete(self, request: provider_pb2.DeleteRequest, context: grpc.ServicerContext) -> empty_pb2.Empty:
        return empty_pb2.Empty()

    def Cancel(self, request: empty_pb2.Empty, context: grpc.ServicerContext) -> empty_pb2.Empty:
        return empty_pb2.Empty()


if __name__ == "__main__":
    serve(StandInDockerBuildProvider(os.environ.get("STAND_IN_GCP_LOG")))
