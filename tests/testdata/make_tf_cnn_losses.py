"""Writes tests/testdata/tf_cnn/losses.json: TensorFlow 2.21's loss at each of 300 SGD steps of
examples/cnn_training.py's CNN (the same function, data and initial weights, run with
`import tensorflow as tf`). tests/python/test_cnn_training.py compares swigflow's losses with
these step by step. Run once in a throwaway venv with tensorflow-cpu:

    python tests/testdata/make_tf_cnn_losses.py
"""

import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tf_cnn", "losses.json")
STEPS = 300


def load_example():
    path = os.path.join(HERE, "..", "..", "examples", "cnn_training.py")
    spec = importlib.util.spec_from_file_location("cnn_training", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    import tensorflow as tf

    losses = load_example().train(tf, STEPS)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"tensorflow": tf.__version__, "steps": STEPS, "losses": losses}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
