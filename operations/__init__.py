"""Commands run against a deployed stack, beside `pulumi` (`python -m operations.<command>`).

They may use components.spot_job's pure modules and its Vertex adapter
(labels, spec, vertex); nothing under components imports them.
"""
