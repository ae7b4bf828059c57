"""The client: Vertex AI's JobService through the aiplatform_v1 GAPIC client (job_service, imported
lean by gapic_import), paced to the region's request quotas (quota_pacing), and the one Cloud Storage
read of a progress record (progress_record). Imported only inside provider methods: it pulls in the
Google clients."""
