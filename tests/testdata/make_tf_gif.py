"""Writes tests/testdata/tf_gif/: GIF files (written by Pillow, and by the small writer below for
what Pillow will not write: frames off the screen, transparency in the first frame, missing or
short colour tables, no image, a cut file) and golden.json, what TensorFlow 2.21's
tf.io.decode_gif and tf.io.decode_image give for each (pixels, or the error).
tests/python/test_gif.py decodes the same files with swigflow. Run once in a throwaway venv
with tensorflow-cpu and Pillow:

    python tests/testdata/make_tf_gif.py
"""

import hashlib
import io
import json
import os
import struct

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_gif")

# The calls recorded for every file: name -> source over `tf`/`IO` and `data`.
CALLS = {
    "decode_gif": "IO.decode_gif(data)",
    "decode_image": "IO.decode_image(data)",
    "decode_image_first": "IO.decode_image(data, expand_animations=False)",
    "decode_image_3": "IO.decode_image(data, channels=3)",
    "decode_image_1": "IO.decode_image(data, channels=1)",
    "decode_image_4": "IO.decode_image(data, channels=4)",
    "decode_image_float": "IO.decode_image(data, dtype=np.float32)",
}


# --- a minimal GIF writer ------------------------------------------------------------------------


def lzw(indices, min_code_size):
    """Image data a decoder reads back as `indices`: every index a literal after a clear code,
    so the code width never grows (valid GIF LZW, only not compressed)."""
    clear, end, width = 1 << min_code_size, (1 << min_code_size) + 1, min_code_size + 1
    codes = []
    for index in indices:
        codes += [clear, int(index)]
    codes.append(end)
    bits = nbits = 0
    out = bytearray()
    for code in codes:
        bits |= code << nbits
        nbits += width
        while nbits >= 8:
            out.append(bits & 0xFF)
            bits >>= 8
            nbits -= 8
    if nbits:
        out.append(bits & 0xFF)
    blocks = bytearray([min_code_size])
    for at in range(0, len(out), 255):
        chunk = out[at : at + 255]
        blocks += bytes([len(chunk)]) + chunk
    return bytes(blocks + b"\0")


def color_table(colors):
    """(size field, table bytes): padded to a power of two of at least 2 entries."""
    size = 2
    while size < len(colors):
        size *= 2
    table = b"".join(bytes(c) for c in colors) + b"\0\0\0" * (size - len(colors))
    return size.bit_length() - 2, table


def gif(width, height, frames, global_colors=None, min_code_size=2):
    """A GIF89a of `frames`: dicts with left, top, width, height, indices (row-major; given in
    interlaced row order when interlace), and optional colors (local table), transparent,
    interlace."""
    flags = 0
    table = b""
    if global_colors is not None:
        size_field, table = color_table(global_colors)
        flags = 0x80 | size_field
    out = bytearray(b"GIF89a" + struct.pack("<HHBBB", width, height, flags, 0, 0) + table)
    for f in frames:
        if "transparent" in f:
            out += bytes([0x21, 0xF9, 4, 1, 0, 0, f["transparent"], 0])
        local_flags, local = 0, b""
        if "colors" in f:
            size_field, local = color_table(f["colors"])
            local_flags = 0x80 | size_field
        if f.get("interlace"):
            local_flags |= 0x40
        out += b"," + struct.pack("<HHHHB", f["left"], f["top"], f["width"], f["height"],
                                  local_flags)  # fmt: skip
        out += local + lzw(f["indices"], min_code_size)
    return bytes(out + b";")


RGBW = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]


def frame(left, top, width, height, **extra):
    indices = [(left + top + i) % 4 for i in range(width * height)]
    return {"left": left, "top": top, "width": width, "height": height, "indices": indices,
            **extra}  # fmt: skip


def interlaced_order(rows):
    return [y for start, step in ((0, 8), (4, 8), (2, 4), (1, 2)) for y in range(start, rows, step)]


def crafted():
    full = frame(0, 0, 6, 5)
    inter = frame(0, 0, 3, 9, interlace=True)
    rows = [inter["indices"][y * 3 : y * 3 + 3] for y in range(9)]
    inter["indices"] = [i for y in interlaced_order(9) for i in rows[y]]
    valid = gif(6, 5, [full, frame(1, 1, 3, 2)], RGBW)
    return {
        "two_frames": valid,
        "offset_first_frame": gif(6, 5, [frame(2, 1, 3, 2)], RGBW),
        "frame_past_screen": gif(6, 5, [full, frame(4, 3, 4, 4)], RGBW),
        "transparent_first": gif(6, 5, [frame(0, 0, 6, 5, transparent=1)], RGBW),
        "transparent_second": gif(6, 5, [full, frame(0, 0, 6, 5, transparent=2)], RGBW),
        "control_block_once": gif(6, 5, [frame(0, 0, 6, 5, transparent=0), full], RGBW),
        "local_colors": gif(6, 5, [full, frame(0, 0, 6, 5, colors=[(9, 8, 7), (1, 2, 3),
                                                                  (4, 5, 6), (0, 0, 0)])], RGBW),
        "interlaced": gif(3, 9, [inter], RGBW),
        "no_color_map": gif(6, 5, [full]),
        "index_outside_map": gif(6, 5, [frame(0, 0, 6, 5)], RGBW[:2]),
        "no_image": gif(6, 5, [], RGBW),
        "cut": valid[: len(valid) // 2],
        "not_gif": b"GIF89a" + b"\0" * 3,
    }  # fmt: skip


def pillow_made():
    from PIL import Image

    made = {}
    rng = np.random.default_rng(4)
    frames = []
    for k in range(3):
        pixels = np.zeros((7, 9, 3), np.uint8)
        pixels[:, :] = (20 * k, 40, 200 - 30 * k)
        pixels[k : k + 3, 2 * k : 2 * k + 4] = (250, 250, 0)
        frames.append(Image.fromarray(pixels))
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=50, loop=0)
    made["pillow_animated"] = out.getvalue()
    noise = rng.integers(0, 255, (8, 5, 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(noise).quantize(16).save(out, "GIF", interlace=False)
    made["pillow_single"] = out.getvalue()
    out = io.BytesIO()
    Image.fromarray(noise).quantize(16).save(out, "GIF", interlace=True)
    made["pillow_interlaced"] = out.getvalue()
    return made


def encode(value):
    array = np.asarray(value)
    raw = array.tobytes()
    result = {"dtype": str(array.dtype), "shape": list(array.shape)}
    if len(raw) <= 4096:
        result["hex"] = raw.hex()
    result["sha256"] = hashlib.sha256(raw).hexdigest()
    return result


def main():
    import tensorflow as tf

    files = {**crafted(), **pillow_made()}
    os.makedirs(HERE, exist_ok=True)
    golden = {"_tensorflow": tf.__version__, "files": {}}
    for name, data in sorted(files.items()):
        with open(os.path.join(HERE, name + ".gif"), "wb") as f:
            f.write(data)
        results = {}
        for call, source in CALLS.items():
            try:
                value = eval(source, {"IO": tf.io, "data": data, "np": np})
                results[call] = {"value": encode(value.numpy())}
            except Exception as e:
                results[call] = {"error": type(e).__name__, "message": str(e).split("\n")[0]}
        golden["files"][name] = results
    with open(os.path.join(HERE, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
