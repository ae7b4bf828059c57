"""The regions Vertex AI custom training runs in: gcloud's own list.

Source: the Google Cloud CLI's `SUPPORTED_TRAINING_REGIONS` ("Available regions
specifically for training, including custom-jobs and hp-tuning-jobs"), the
regions `gcloud ai custom-jobs create --region` takes, in
lib/googlecloudsdk/command_lib/ai/constants.py of Cloud SDK 578.0.0
(google-cloud-sdk-unofficial/google-cloud-sdk 4643fc9cc204607d05324c032052b6a3d118711c,
2026-08-04). It names every region of the "Feature availability" table's
"Custom model training" rows and four more (asia-south2, europe-north2,
europe-west15, us-west8):
https://cloud.google.com/vertex-ai/docs/general/locations
The accelerator table (components/spot_job/rules/region_offers.py) has a row,
or a word that it has none, for each; tests/test_region_offers.py keeps the two in step.
A region Google adds before this list does is allowed with `spot-training:extraRegions`.
"""

VERTEX_AI_REGIONS = (
    # Africa
    "africa-south1",
    # Asia Pacific
    "asia-east1", "asia-east2", "asia-northeast1", "asia-northeast2", "asia-northeast3",
    "asia-south1", "asia-south2", "asia-southeast1", "asia-southeast2",
    "australia-southeast1", "australia-southeast2",
    # Europe
    "europe-central2", "europe-north1", "europe-north2", "europe-southwest1",
    "europe-west1", "europe-west2", "europe-west3", "europe-west4", "europe-west6",
    "europe-west8", "europe-west9", "europe-west12", "europe-west15",
    # Middle East
    "me-central1", "me-central2", "me-west1",
    # North America
    "northamerica-northeast1", "northamerica-northeast2",
    "us-central1", "us-east1", "us-east4", "us-east5", "us-south1",
    "us-west1", "us-west2", "us-west3", "us-west4", "us-west8",
    # South America
    "southamerica-east1", "southamerica-west1",
)
