"""Train a small PyTorch classifier on a dataset that TensorFlow Datasets prepared, without
TensorFlow: swigflow.datasets reads it, and each line that differs from the TFDS version says
what that version was.

    python examples/tfds_pytorch.py                              # the repository's test data
    python examples/tfds_pytorch.py --name mnist --data-dir ~/tensorflow_datasets --size 28

Needs torch (pip install torch). The dataset is any TFDS image classification set: an Image
feature and a ClassLabel (its supervised_keys).
"""

import argparse
import os
import time

import numpy as np

import swigflow.datasets as tfds  # was: import tensorflow_datasets as tfds

HERE = os.path.dirname(os.path.abspath(__file__))
TEST_DATA = os.path.join(os.path.dirname(HERE), "tests", "testdata", "tfds", "data")


def batches(builder, split, image_key, label_key, size, batch_size, shuffle, seed):
    """(images NCHW float32, labels int64) batches, decoded and resized on swigflow's threads.

    With TFDS and tf.data this was:
        ds = builder.as_dataset(split, shuffle_files=shuffle)
        ds = ds.map(lambda e: (tf.image.resize(e[image_key], (size, size)) / 255.0,
                               e[label_key]), num_parallel_calls=tf.data.AUTOTUNE)
        ds = ds.shuffle(1000).batch(batch_size)
        for images, labels in tfds.as_numpy(ds): ...
    """
    ds = builder.as_dataset(
        split,
        shuffle_files=shuffle,
        decoders={image_key: tfds.decode.SkipDecoding()},  # keep the JPEG/PNG bytes
        read_config=tfds.ReadConfig(shuffle_seed=seed),
    )
    if shuffle:
        ds = ds.shuffle(1000, seed=seed)
    ds = ds.batch(batch_size).decode_images(  # decode + resize + scale, natively, per batch
        key=image_key, size=(size, size), dtype="float32", layout="NCHW"
    )
    for batch in ds.prefetch(2):
        yield batch[image_key], batch[label_key]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--name", default="sf_classes")
    parser.add_argument("--data-dir", default=TEST_DATA)
    parser.add_argument("--train-split", default="train")
    parser.add_argument("--eval-split", default="validation")
    parser.add_argument("--size", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    import torch

    torch.manual_seed(args.seed)
    builder = tfds.builder(args.name, data_dir=args.data_dir)  # the same call in TFDS
    image_key, label_key = builder.info.supervised_keys
    classes = builder.info.features[label_key].num_classes
    print(builder.info.full_name, {n: s.num_examples for n, s in builder.info.splits.items()})

    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(32, classes),
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(args.epochs):
        start, seen, total = time.perf_counter(), 0, 0.0
        model.train()
        train = batches(builder, args.train_split, image_key, label_key, args.size,
                        args.batch_size, True, args.seed + epoch)  # fmt: skip
        for images, labels in train:
            loss = torch.nn.functional.cross_entropy(
                model(torch.from_numpy(images)), torch.from_numpy(labels)
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen += len(labels)
            total += float(loss) * len(labels)
        print(f"epoch {epoch}: loss {total / seen:.4f}, "
              f"{seen / (time.perf_counter() - start):.0f} images/s")  # fmt: skip

    model.eval()
    correct = count = 0
    with torch.no_grad():
        for images, labels in batches(builder, args.eval_split, image_key, label_key,
                                      args.size, args.batch_size, False, 0):  # fmt: skip
            predicted = model(torch.from_numpy(images)).argmax(1).numpy()
            correct += int(np.sum(predicted == labels))
            count += len(labels)
    names = builder.info.features[label_key].names
    shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
    print(f"{args.eval_split}: accuracy {correct / count:.3f} over {count} images "
          f"of {len(names)} classes ({shown})")  # fmt: skip


if __name__ == "__main__":
    main()
