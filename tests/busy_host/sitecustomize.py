"""Started in a provider host whose PYTHONPATH holds this directory (tests.provider_host.BUSY):
the interpreter switches threads every microsecond instead of every 5 ms, so calls served at once
interleave at nearly every bytecode, and a race between them shows in a few calls instead of once
in a thousand runs. Nothing else changes: the host is the SDK's, started as the engine starts it."""

import sys

sys.setswitchinterval(1e-6)
