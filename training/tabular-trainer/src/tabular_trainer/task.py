"""Entry point Vertex AI runs (`pythonModule: tabular_trainer.task`).

Checkpoints go to AIP_CHECKPOINT_DIR, which Vertex derives from the job's
baseOutputDirectory; spot-training keeps that stable across resubmissions, so
a preempted run resumes where it stopped.
"""

import os


def main() -> None:
    checkpoint_dir = os.environ.get("AIP_CHECKPOINT_DIR", "/tmp/checkpoints")
    print(f"training; checkpoints in {checkpoint_dir}")


if __name__ == "__main__":
    main()
