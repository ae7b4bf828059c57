"""gRPC handlers for google.cloud.aiplatform.v1.JobService and google.longrunning.Operations."""

import threading
from collections.abc import Callable
from typing import Any

import grpc
from google.cloud import aiplatform_v1
from google.cloud.aiplatform_v1.types import job_service
from google.longrunning import operations_pb2
from google.protobuf import empty_pb2

from sandbox.jobservice.errors import ApiError
from sandbox.jobservice.interposer import CallDelay, CallFault
from sandbox.jobservice.models import JobStore

JOB_SERVICE = "google.cloud.aiplatform.v1.JobService"
OPERATIONS = "google.longrunning.Operations"

# rpc name -> (request deserializer, response serializer), as in aiplatform_v1's grpc transport.
_JOB_RPCS = {
    "CreateCustomJob": (job_service.CreateCustomJobRequest.deserialize, aiplatform_v1.CustomJob.serialize),
    "GetCustomJob": (job_service.GetCustomJobRequest.deserialize, aiplatform_v1.CustomJob.serialize),
    "ListCustomJobs": (job_service.ListCustomJobsRequest.deserialize, job_service.ListCustomJobsResponse.serialize),
    "CancelCustomJob": (job_service.CancelCustomJobRequest.deserialize, empty_pb2.Empty.SerializeToString),
    "DeleteCustomJob": (job_service.DeleteCustomJobRequest.deserialize, operations_pb2.Operation.SerializeToString),
}
_OPERATION_RPCS = {
    "GetOperation": (operations_pb2.GetOperationRequest.FromString, operations_pb2.Operation.SerializeToString),
}
RPCS = frozenset(_JOB_RPCS) | frozenset(_OPERATION_RPCS)


class JobServiceServicer:
    def __init__(self, store: JobStore, stopped: threading.Event) -> None:
        self._store = store
        self._stopped = stopped

    def CreateCustomJob(self, request: job_service.CreateCustomJobRequest) -> aiplatform_v1.CustomJob:
        return self._store.create(request.parent, request.custom_job)

    def GetCustomJob(self, request: job_service.GetCustomJobRequest) -> aiplatform_v1.CustomJob:
        return self._store.get(request.name)

    def ListCustomJobs(self, request: job_service.ListCustomJobsRequest) -> job_service.ListCustomJobsResponse:
        jobs, token = self._store.list_page(request.parent, request.filter, request.page_size, request.page_token)
        return job_service.ListCustomJobsResponse(custom_jobs=jobs, next_page_token=token)

    def CancelCustomJob(self, request: job_service.CancelCustomJobRequest) -> empty_pb2.Empty:
        self._store.cancel(request.name)
        return empty_pb2.Empty()

    def DeleteCustomJob(self, request: job_service.DeleteCustomJobRequest) -> operations_pb2.Operation:
        return self._store.delete(request.name)

    def GetOperation(self, request: operations_pb2.GetOperationRequest) -> operations_pb2.Operation:
        return self._store.get_operation(request.name)

    def handlers(self) -> list[grpc.GenericRpcHandler]:
        return [self._service(JOB_SERVICE, _JOB_RPCS), self._service(OPERATIONS, _OPERATION_RPCS)]

    def _service(self, service: str, rpcs: dict[str, tuple[Callable[[bytes], Any], Callable[[Any], bytes]]]) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(service, {
            rpc: grpc.unary_unary_rpc_method_handler(
                self._dispatch(rpc, getattr(self, rpc)), request_deserializer=des, response_serializer=ser
            )
            for rpc, (des, ser) in rpcs.items()
        })

    def _dispatch(self, rpc: str, handler: Callable[[Any], Any]) -> Callable[[Any, grpc.ServicerContext], Any]:
        # The one place every call passes through: fault injection, latency and quotas belong here.
        def call(request: Any, context: grpc.ServicerContext) -> Any:  # a request and answer of the rpc's own type
            fault, delay, generation = self._store.begin(rpc)
            if delay and not delay.after_apply:
                self._wait(delay, context)
            try:
                answer = self._apply(rpc, handler, request, fault, generation)
            except ApiError as e:
                answer = e
            if delay and delay.after_apply:
                self._wait(delay, context)  # the answer is late, whether it is a result or an error
            if isinstance(answer, ApiError):
                self._store.failed(rpc, answer.code)
                context.abort(answer.code, answer.message)
            return answer

        return call

    def _apply(self, rpc: str, handler: Callable[[Any], Any], request: Any, fault: CallFault | None, generation: int) -> Any:
        if fault and not fault.after_apply and fault.lands_after is None:
            raise fault.error()
        resource = getattr(request, "name", "") or getattr(request, "parent", "")
        self._store.check_project(resource)
        self._store.meter(rpc, resource)  # a call rejected before this point does not use quota
        if fault and fault.lands_after is not None:
            # Accepted, validated and on its way, but the answer the client gets is the error.
            self._store.create_later(request.parent, request.custom_job, fault.lands_after, generation)
            raise fault.error()
        answer = handler(request)
        if fault:
            raise fault.error()  # after_apply: done, but the client hears it failed
        return answer

    def _wait(self, delay: CallDelay, context: grpc.ServicerContext) -> None:
        # Sleep on the stop event, not time.sleep: a stopping emulator must not wait out a long delay,
        # nor carry out a request whose client is gone.
        if self._stopped.wait(delay.seconds):
            context.abort(grpc.StatusCode.UNAVAILABLE, "The emulator stopped.")
