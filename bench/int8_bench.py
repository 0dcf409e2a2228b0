"""INT8 inference kernels against FP32 and the field, in one run:

    python bench/int8_bench.py [--repeats 20] [--rounds 3]

- GEMM m x k x n: swigflow's QuantizedMatMul (quint8 activations x qint8 weights -> qint32)
  against swigflow's FP32 matmul, PyTorch's quantized Linear (x86/fbgemm engine; its weights
  prepacked once, as PyTorch does) and TensorFlow's QuantizedMatMul (quint8 x quint8);
- a ResNet-50 3x3 layer (56 x 56 x 64 -> 64): swigflow's QuantizedConv2D against its FP32
  conv2d, PyTorch's quantized Conv2d and TensorFlow's QuantizedConv2D;
- the same products as inference layers with 8-bit outputs (bias + ReLU + requantize fused):
  swigflow.quantization's Int8Dense / Int8Conv2D (the fused ops) against PyTorch's quantized
  LinearReLU / ConvReLU2d, the like-for-like pair (the rows above compare int32 outputs with
  PyTorch's 8-bit ones).

Rates are GOP/s (2 operations per multiply-add); ratios are against the anchors of this run. Each
library runs in its own phase, best of `repeats` calls, with all cores; the phases repeat
`rounds` times and each figure is the best of all (the VM is noisy).
"""

import argparse
import os
import time

import numpy as np
from timing import best_of, cpu_name

import swigflow
from swigflow import ops

try:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
except ImportError:
    tf = None
try:
    import torch
    import torch.ao.nn.intrinsic.quantized as nniq
    import torch.ao.nn.quantized as nnq
except ImportError:
    torch = None

GEMMS = [(1024, 1024, 1024), (256, 2048, 1000), (3136, 64, 256), (512, 768, 3072)]
CONV = (1, 56, 56, 64, 64, 3)  # batch, height, width, in, out, window


class Fastest(dict):
    """A dict of timings that keeps the smallest value stored under each key."""

    def __setitem__(self, key, seconds):
        super().__setitem__(key, min(seconds, self.get(key, seconds)))


