"""The regions Vertex AI custom training runs in, from Google's table.

Source: "Vertex AI locations", https://cloud.google.com/vertex-ai/docs/general/locations
(the "Available locations" list of Vertex AI regions). A region Google adds
before this table does is allowed with `spot-training:extraRegions`.
"""

VERTEX_AI_REGIONS = (
    # United States
    "us-central1", "us-east1", "us-east4", "us-east5", "us-south1", "us-west1", "us-west2", "us-west3", "us-west4",
    # Canada
    "northamerica-northeast1", "northamerica-northeast2",
    # South America
    "southamerica-east1", "southamerica-west1",
    # Europe
    "europe-central2", "europe-north1", "europe-southwest1", "europe-west1", "europe-west2", "europe-west3",
    "europe-west4", "europe-west6", "europe-west8", "europe-west9",
    # Asia Pacific
    "asia-east1", "asia-east2", "asia-northeast1", "asia-northeast3", "asia-south1", "asia-southeast1",
    "australia-southeast1",
    # Middle East
    "me-central1", "me-central2", "me-west1",
)
