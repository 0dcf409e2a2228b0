"""Writes tests/testdata/tfds/: small datasets prepared by TensorFlow Datasets 4.9.10 (with
TensorFlow 2.21) and what TFDS reads back from them.

Run once in a throwaway virtual environment (neither TFDS nor TensorFlow is a dependency of the
tests):

    pip install tensorflow-cpu==2.21.0 tensorflow-datasets==4.9.10 array-record pillow
    python tests/testdata/make_tfds_datasets.py

It prepares, with TFDS's own builders:
- sf_features: every feature connector swigflow.datasets decodes (nested dicts, Tensor and
  Scalar of every dtype, unknown dimensions, the bytes/zlib encodings, optional tensors,
  ClassLabel, Text, Image of 1/3/4 channels in PNG and JPEG and uint16 PNG, LabeledImage,
  BBoxFeature, Video, raw Audio, fixed/variable/nested Sequences, Translation and
  TranslationVariableLanguages), with splits train (20 shards, more than TFDS's interleave
  cycle of 16) and test (20 shards);
- sf_rlds: RLDS episodes (a Dataset feature of steps with images, actions, rewards,
  is_first/is_last/is_terminal) plus episode metadata;
- sf_configs: a builder with two configs and two versions (1.0.0 and 0.1.0);
- sf_classes: a supervised image classification set (ClassLabel names, supervised_keys), in
  TFRecord and in ArrayRecord format (which TFDS reads only through as_data_source).

golden.json.gz then records, without any TensorFlow type: every `info` field, what
`tfds.as_numpy(builder.as_dataset(...))` returns for each split expression (values, dtypes,
shapes, nesting), as_supervised, even_splits, ReadInstruction, ReadConfig(input_context=...),
and the error class and message TFDS gives for split strings it refuses.
tests/python/test_datasets_golden.py replays every case with swigflow.datasets.
"""

import base64
import functools
import gzip
import json
import os
import shutil

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf
import tensorflow_datasets as tfds
from PIL import Image

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tfds")
DATA = os.path.join(OUT, "data")  # TFRecord datasets
DATA_AR = os.path.join(OUT, "data_array_record")  # the same sf_features as ArrayRecord


def picture(h, w, c, seed, dtype=np.uint8):
    rng = np.random.RandomState(seed)
    top = 65535 if dtype == np.uint16 else 255
    y, x = np.mgrid[0:h, 0:w]
    base = (x * 37 + y * 11 + seed * 5) % (top + 1)
    img = np.stack([(base + 41 * k) % (top + 1) for k in range(c)], axis=-1)
    img = img + rng.randint(0, 3, img.shape)
    return np.clip(img, 0, top).astype(dtype)


def jpeg_bytes(img, quality=90):
    import io

    buf = io.BytesIO()
    Image.fromarray(img if img.shape[-1] != 1 else img[..., 0]).save(buf, "JPEG", quality=quality)
    return buf.getvalue()


LABELS = ["cat", "dog", "bird", "fish"]


