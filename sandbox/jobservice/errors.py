import grpc


class ApiError(Exception):
    """A failure the servicer turns into a gRPC status, so the store needs no grpc context."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def invalid(message: str) -> ApiError:
    return ApiError(grpc.StatusCode.INVALID_ARGUMENT, message)
