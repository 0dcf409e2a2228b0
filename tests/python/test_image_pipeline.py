"""Dataset.decode_images: the native step against swigflow.image's own functions (which the
golden tests tie to TensorFlow), determinism and resumption of random crops, the on_error
policies, layouts and normalization, and bounded decoding of hostile headers."""

import json
import logging
import os

import numpy as np
import pytest

import swigflow as sf
from swigflow import errors

SPEC = {
    "image/encoded": sf.io.FixedLenFeature([], "string"),
    "image/class/label": sf.io.FixedLenFeature([], "int64"),
}


def _picture(seed, height=75, width=101):
    y, x = np.mgrid[0:height, 0:width]
    img = np.stack([(x * 3 + seed * 11) % 256, (y * 5) % 256, ((x + y) * 2 + seed) % 256], -1)
    return img.astype(np.uint8)


def _example(data, label):
    feature = {
        "image/encoded": sf.train.Feature(bytes_list=sf.train.BytesList(value=[data])),
        "image/class/label": sf.train.Feature(int64_list=sf.train.Int64List(value=[label])),
    }
    return sf.train.Example(features=sf.train.Features(feature=feature)).SerializeToString()


@pytest.fixture(scope="module")
def shard(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("img") / "images.tfrecord")
    images = []
    with sf.io.TFRecordWriter(path) as w:
        for i in range(12):
            data = sf.io.encode_png(_picture(i)) if i % 4 == 3 else sf.io.encode_jpeg(_picture(i))
            images.append(data)
            w.write(_example(data, i))
    return path, images


def _native(path, **kwargs):
    return sf.data.TFRecordDataset(path).batch(5).parse(SPEC).decode_images(**kwargs)


def _reference(images, size, channels=3):
    return np.stack(
        [sf.image.resize(sf.io.decode_image(b, channels=channels), size) for b in images]
    )


def test_equals_decode_then_resize(shard):
    path, images = shard
    got = np.concatenate(
        [b["image/encoded"] for b in _native(path, size=(32, 48), dtype="float32")]
    )
    np.testing.assert_allclose(got * 255, _reference(images, (32, 48)), atol=1e-3)
    labels = np.concatenate([b["image/class/label"] for b in _native(path, size=(32, 48))])
    assert labels.tolist() == list(range(12))


def test_uint8_rounds_and_layouts(shard):
    path, images = shard
    ref = np.round(_reference(images, (20, 30)))
    nhwc = np.concatenate([b["image/encoded"] for b in _native(path, size=(20, 30))])
    assert nhwc.dtype == np.uint8 and nhwc.shape == (12, 20, 30, 3)
    assert np.abs(nhwc.astype(float) - ref).max() <= 1
    nchw = np.concatenate([b["image/encoded"] for b in _native(path, size=(20, 30), layout="NCHW")])
    np.testing.assert_array_equal(nchw, nhwc.transpose(0, 3, 1, 2))


def test_mean_std(shard):
    path, images = shard
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    got = next(iter(_native(path, size=(16, 16), dtype="float32", mean=mean, std=std)))
    ref = (_reference(images[:5], (16, 16)) / 255 - np.array(mean)) / np.array(std)
    np.testing.assert_allclose(got["image/encoded"], ref, atol=1e-4)


def test_center_crop(shard):
    path, images = shard
    got = next(iter(_native(path, size=(24, 24), crop="center", dtype="float32")))["image/encoded"]
    ref = np.stack(
        [
            sf.image.resize(sf.image.central_crop(sf.io.decode_image(b), 0.875), (24, 24))
            for b in images[:5]
        ]
    )
    np.testing.assert_allclose(got * 255, ref, atol=1e-3)


def test_python_path_matches_native(shard):
    path, images = shard
    native = next(iter(_native(path, size=(16, 20))))["image/encoded"]
    parsed = sf.data.Dataset.from_tensor_slices(np.array(images[:5], dtype=object)).batch(5)
    python = next(iter(parsed.map(lambda b: {"image/encoded": b}).decode_images(size=(16, 20))))
    np.testing.assert_array_equal(python["image/encoded"], native)