class SfFeatures(tfds.core.GeneratorBasedBuilder):
    """Every feature connector, nested."""

    VERSION = tfds.core.Version("1.0.0")
    RELEASE_NOTES = {"1.0.0": "First release."}  # noqa: RUF012 - TFDS reads this attribute

    def _info(self):
        f = tfds.features
        scalars = {
            name: f.Scalar(dtype=getattr(np, name) if name != "bool" else np.bool_)
            for name in [
                "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "float16", "float32", "float64",
            ]
        }  # fmt: skip
        scalars["string"] = f.Scalar(dtype=np.str_)
        return tfds.core.DatasetInfo(
            builder=self,
            description="Every TFDS feature connector, for swigflow's tests.",
            homepage="https://example.com/sf_features",
            citation="@misc{sf_features, title={swigflow test data}}",
            features=f.FeaturesDict(
                {
                    "id": np.int64,
                    "scalars": scalars,
                    "tensors": {
                        "fixed": f.Tensor(shape=(2, 3), dtype=np.float32),
                        "first_unknown": f.Tensor(shape=(None, 2), dtype=np.int32),
                        "middle_unknown": f.Tensor(shape=(2, None), dtype=np.int16),
                        "strings": f.Tensor(shape=(None,), dtype=np.str_),
                        "bools": f.Tensor(shape=(3,), dtype=np.bool_),
                        "uint64": f.Tensor(shape=(2,), dtype=np.uint64),
                        "bytes_enc": f.Tensor(shape=(2, 2), dtype=np.float64, encoding="bytes"),
                        "zlib_enc": f.Tensor(shape=(None, 3), dtype=np.uint16, encoding="zlib"),
                        "dynamic": f.Tensor(shape=(None, None), dtype=np.float32, encoding="zlib"),
                        "optional": f.Tensor(shape=(2,), dtype=np.int32, optional=True),
                        "optional_scalar": f.Scalar(dtype=np.float32, optional=True),
                    },
                    "label": f.ClassLabel(names=LABELS),
                    "label_no_names": f.ClassLabel(num_classes=5),
                    "text": f.Text(),
                    "image_rgb_png": f.Image(shape=(None, None, 3), encoding_format="png"),
                    "image_gray_png": f.Image(shape=(None, None, 1), encoding_format="png"),
                    "image_rgba_png": f.Image(shape=(4, 5, 4), encoding_format="png"),
                    "image_u16_png": f.Image(shape=(None, None, 1), dtype=np.uint16),
                    "image_jpeg": f.Image(shape=(None, None, 3), encoding_format="jpeg"),
                    "image_any": f.Image(),
                    "segmentation": f.LabeledImage(labels=["bg", "fg", "edge"], shape=(4, 6, 1)),
                    "bbox": f.BBoxFeature(),
                    "bboxes": f.Sequence(f.BBoxFeature()),
                    "video": f.Video(shape=(None, 4, 5, 3), encoding_format="png"),
                    "audio": f.Audio(
                        file_format=None, shape=(None,), dtype=np.int16, sample_rate=8000
                    ),
                    "seq_scalar": f.Sequence(np.int64),
                    "seq_fixed": f.Sequence(f.Tensor(shape=(2,), dtype=np.float32), length=3),
                    "seq_dict": f.Sequence(
                        {"word": f.Text(), "score": np.float32, "tag": f.ClassLabel(names=LABELS)}
                    ),
                    "seq_nested": f.Sequence(f.Sequence(np.int32)),
                    "seq_images": f.Sequence(f.Image(shape=(3, 3, 3))),
                    "translation": f.Translation(languages=["de", "en", "fr"]),
                    "translation_var": f.TranslationVariableLanguages(languages=["de", "en", "fr"]),
                }
            ),
            supervised_keys=("image_rgb_png", "label"),
        )

    def _split_generators(self, dl_manager):
        return {"train": self._generate_examples(0, 60), "test": self._generate_examples(60, 85)}

    def _generate_examples(self, start, stop):
        for i in range(start, stop):
            rng = np.random.RandomState(i)
            n = i % 4  # lengths vary, and some are empty
            yield (
                i,
                {
                    "id": i,
                    "scalars": {
                        "bool": bool(i % 2),
                        "int8": -100 + i,
                        "int16": -30000 + i,
                        "int32": -(2**31) + i,
                        "int64": -(2**62) + i,
                        "uint8": 200 + i % 50,
                        "uint16": 65000 + i,
                        "uint32": 2**32 - 1 - i,
                        "float16": np.float16(i / 3),
                        "float32": np.float32(i / 7),
                        "float64": i / 9,
                        "string": f"s{i}-é",
                    },
                    "tensors": {
                        "fixed": rng.rand(2, 3).astype(np.float32),
                        "first_unknown": rng.randint(-9, 9, (n, 2)).astype(np.int32),
                        "middle_unknown": rng.randint(-9, 9, (2, n)).astype(np.int16),
                        "strings": np.array([f"w{i}_{k}" for k in range(n)], dtype=object),
                        "bools": np.array([i % 2 == 0, True, False]),
                        "uint64": np.array([2**64 - 1 - i, i], dtype=np.uint64),
                        "bytes_enc": rng.rand(2, 2),
                        "zlib_enc": rng.randint(0, 65535, (n + 1, 3)).astype(np.uint16),
                        "dynamic": rng.rand(n, n + 1).astype(np.float32),
                        "optional": None if i % 3 == 0 else np.array([i, -i], np.int32),
                        "optional_scalar": None if i % 4 == 1 else np.float32(i * 1.5),
                    },
                    "label": LABELS[i % 4],
                    "label_no_names": i % 5,
                    "text": f"example number {i} ✓",
                    "image_rgb_png": picture(3 + n, 5 + i % 3, 3, i),
                    "image_gray_png": picture(2 + i % 3, 4, 1, i),
                    "image_rgba_png": picture(4, 5, 4, i),
                    "image_u16_png": picture(3, 2 + n, 1, i, np.uint16),
                    "image_jpeg": picture(8 + n, 9, 3, i),
                    "image_any": picture(5, 4, 3, i + 1),
                    "segmentation": (picture(4, 6, 1, i) % 3).astype(np.uint8),
                    "bbox": tfds.features.BBox(0.1, 0.2, 0.5, 0.75),
                    "bboxes": [
                        tfds.features.BBox(0.0, 0.1 * k, 0.5, 0.2 + 0.1 * k) for k in range(n)
                    ],
                    "video": np.stack([picture(4, 5, 3, i * 10 + k) for k in range(1 + n)]),
                    "audio": rng.randint(-32768, 32767, 10 + i).astype(np.int16),
                    "seq_scalar": list(range(i, i + n)),
                    "seq_fixed": rng.rand(3, 2).astype(np.float32),
                    "seq_dict": {
                        "word": [f"w{k}" for k in range(n)],
                        "score": [k / 2 for k in range(n)],
                        "tag": [LABELS[k % 4] for k in range(n)],
                    },
                    "seq_nested": [list(range(k)) for k in range(n + 1)],
                    "seq_images": [picture(3, 3, 3, i + k) for k in range(n % 3)],
                    "translation": {"de": f"hallo {i}", "en": f"hello {i}", "fr": f"bonjour {i}"},
                    "translation_var": {"en": [f"hi {i}", "hey"], "fr": f"salut {i}"}
                    if i % 2
                    else {"de": f"tag {i}"},
                },
            )


