"""The model: what a job is. Its inputs read once and typed (job_inputs), its state as last seen
(job_state), its spec's canonical form, shape and key (spec, shape, schema, values), its name
(job_name), the states Vertex reports (states), its labels (submission_labels), its training's
progress (progress), and the errors and redaction every floor above shares. Pure: no Pulumi, no
Google client; every other room points here, and this room points at nothing but `rules`."""
