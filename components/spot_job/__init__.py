"""The SpotTrainingJob resource: a Vertex AI CustomJob on Spot VMs.

Kept empty on purpose: the dynamic provider host re-imports
`components.spot_job.provider` by reference, and importing this package must not
pull in Pulumi resources or Google's client on the way.
"""