class SfRlds(tfds.core.GeneratorBasedBuilder):
    """RLDS-shaped episodes."""

    VERSION = tfds.core.Version("1.0.0")

    def _info(self):
        f = tfds.features
        return tfds.core.DatasetInfo(
            builder=self,
            description="RLDS episodes for swigflow's tests.",
            features=f.FeaturesDict(
                {
                    "steps": f.Dataset(
                        {
                            "observation": {
                                "image": f.Image(shape=(6, 8, 3), encoding_format="png"),
                                "wrist_image": f.Image(shape=(4, 4, 3), encoding_format="jpeg"),
                                "state": f.Tensor(shape=(3,), dtype=np.float32),
                            },
                            "action": f.Tensor(shape=(2,), dtype=np.float32),
                            "reward": f.Scalar(dtype=np.float32),
                            "discount": f.Scalar(dtype=np.float32),
                            "is_first": np.bool_,
                            "is_last": np.bool_,
                            "is_terminal": np.bool_,
                            "language_instruction": f.Text(),
                        }
                    ),
                    "episode_metadata": {"file_path": f.Text(), "episode_id": np.int32},
                }
            ),
        )

    def _split_generators(self, dl_manager):
        return {"train": self._generate_examples(0, 12)}

    def _generate_examples(self, start, stop):
        for e in range(start, stop):
            rng = np.random.RandomState(100 + e)
            n = 2 + e % 5
            steps = []
            for t in range(n):
                steps.append(
                    {
                        "observation": {
                            "image": picture(6, 8, 3, e * 50 + t),
                            "wrist_image": picture(4, 4, 3, e * 70 + t),
                            "state": rng.rand(3).astype(np.float32),
                        },
                        "action": rng.rand(2).astype(np.float32),
                        "reward": np.float32(t == n - 1),
                        "discount": np.float32(1.0),
                        "is_first": t == 0,
                        "is_last": t == n - 1,
                        "is_terminal": t == n - 1 and e % 2 == 0,
                        "language_instruction": f"pick block {e}",
                    }
                )
            yield (
                f"episode_{e}",
                {
                    "steps": steps,
                    "episode_metadata": {"file_path": f"/data/ep{e}.npy", "episode_id": e},
                },
            )


