"""gRPC handlers for google.cloud.aiplatform.v1.JobService and google.longrunning.Operations."""

from typing import Callable

import grpc
from google.cloud import aiplatform_v1
from google.cloud.aiplatform_v1.types import job_service
from google.longrunning import operations_pb2
from google.protobuf import empty_pb2

from tests.emulator.errors import ApiError
from tests.emulator.store import JobStore

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


class JobServiceServicer:
    def __init__(self, store: JobStore):
        self._store = store

    def CreateCustomJob(self, request):
        return self._store.create(request.parent, request.custom_job)

    def GetCustomJob(self, request):
        return self._store.get(request.name)

    def ListCustomJobs(self, request):
        jobs, token = self._store.list_page(request.parent, request.filter, request.page_size, request.page_token)
        return job_service.ListCustomJobsResponse(custom_jobs=jobs, next_page_token=token)

    def CancelCustomJob(self, request):
        self._store.cancel(request.name)
        return empty_pb2.Empty()

    def DeleteCustomJob(self, request):
        return self._store.delete(request.name)

    def GetOperation(self, request):
        return self._store.get_operation(request.name)

    def handlers(self) -> list[grpc.GenericRpcHandler]:
        return [self._service(JOB_SERVICE, _JOB_RPCS), self._service(OPERATIONS, _OPERATION_RPCS)]

    def _service(self, service: str, rpcs: dict) -> grpc.GenericRpcHandler:
        return grpc.method_handlers_generic_handler(service, {
            rpc: grpc.unary_unary_rpc_method_handler(
                self._dispatch(rpc, getattr(self, rpc)), request_deserializer=des, response_serializer=ser
            )
            for rpc, (des, ser) in rpcs.items()
        })

    def _dispatch(self, rpc: str, handler: Callable) -> Callable:
        # The one place every call passes through: fault injection, latency and quotas belong here.
        def call(request, context: grpc.ServicerContext):
            self._store.count(rpc)
            try:
                return handler(request)
            except ApiError as e:
                context.abort(e.code, e.message)

        return call
