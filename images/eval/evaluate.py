import os

print(f"evaluating the model in {os.environ.get('AIP_MODEL_DIR', '(no model dir)')}")
