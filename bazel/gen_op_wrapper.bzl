"""gen_op_wrapper_py: Python wrappers for an op library, generated at build time.

The shape of TensorFlow's tf_gen_op_wrapper_py: a generator binary is linked with the op
library, so that exactly its REGISTER_OP definitions are in the binary's registry, and a genrule
runs it to write one Python function per op (native/framework/python_op_gen.h). The wrappers
are part of the package they are written into:

    load("//bazel:gen_op_wrapper.bzl", "gen_op_wrapper_py")

    gen_op_wrapper_py(
        name = "gen_nn_ops",
        out = "ops/gen_nn_ops.py",
        op_library = "//native/kernels/nn",
    )

    py_library(name = "swigflow", srcs = glob(["**/*.py"]) + [":gen_nn_ops"], ...)

OpDef -> (cc_binary linking op_library + python_op_gen_main) -> genrule -> ops/gen_nn_ops.py.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary")

def gen_op_wrapper_py(name, out, op_library, hidden = [], visibility = None):
    """Generates `out`, the Python wrappers of the ops `op_library` registers.

    Args:
      name: the genrule's name; `name + "_gen"` is the generator binary.
      out: the Python file to write, relative to this package (e.g. "ops/gen_nn_ops.py").
      op_library: the cc_library whose REGISTER_OP calls define the ops. It must register ops
        only through static initializers (alwayslink), as swigflow_cc_library does.
      hidden: ops whose functions get a leading underscore, for hand-written Python that wraps
        them (TensorFlow's hidden_ops).
      visibility: of the generated file.
    """
    generator = name + "_gen"
    cc_binary(
        name = generator,
        deps = [
            op_library,
            "//native/framework:python_op_gen_main",
        ],
        visibility = ["//visibility:private"],
    )
    hidden_flag = " --hidden=" + ",".join(hidden) if hidden else ""
    native.genrule(
        name = name,
        outs = [out],
        cmd = "$(location :%s) --source=%s%s > $@" % (generator, op_library, hidden_flag),
        tools = [":" + generator],
        visibility = visibility,
    )