class SfConfigsConfig(tfds.core.BuilderConfig):
    pass


class SfConfigs(tfds.core.GeneratorBasedBuilder):
    """Two configs, two versions."""

    VERSION = tfds.core.Version("1.0.0")
    BUILDER_CONFIGS = [  # noqa: RUF012 - TFDS reads this attribute
        SfConfigsConfig(name="small", description="Five examples."),
        SfConfigsConfig(name="large", description="Fifteen examples."),
    ]

    def _info(self):
        return tfds.core.DatasetInfo(
            builder=self,
            description="Configs and versions.",
            features=tfds.features.FeaturesDict({"x": np.int32, "name": tfds.features.Text()}),
        )

    def _split_generators(self, dl_manager):
        n = 5 if self.builder_config.name == "small" else 15
        return {"train": self._generate_examples(n)}

    def _generate_examples(self, n):
        for i in range(n):
            yield i, {"x": i * (2 if str(self.version) == "1.0.0" else 3), "name": f"n{i}"}


with tfds.core.registered.skip_registration():

    class SfConfigsOld(SfConfigs):
        """The same builder at an older version (TFDS prepares only a builder's VERSION)."""

        name = "sf_configs"
        VERSION = tfds.core.Version("0.1.0")


class SfClasses(tfds.core.GeneratorBasedBuilder):
    """Supervised image classification."""

    VERSION = tfds.core.Version("2.0.0")

    def _info(self):
        return tfds.core.DatasetInfo(
            builder=self,
            description="Image classification.",
            features=tfds.features.FeaturesDict(
                {
                    "image": tfds.features.Image(shape=(None, None, 3)),
                    "label": tfds.features.ClassLabel(names=LABELS),
                    "file_name": tfds.features.Text(),
                }
            ),
            supervised_keys=("image", "label"),
        )

    def _split_generators(self, dl_manager):
        return {
            "train": self._generate_examples(0, 40),
            "validation": self._generate_examples(40, 50),
        }

    def _generate_examples(self, start, stop):
        for i in range(start, stop):
            img = picture(10 + i % 7, 12 + i % 5, 3, i)
            yield i, {"image": jpeg_bytes(img), "label": i % 4, "file_name": f"img_{i}.jpg"}


# --- the golden: values without TensorFlow types -------------------------------------------------


def b64(data):
    return base64.b64encode(bytes(data)).decode("ascii")


def encode(value):
    """A JSON form of what tfds.as_numpy returns, exact for every dtype."""
    if isinstance(value, dict):
        return {"dict": {k: encode(v) for k, v in value.items()}}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, tf.RaggedTensor):
        return {
            "ragged": {
                "flat_values": encode(value.flat_values.numpy()),
                "row_lengths": [encode(r.numpy()) for r in value.nested_row_lengths()],
            }
        }
    if isinstance(value, (bytes, np.bytes_)):
        return {"bytes": b64(value)}
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "O":
            return {"strings": [b64(v) for v in value.reshape(-1)], "shape": list(value.shape)}
        return {
            "array": value.dtype.str,
            "shape": list(value.shape),
            "data": b64(np.ascontiguousarray(value).tobytes()),
        }
    if isinstance(value, np.generic):
        return {"scalar": value.dtype.str, "data": b64(value.tobytes())}
    if isinstance(value, list):  # the numpy path's ragged values
        return {"list": [encode(v) for v in value]}
    if isinstance(value, (bool, int, float, str)):  # the numpy path's scalars
        return {"python": type(value).__name__, "value": value}
    if hasattr(value, "__iter__"):  # a nested dataset (RLDS steps)
        return {"dataset": [encode(v) for v in value]}
    raise TypeError(f"cannot encode {type(value)}: {value!r}")