def test_random_crops_deterministic_and_resumable(shard):
    path, _ = shard

    def batches(seed, state=None):
        ds = sf.data.TFRecordDataset(path).repeat(2).batch(4).parse(SPEC)
        ds = ds.decode_images(size=(16, 16), crop="random", flip=True, seed=seed)
        it = ds.iterator(state=state)
        return it, [b["image/encoded"] for b in it]

    _, a = batches(7)
    _, b = batches(7)
    _, c = batches(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))
    # Epoch 2 crops the same images differently.
    assert not np.array_equal(np.concatenate(a[:3]), np.concatenate(a[3:]))
    ds = sf.data.TFRecordDataset(path).repeat(2).batch(4).parse(SPEC)
    ds = ds.decode_images(size=(16, 16), crop="random", flip=True, seed=7)
    it = ds.iterator()
    next(it), next(it)
    state = it.state()
    rest = [x["image/encoded"] for x in ds.iterator(state=state)]
    assert all(np.array_equal(x, y) for x, y in zip(rest, a[2:]))


def test_python_path_random_crops_resume_and_vary_by_epoch(shard):
    _, images = shard

    def dataset(seed):
        ds = sf.data.Dataset.from_tensor_slices(np.array(images, dtype=object)).repeat(2)
        ds = ds.batch(4).map(lambda b: {"image/encoded": b})
        return ds.decode_images(size=(16, 16), crop="random", flip=True, seed=seed)

    a = [b["image/encoded"] for b in dataset(7)]
    b = [b["image/encoded"] for b in dataset(7)]
    assert len(a) == 6 and all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(np.concatenate(a[:3]), np.concatenate(a[3:]))  # epoch 2 differs
    it = dataset(7).iterator()
    next(it), next(it), next(it), next(it)
    state = json.loads(json.dumps(it.state()))  # JSON-able, as checkpoints store it
    rest = [x["image/encoded"] for x in dataset(7).iterator(state=state)]
    assert len(rest) == 2 and all(np.array_equal(x, y) for x, y in zip(rest, a[4:]))
    # seed=None: drawn per iterator and kept in its state.
    it = dataset(None).iterator()
    first = next(it)["image/encoded"]
    resumed = dataset(None).iterator(state=it.state())
    again = dataset(None).iterator()
    assert len(list(resumed)) == 5 and next(again)["image/encoded"].shape == first.shape


def test_one_seed_gives_the_same_crops_on_both_paths(shard):
    path, _ = shard
    kwargs = dict(size=(16, 20), crop="random", flip=True, seed=9, fast=True)
    parsed = sf.data.TFRecordDataset(path).batch(5).parse(SPEC)
    native = [b["image/encoded"] for b in parsed.decode_images(**kwargs)]
    python = [b["image/encoded"] for b in parsed.map(lambda e: e).decode_images(**kwargs)]
    assert len(native) == len(python) == 3
    for a, b in zip(native, python):
        np.testing.assert_array_equal(a, b)


