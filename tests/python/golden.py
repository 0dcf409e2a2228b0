"""TensorFlow's golden files (tests/testdata/golden, written by TF 2.21) and their MANIFEST."""

import json
import os
import re
import struct

import numpy as np

from swigflow.io import FixedLenFeature, VarLenFeature

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "testdata", "golden")
with open(os.path.join(GOLDEN, "MANIFEST.json")) as f:
    MANIFEST = json.load(f)


def spec_from_manifest(text):
    """'FixedLen([3], float32)', 'FixedLen([], int64, default=-1)', 'VarLen(string)'."""
    if text.startswith("VarLen("):
        return VarLenFeature(text[len("VarLen(") : -1])
    m = re.fullmatch(r"FixedLen\(\[([\d, ]*)\], (\w+)(?:, default=(.+))?\)", text)
    shape = [int(d) for d in m.group(1).split(",") if d.strip()]
    default = None if m.group(3) is None else int(m.group(3))
    return FixedLenFeature(shape, m.group(2), default)


def as_manifest(values, dtype):
    """Values as the MANIFEST writes them: float32 bit patterns, bytes in hex, ints as text."""
    values = np.asarray(values).ravel()
    if dtype == np.float32:
        return [struct.pack("<f", v).hex() for v in values]
    if values.dtype == object:
        return [v.hex() for v in values]
    return [str(int(v)) for v in values]
