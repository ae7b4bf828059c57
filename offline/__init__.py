"""The program without Google Cloud or the Pulumi CLI: Pulumi's mocks standing in for the engine."""
