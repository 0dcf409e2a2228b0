"""Writes tests/testdata/tf_image_checks/golden.json: what TensorFlow 2.21's
crop_to_bounding_box, central_crop, flip_left_right and flip_up_down give for images of every
rank from 1 to 5, empty ones and ones without channels (image_ops_test.py's
CropToBoundingBoxTest and the checks they share): the result's shape and dtype, or the error
class and message.

Each case is Python source over `I` (the image module) and `img` (a zero uint8 array of the
given shape); TensorFlow runs it with I = tf.image, and tests/tf_compat/test_image_ops.py
with swigflow.image. Run once in a throwaway venv with tensorflow-cpu:

    python tests/testdata/make_tf_image_checks.py
"""

import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tf_image_checks", "golden.json")

SHAPES = {
    "rank1": (4,),
    "rank2": (4, 4),
    "rank5": (1, 1, 2, 2, 3),
    "empty_height": (0, 5, 3),
    "empty_width": (5, 0, 3),
    "no_channels": (2, 2, 0),
    "batch_no_channels": (1, 2, 2, 0),
    "empty_batch": (0, 2, 2, 3),
    "image": (4, 4, 3),
    "batch": (2, 4, 4, 3),
}
CALLS = {
    "crop": "I.crop_to_bounding_box(img, 0, 0, 1, 1)",
    "crop_bad_offset": "I.crop_to_bounding_box(img, -1, 0, 1, 1)",
    "crop_too_large": "I.crop_to_bounding_box(img, 2, 0, 3, 1)",
    "central": "I.central_crop(img, 0.5)",
    "flip_left_right": "I.flip_left_right(img)",
    "flip_up_down": "I.flip_up_down(img)",
}
CASES = {
    f"{call}_{shape}": (SHAPES[shape], source) for call, source in CALLS.items() for shape in SHAPES
}


def run_case(case, image_module):
    shape, source = case
    try:
        result = np.asarray(eval(source, {"I": image_module, "img": np.zeros(shape, np.uint8)}))
        return {"shape": list(result.shape), "dtype": str(result.dtype)}
    except Exception as e:  # the error is the result
        return {"error": type(e).__name__, "message": str(e)}


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    golden = {name: run_case(case, tf.image) for name, case in CASES.items()}
    golden["_tensorflow"] = tf.__version__
    import golden_json  # beside this script

    golden_json.write(OUT, golden)


if __name__ == "__main__":
    main()
