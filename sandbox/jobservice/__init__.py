"""Vertex AI's JobService, emulated: the CustomJob API the real aiplatform_v1 client speaks, over gRPC.

Laid out as LocalStack lays out a service: models.py is the store (jobs,
operations, the state machine), provider.py the API as Vertex defines it,
developer_api.py the controls only an emulator has (preempt), runner.py what
runs a job's code. What it emulates and what it does not: docs/sandbox.md.
"""
