"""The regions Vertex AI custom training runs in, from Google's table.

Source: "Agent Platform locations" (Vertex AI locations), the "Feature
availability" table: every region whose row lists "Custom model training".
https://docs.cloud.google.com/gemini-enterprise-agent-platform/machine-learning/general/locations
https://cloud.google.com/vertex-ai/docs/general/locations
Delhi (asia-south2) is among the available locations but has no row in the
feature table, so it is left out. A region Google adds before this table does
is allowed with `spot-training:extraRegions`.
"""

VERTEX_AI_REGIONS = (
    # Africa
    "africa-south1",
    # Asia Pacific
    "asia-east1", "asia-east2", "asia-northeast1", "asia-northeast2", "asia-northeast3",
    "asia-south1", "asia-southeast1", "asia-southeast2",
    "australia-southeast1", "australia-southeast2",
    # Europe
    "europe-central2", "europe-north1", "europe-southwest1",
    "europe-west1", "europe-west2", "europe-west3", "europe-west4", "europe-west6",
    "europe-west8", "europe-west9", "europe-west12",
    # Middle East
    "me-central1", "me-central2", "me-west1",
    # North America
    "northamerica-northeast1", "northamerica-northeast2",
    "us-central1", "us-east1", "us-east4", "us-east5", "us-south1",
    "us-west1", "us-west2", "us-west3", "us-west4",
    # South America
    "southamerica-east1", "southamerica-west1",
)