def describe_feature(feature):
    """The feature tree as swigflow.datasets exposes it: class, shape, dtype, names."""
    out = {"class": type(feature).__name__}
    if isinstance(feature, tfds.features.FeaturesDict):
        out["children"] = {k: describe_feature(v) for k, v in feature.items()}
        return out
    if isinstance(feature, tfds.features.Dataset):
        out["feature"] = describe_feature(feature.feature)
        return out
    if isinstance(feature, tfds.features.Sequence):
        out["length"] = feature._length
        out["feature"] = describe_feature(feature.feature)
        return out
    if isinstance(feature, (tfds.features.Translation,)):
        out["languages"] = list(feature.languages)
        return out
    if isinstance(feature, tfds.features.TranslationVariableLanguages):
        out["languages"] = list(feature.languages)
        return out
    out["shape"] = [d for d in feature.shape]
    dtype = np.dtype(feature.np_dtype)
    out["dtype"] = "object" if dtype.kind == "O" else dtype.name
    if isinstance(feature, tfds.features.ClassLabel):
        out["num_classes"] = feature.num_classes
        out["names"] = list(feature.names)
    return out


def describe_info(builder):
    info = builder.info
    return {
        "name": info.name,
        "full_name": info.full_name,
        "config_name": info.config_name,
        "version": str(info.version),
        "description": info.description,
        "homepage": info.homepage,
        "citation": info.citation,
        "file_format": info.file_format.value,
        "supervised_keys": list(info.supervised_keys) if info.supervised_keys else None,
        "splits": {
            name: {
                "num_examples": s.num_examples,
                "num_shards": s.num_shards,
                "shard_lengths": list(s.shard_lengths),
                "num_bytes": s.num_bytes,
                "filenames": [os.path.basename(f) for f in s.filenames],
            }
            for name, s in info.splits.items()
        },
        "features": describe_feature(info.features),
        "data_dir": os.path.relpath(builder.data_dir, OUT),
    }


def read(builder, split, **kwargs):
    ds = builder.as_dataset(split=split, shuffle_files=False, **kwargs)
    return [encode(e) for e in tfds.as_numpy(ds)]


