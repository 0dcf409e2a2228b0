"""TensorFlow's error messages as recorded by the tests/testdata/make_tf_*.py generators."""

import re


def bare(message):
    """The message without TensorFlow's eager-function prefix ("{{function_node ...}} ") and
    its " [Op:Name]" / " name: " tail (with the op's name, where the Python function gives
    one): the words swigflow's errors say."""
    message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", message)
    return re.sub(r" \[Op:\w+\]( name: \w*)?$", "", message.removesuffix(" name: "))