@pytest.fixture()
def damaged(tmp_path):
    path = str(tmp_path / "damaged.tfrecord")
    good = sf.io.encode_jpeg(_picture(1))
    with sf.io.TFRecordWriter(path) as w:
        w.write(_example(good, 1))
        w.write(_example(good[: len(good) // 2], 2))  # truncated JPEG
        w.write(_example(b"not an image at all", 3))
        w.write(_example(good, 4))
    return path


def test_undecodable_images_raise_with_file_and_offset(damaged):
    ds = sf.data.TFRecordDataset(damaged).batch(4).parse(SPEC).decode_images(size=(8, 8))
    with pytest.raises(errors.InvalidArgumentError, match=r"offset \d+ in .*damaged.tfrecord"):
        list(ds)


def test_undecodable_images_skipped_and_logged(damaged, caplog):
    ds = sf.data.TFRecordDataset(damaged, on_error="skip_record").batch(4).parse(SPEC)
    with caplog.at_level(logging.WARNING, logger="swigflow.data"):
        (batch,) = list(ds.decode_images(size=(8, 8)))
    assert batch["image/class/label"].tolist() == [1, 4]
    assert batch["image/encoded"].shape == (2, 8, 8, 3)
    assert sum("undecodable image" in r.getMessage() for r in caplog.records) == 2


def test_decompression_bomb_is_refused_before_allocating(tmp_path):
    good = sf.io.encode_jpeg(_picture(0))
    bomb = bytearray(good)
    sof = bomb.index(b"\xff\xc0")
    bomb[sof + 5 : sof + 9] = b"\xea\x60\xea\x60"  # 60000 x 60000 (libjpeg allows 65500)
    with pytest.raises(errors.InvalidArgumentError, match="too many pixels"):
        sf.io.decode_jpeg(bytes(bomb))
    old = sf.image.max_pixels()
    try:
        sf.image.set_max_pixels(100)
        with pytest.raises(errors.InvalidArgumentError, match="too many pixels"):
            sf.io.decode_png(sf.io.encode_png(_picture(0)))
    finally:
        sf.image.set_max_pixels(None)
    assert sf.image.max_pixels() == old
    path = str(tmp_path / "bomb.tfrecord")
    with sf.io.TFRecordWriter(path) as w:
        w.write(_example(bytes(bomb), 0))
    ds = sf.data.TFRecordDataset(path).batch(1).parse(SPEC).decode_images(size=(8, 8))
    with pytest.raises(errors.InvalidArgumentError, match="too many pixels"):
        list(ds)


def test_fast_mode_is_close(shard, tmp_path):
    path = str(tmp_path / "big.tfrecord")
    big = np.kron(_picture(3, 60, 80), np.ones((8, 8, 1), np.uint8))  # 480 x 640
    with sf.io.TFRecordWriter(path) as w:
        w.write(_example(sf.io.encode_jpeg(big), 0))
    exact, fast = (
        next(
            iter(
                sf.data.TFRecordDataset(path)
                .batch(1)
                .parse(SPEC)
                .decode_images(size=(60, 80), fast=f)
            )
        )
        for f in (False, True)
    )
    diff = np.abs(exact["image/encoded"].astype(int) - fast["image/encoded"].astype(int))
    assert diff.mean() < 4


# TF's test JPEGs (tests/testdata/tf_images): every sampling, progressive, restart markers, odd
# sizes, gray and CMYK. At (48, 64) none is scaled in the IDCT, so fast=True differs from the
# exact step only in resampling the planes (chroma interpolated on its own grid).
TF_JPEGS = {
    "baseline_420.jpg": True,
    "baseline_422.jpg": True,
    "baseline_444.jpg": False,
    "progressive_420.jpg": True,
    "progressive_444.jpg": False,
    "restart_markers.jpg": True,
    "odd_17x23.jpg": True,
    "odd_1x1.jpg": False,
    "grayscale.jpg": False,
    "cmyk.jpg": False,  # not YCbCr: decoded to RGB as in the exact step
}


@pytest.mark.parametrize("name", sorted(TF_JPEGS))
def test_fast_mode_on_every_kind_of_jpeg(name, tmp_path):
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "testdata", "tf_images", name), "rb") as f:
        data = f.read()
    path = str(tmp_path / "one.tfrecord")
    with sf.io.TFRecordWriter(path) as w:
        w.write(_example(data, 0))
    for crop in (None, "center", "random"):
        kwargs = dict(size=(48, 64), crop=crop, flip=True, seed=3)
        exact, fast = (
            _first(_native(path, fast=fast, **kwargs)).astype(int) for fast in (False, True)
        )
        diff = np.abs(exact - fast)
        if TF_JPEGS[name]:  # subsampled chroma
            assert diff.mean() < 3, (crop, diff.mean())
        else:  # only float rounding between colour conversion and resize
            assert diff.max() <= 1, (crop, diff.max())
        # The float NCHW output is the same resampling, unrounded.
        floats = _first(_native(path, fast=True, dtype="float32", layout="NCHW", **kwargs))
        np.testing.assert_allclose(floats.transpose(1, 2, 0) * 255, fast, atol=0.5 + 1e-3)


def _first(dataset):
    return next(iter(dataset))["image/encoded"][0]


def test_bad_arguments():
    ds = sf.data.Dataset.from_tensor_slices(np.array([b"x"], dtype=object))
    for kwargs in ({"crop": "left"}, {"channels": 2}, {"dtype": "int32"}, {"layout": "HWCN"},
                   {"mean": (0.5,), "dtype": "uint8"}, {"std": (0, 1, 1), "dtype": "float32"},
                   {"size": (0, 4)}):  # fmt: skip
        with pytest.raises(ValueError):
            ds.decode_images(**kwargs)
    with pytest.raises(errors.InvalidArgumentError, match="parse"):
        list(ds.decode_images())


def test_codecs_round_trip_and_errors():
    img = _picture(5, 33, 47)
    assert np.array_equal(sf.io.decode_png(sf.io.encode_png(img)), img)
    img16 = img.astype(np.uint16) * 257
    assert np.array_equal(sf.io.decode_png(sf.io.encode_png(img16), dtype=np.uint16), img16)
    jpg = sf.io.encode_jpeg(img, quality=100, chroma_downsampling=False)
    assert np.abs(sf.io.decode_jpeg(jpg).astype(int) - img).max() <= 8
    assert sf.io.is_jpeg(jpg) and not sf.io.is_jpeg(b"\x89PNG")
    gray = sf.io.decode_jpeg(jpg, channels=1)
    assert gray.shape == (33, 47, 1)
    assert sf.io.encode_jpeg(gray, format="grayscale")[:2] == b"\xff\xd8"
    assert b"swigflow-xmp" in sf.io.encode_jpeg(img, xmp_metadata="swigflow-xmp")
    for bad in (b"", b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n"):
        with pytest.raises(errors.InvalidArgumentError):
            sf.io.decode_image(bad)
    with pytest.raises(errors.InvalidArgumentError):
        sf.io.decode_jpeg(jpg, ratio=3)
    with pytest.raises(errors.InvalidArgumentError):
        sf.io.decode_jpeg(jpg, dct_method="FASTEST")
    with pytest.raises(errors.InvalidArgumentError, match="not inside"):
        sf.image.decode_and_crop_jpeg(jpg, [30, 0, 10, 10])


def test_transforms():
    img = _picture(2, 10, 20)
    assert sf.image.flip_left_right(img)[0, 0].tolist() == img[0, -1].tolist()
    assert sf.image.flip_up_down(img)[0, 0].tolist() == img[-1, 0].tolist()
    assert sf.image.crop_to_bounding_box(img, 2, 3, 4, 5).shape == (4, 5, 3)
    with pytest.raises(ValueError):
        sf.image.crop_to_bounding_box(img, 8, 0, 4, 5)
    assert sf.image.central_crop(img, 0.5).shape == (6, 10, 3)
    nearest = sf.image.resize(img, (5, 10), method="nearest")
    assert nearest.dtype == np.uint8 and nearest.tolist() == img[1::2, 1::2].tolist()
    f = sf.image.convert_image_dtype(img, np.float32)
    assert f.max() <= 1 and sf.image.convert_image_dtype(f, np.uint8).tolist() == img.tolist()
    assert sf.image.convert_image_dtype(img, np.uint16).max() == int(img.max()) * 256
    begin, size, boxes = sf.image.sample_distorted_bounding_box(
        [100, 200, 3], np.zeros((1, 0, 4)), seed=3, use_image_if_no_bounding_boxes=True,
        area_range=(0.2, 0.5),
    )  # fmt: skip
    area = size[0] * size[1] / 20000
    assert 0.19 <= area <= 0.51 and begin[2] == 0 and size[2] == -1
    assert begin[0] + size[0] <= 100 and begin[1] + size[1] <= 200 and boxes.shape == (1, 1, 4)
    with pytest.raises(errors.InvalidArgumentError, match="No bounding boxes"):
        sf.image.sample_distorted_bounding_box([10, 10, 3], np.zeros((1, 0, 4)))


def test_torch_gets_the_decoded_batch_without_a_copy(shard):
    """The batch array is C-contiguous, aligned and writable, so the DataLoader's conversion
    (torch.as_tensor, as torch.from_numpy) shares its memory, and NCHW float32 is ready for
    .cuda(non_blocking=True)."""
    torch = pytest.importorskip("torch")
    path, _ = shard
    ds = _native(path, size=(16, 24), dtype="float32", layout="NCHW")
    batch = next(iter(ds))
    images = batch["image/encoded"]
    assert images.flags.c_contiguous and images.flags.writeable and images.flags.aligned
    converted = torch.utils.data.default_convert(batch)["image/encoded"]
    assert converted.data_ptr() == images.ctypes.data
    assert converted.shape == (5, 3, 16, 24) and converted.dtype == torch.float32
    loader = torch.utils.data.DataLoader(sf.data.TorchIterableDataset(ds), batch_size=None)
    first = next(iter(loader))["image/encoded"]
    np.testing.assert_array_equal(first.numpy(), images)