def error_of(fn):
    try:
        fn()
    except Exception as e:
        return {"class": type(e).__name__, "message": str(e)}
    return None


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    cfg = tfds.download.DownloadConfig
    builders = {}

    b = SfFeatures(data_dir=DATA)
    b.download_and_prepare(download_config=cfg(num_shards=20))
    # Different shard counts per split: prepare test again alone is not possible, so the test
    # split's count comes from its size; 20 applies to both.
    builders["sf_features"] = b
    r = SfRlds(data_dir=DATA)
    r.download_and_prepare(download_config=cfg(num_shards=3))
    builders["sf_rlds"] = r
    for config in ("small", "large"):
        for version in ("1.0.0", "0.1.0"):
            cls = SfConfigs if version == "1.0.0" else SfConfigsOld
            c = cls(data_dir=DATA, config=config, version=version)
            c.download_and_prepare(download_config=cfg(num_shards=2))
            builders[f"sf_configs/{config}:{version}"] = c
    k = SfClasses(data_dir=DATA)
    k.download_and_prepare(download_config=cfg(num_shards=4))
    builders["sf_classes"] = k
    ar = SfClasses(data_dir=DATA_AR, file_format="array_record")
    ar.download_and_prepare(download_config=cfg(num_shards=3))
    builders["sf_classes_array_record"] = ar

    golden = {"info": {}, "reads": [], "errors": []}
    for key, builder in builders.items():
        golden["info"][key] = describe_info(builder)

    def record(key, builder, split, **kwargs):
        golden["reads"].append(
            {"builder": key, "split": split, "kwargs": sorted(kwargs),
             "examples": read(builder, split, **kwargs)}
        )  # fmt: skip

    fb = builders["sf_features"]
    for split in [
        "train", "test", "train[:10%]", "train[10:20]", "train[-5%:]+test", "train[:50%]",
        "train[1:-1]", "test[-3:]", "train[33%:66%]", "train[:1]", "test+train[:2]",
        "train[25%:]", "test[:34%]",
    ]:  # fmt: skip
        record("sf_features", fb, split)
    golden["reads"].append(
        {"builder": "sf_features", "split": "test", "kwargs": ["as_supervised"],
         "examples": [encode(e) for e in tfds.as_numpy(
             fb.as_dataset(split="test", shuffle_files=False, as_supervised=True))]}
    )  # fmt: skip
    # A list of splits gives a list of datasets.
    golden["list_split"] = [
        [encode(e) for e in tfds.as_numpy(ds)]
        for ds in fb.as_dataset(split=["test[:2]", "train[3:5]"], shuffle_files=False)
    ]
    ri = [
        ("train", 10, 60, "%", "closest"),
        ("train", 10, 60, "%", "pct1_dropremainder"),
        ("test", 0, 33, "%", "closest"),
        ("test", 0, 33, "%", "pct1_dropremainder"),
        ("train", -7, None, "abs", "closest"),
    ]
    golden["read_instructions"] = []
    for name, from_, to, unit, rounding in ri:
        inst = tfds.core.ReadInstruction(name, from_=from_, to=to, unit=unit, rounding=rounding)
        case = {"args": [name, from_, to, unit, rounding], "str": str(inst)}
        try:
            case["examples"] = read(fb, inst)
        except ValueError as e:  # pct1_dropremainder on fewer than 100 examples
            case["error"] = {"class": type(e).__name__, "message": str(e)}
        golden["read_instructions"].append(case)

    def ids(split):
        ds = fb.as_dataset(split=split, shuffle_files=False)
        return [int(e["id"]) for e in tfds.as_numpy(ds)]

    golden["even_splits"] = [
        {"split": split, "n": n, "drop_remainder": drop,
         "ids": [ids(s) for s in tfds.even_splits(split, n=n, drop_remainder=drop)]}
        for split, n, drop in [
            ("train", 2, False), ("train", 7, False), ("test", 4, True),
            ("train[10%:]+test[:5]", 3, False),
        ]
    ]  # fmt: skip
    golden["even_splits_added"] = ids(tfds.even_splits("test", n=3)[2] + "train[:2]")
    golden["input_context"] = []
    for pipelines, pid in ((2, 0), (2, 1), (3, 2)):
        ctx = tf.distribute.InputContext(num_input_pipelines=pipelines, input_pipeline_id=pid)
        rc = tfds.ReadConfig(input_context=ctx)
        golden["input_context"].append(
            {"num_input_pipelines": pipelines, "input_pipeline_id": pid, "split": "train",
             "ids": [int(e["id"]) for e in tfds.as_numpy(
                 fb.as_dataset(split="train", shuffle_files=False, read_config=rc))]}
        )  # fmt: skip
    # ArrayRecord: TFDS reads it only as a random-access data source (its numpy path).
    source = builders["sf_classes_array_record"].as_data_source(split="train[:7]+validation")
    golden["array_record_source"] = {
        "split": "train[:7]+validation",
        "length": len(source),
        "examples": [encode(source[i]) for i in range(len(source))],
    }
    record("sf_rlds", builders["sf_rlds"], "train")
    record("sf_rlds", builders["sf_rlds"], "train[2:4]")
    for key in ("sf_configs/small:1.0.0", "sf_configs/large:0.1.0"):
        record(key, builders[key], "train")
    record("sf_classes", builders["sf_classes"], "validation")
    golden["reads"].append(
        {"builder": "sf_classes", "split": "validation", "kwargs": ["as_supervised"],
         "examples": [encode(e) for e in tfds.as_numpy(k.as_dataset(
             split="validation", shuffle_files=False, as_supervised=True))]}
    )  # fmt: skip
    # tfds.load as a user calls it: latest version, default config.
    golden["load_default"] = {
        "sf_configs": describe_info(tfds.builder("sf_configs", data_dir=DATA)),
    }

    for split in [
        "nosuch", "train[:200%]", "train[abc]", "train[:10%]+nosuch", "train[5:2]",
        "train[0.5%:]", "train[:-0%]", "train[10:10]", "test[:0]", "",
    ]:  # fmt: skip
        error = error_of(functools.partial(read, fb, split))
        golden["errors"].append({"split": split, "error": error})
    with gzip.open(os.path.join(OUT, "golden.json.gz"), "wt", encoding="utf-8") as f:
        json.dump(golden, f, sort_keys=True)
    # Downloads and the temporary folders TFDS leaves are not part of the datasets.
    for root in (DATA, DATA_AR):
        shutil.rmtree(os.path.join(root, "downloads"), ignore_errors=True)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
