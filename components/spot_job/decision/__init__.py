"""The decision: what preview, `up` and destroy do with a job (verdict), by the resubmission policy
(resubmission_policy), in words a reviewer reads (change_lines). Pure: it takes the model's typed
values and returns plans; the provider carries them out through the protocol."""
