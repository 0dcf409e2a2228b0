"""The golden-data generators beside this file (make_tf_*.py), loaded as modules by the tests
that run their cases again through swigflow. Loading runs no generator: each imports
TensorFlow (or Keras) only in its main()."""

import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    """tests/testdata/<name>.py as a module (its data target puts it in the test's runfiles).

    Args:
        name: the generator's file name without ".py", e.g. "make_tf_math".

    Returns:
        The module.
    """
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
