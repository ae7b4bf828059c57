"""The local sandbox: the stack's program under the real engine against local services, on this machine."""