def gemm_inputs(m, k, n, rng):
    a = rng.integers(0, 256, (m, k), dtype=np.uint8)
    b = rng.integers(-127, 128, (k, n), dtype=np.int8)
    return a, b


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    threads = os.cpu_count()
    print(
        f"CPU: {cpu_name()}; {threads} threads; 8-bit kernel: "
        f"{swigflow.linalg.kernel_config()['int8_kernel']}"
    )
    ranges = [np.float32(0), np.float32(6), np.float32(-1), np.float32(1)]
    results = Fastest()  # (case, library) -> seconds

    gemm_data = {s: gemm_inputs(*s, rng) for s in GEMMS}
    float_data = {
        s: (a.astype(np.float32), b.astype(np.float32)) for s, (a, b) in gemm_data.items()
    }
    n_, h, w, c, o, r = CONV
    x8 = rng.integers(0, 256, (n_, h, w, c), dtype=np.uint8)
    f8 = rng.integers(-127, 128, (r, r, c, o), dtype=np.int8)
    conv_attrs = dict(strides=[1, 1, 1, 1], padding="SAME")

    # Each library in its own phase, the phases repeated --rounds times: the VM's noise comes in
    # spells of seconds, so a library measured in one spell only can be off by a third.
    for _ in range(args.rounds):
        # swigflow
        for s in GEMMS:
            a, b = gemm_data[s]
            results[s, "int8"] = best_of(args.repeats, ops.run, "QuantizedMatMul", [a, b, *ranges])[
                0
            ]
            results[s, "fp32"] = best_of(args.repeats, swigflow.matmul, *float_data[s])[0]
        results["conv", "int8"] = best_of(
            args.repeats, lambda: ops.run("QuantizedConv2D", [x8, f8, *ranges], **conv_attrs)
        )[0]
        xf, ff = x8.astype(np.float32), f8.astype(np.float32)
        results["conv", "fp32"] = best_of(args.repeats, swigflow.nn.conv2d, xf, ff, 1, "SAME")[0]
        # Layers: float weights w = q / 127 (quantized back to q), activations over [0, 6].
        zeros = {s: np.zeros(s[2], np.float32) for s in GEMMS}
        for s in GEMMS:
            a, b = gemm_data[s]
            dense = swigflow.quantization.Int8Dense(
                b.astype(np.float32) / 127, zeros[s], (0, 6), (0, 6)
            )
            results[("layer", s), "int8"] = best_of(args.repeats, dense, a)[0]
            results[("layer", s), "fp32"] = results[s, "fp32"]
        conv_layer = swigflow.quantization.Int8Conv2D(
            ff / 127, np.zeros(o, np.float32), (0, 6), (0, 6)
        )
        results[("layer", "conv"), "int8"] = best_of(args.repeats, conv_layer, x8)[0]
        results[("layer", "conv"), "fp32"] = results["conv", "fp32"]

        if torch is not None:
            time.sleep(1)
            torch.set_num_threads(threads)
            torch.backends.quantized.engine = (
                "x86" if "x86" in torch.backends.quantized.supported_engines else "fbgemm"
            )
            with torch.no_grad():
                for s in GEMMS:
                    a, b = gemm_data[s]
                    lin = nnq.Linear(s[1], s[2])
                    wq = torch.quantize_per_tensor(
                        torch.from_numpy(b.T.astype(np.float32)) / 127, 1 / 127, 0, torch.qint8
                    )
                    lin.set_weight_bias(wq, None)
                    lin.scale, lin.zero_point = 1.0, 0
                    xq = torch.quantize_per_tensor(
                        torch.from_numpy(a.astype(np.float32)) / 255 * 6, 6 / 255, 0, torch.quint8
                    )
                    results[s, "torch"] = best_of(args.repeats, lin, xq)[0]
                conv = nnq.Conv2d(c, o, r, padding=r // 2)
                wq = torch.quantize_per_tensor(
                    torch.from_numpy(f8.transpose(3, 2, 0, 1).astype(np.float32)) / 127,
                    1 / 127,
                    0,
                    torch.qint8,
                )
                conv.set_weight_bias(wq, None)
                xq = torch.quantize_per_tensor(
                    torch.from_numpy(x8.transpose(0, 3, 1, 2).astype(np.float32)) / 255 * 6,
                    6 / 255,
                    0,
                    torch.quint8,
                )
                xq = xq.contiguous(memory_format=torch.channels_last)
                results["conv", "torch"] = best_of(args.repeats, conv, xq)[0]
                for s in GEMMS:
                    a, b = gemm_data[s]
                    lin = nniq.LinearReLU(s[1], s[2])
                    wq = torch.quantize_per_tensor(
                        torch.from_numpy(b.T.astype(np.float32)) / 127, 1 / 127, 0, torch.qint8
                    )
                    lin.set_weight_bias(wq, torch.zeros(s[2]))
                    lin.scale, lin.zero_point = 6 / 255, 0
                    aq = torch.quantize_per_tensor(
                        torch.from_numpy(a.astype(np.float32)) / 255 * 6, 6 / 255, 0, torch.quint8
                    )
                    results[("layer", s), "torch"] = best_of(args.repeats, lin, aq)[0]
                conv_relu = nniq.ConvReLU2d(c, o, r, padding=r // 2)
                conv_relu.set_weight_bias(conv.weight(), torch.zeros(o))
                conv_relu.scale, conv_relu.zero_point = 6 / 255, 0
                results[("layer", "conv"), "torch"] = best_of(args.repeats, conv_relu, xq)[0]

        if tf is not None:
            time.sleep(1)
            for s in GEMMS:
                a, b = gemm_data[s]
                ta = tf.bitcast(tf.constant(a), tf.quint8)
                tb = tf.bitcast(tf.constant(b.view(np.uint8)), tf.quint8)
                results[s, "tf"] = best_of(
                    max(3, args.repeats // 4),
                    lambda ta=ta, tb=tb: tf.raw_ops.QuantizedMatMul(
                        a=ta, b=tb, min_a=0.0, max_a=6.0, min_b=-1.0, max_b=1.0
                    ),
                )[0]
            tx = tf.bitcast(tf.constant(x8), tf.quint8)
            tw = tf.bitcast(tf.constant(f8.view(np.uint8)), tf.quint8)
            results["conv", "tf"] = best_of(
                max(3, args.repeats // 4),
                lambda tx=tx, tw=tw: tf.raw_ops.QuantizedConv2D(
                    input=tx,
                    filter=tw,
                    min_input=0.0,
                    max_input=6.0,
                    min_filter=-1.0,
                    max_filter=1.0,
                    **conv_attrs,
                ),
            )[0]

    def row(name, ops_count, case):
        rate = {
            lib: ops_count / results[case, lib] / 1e9
            for lib in ("int8", "fp32", "torch", "tf")
            if (case, lib) in results
        }
        text = f"{name:<22} int8 {rate['int8']:7.1f} GOP/s"
        text += f"  vs FP32 {rate['int8'] / rate['fp32']:5.2f}x"
        if "torch" in rate:
            text += f"  vs PyTorch {rate['int8'] / rate['torch']:5.2f}x ({rate['torch']:6.1f})"
        if "tf" in rate:
            text += f"  vs TF {rate['int8'] / rate['tf']:6.2f}x ({rate['tf']:6.1f})"
        print(text)

    print(
        "TF's stateless ops, int32 sums, weights packed per call "
        "(PyTorch: prepacked Linear, Conv2d with 8-bit outputs):"
    )
    for s in GEMMS:
        row("gemm {}x{}x{}".format(*s), 2 * s[0] * s[1] * s[2], s)
    row("conv 3x3 56x56x64->64", 2 * n_ * h * w * c * o * r * r, "conv")
    print(
        "Inference layers, weights packed once, bias + ReLU + requantize to 8 bits "
        "(PyTorch: LinearReLU, ConvReLU2d), the like-for-like pair:"
    )
    for s in GEMMS:
        row("dense {}x{}x{}".format(*s), 2 * s[0] * s[1] * s[2], ("layer", s))
    row("conv 3x3 56x56x64->64", 2 * n_ * h * w * c * o * r * r, ("layer", "conv"))


if __name__ == "__main__":
    main()
