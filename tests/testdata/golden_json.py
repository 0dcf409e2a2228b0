"""How the make_tf_*.py generators write their golden JSON, once: the folder made, indented,
keys sorted, a final newline (so regenerated files diff line by line)."""

import json
import os


def write(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f, indent=1, sort_keys=True)
        f.write("\n")
