"""py_wrap_cc: SWIG interface files -> one Python extension module (TF's tf_py_wrap_cc shape).

    py_wrap_cc(name = "pywrap_swigflow", srcs = ["//swig:swigflow.i"], deps = [...])

expands into three targets in the calling package:

    pywrap_swigflow_py_wrap   _py_wrap_cc: runs SWIG -> pywrap_swigflow.cc + pywrap_swigflow.py
    _pywrap_swigflow.so       cc_binary(linkshared): the .cc linked with the C++ deps; a version
                              script exports only PyInit__pywrap_swigflow
    pywrap_swigflow           py_library: the .py shim with the .so as data

SWIG sees the same include roots as the C++ compiler (read from the deps' CcInfo), so an
interface can `%include "swigflow/io/crc32c.h"` exactly as C++ code #includes it.
"""

load("@rules_cc//cc:defs.bzl", "CcInfo", "cc_binary")
load("@rules_python//python:defs.bzl", "py_library")

def _include_roots(compilation_context):
    return depset(transitive = [
        compilation_context.includes,
        compilation_context.quote_includes,
        compilation_context.system_includes,
    ])

def _swig_lib_dir(swig_lib_files):
    # SWIG_LIB must name the directory that holds swig.swg; find it among the declared inputs.
    for f in swig_lib_files:
        if f.basename == "swig.swg":
            return f.dirname
    fail("swigflow: swig.swg is missing from @local_config_swig//:swig_lib; run ./configure")

def _py_wrap_cc_impl(ctx):
    if len(ctx.files.srcs) != 1:
        fail("py_wrap_cc takes exactly one top-level .i file in srcs", "srcs")
    src = ctx.files.srcs[0]
    cc_infos = [dep[CcInfo] for dep in ctx.attr.deps]
    compilation_contexts = [info.compilation_context for info in cc_infos]

    args = ctx.actions.args()

    # Proxy classes, not -builtin: SWIG's builtin types need the full C API, its proxies compile
    # against the limited one (Py_LIMITED_API, from the Python headers' target).
    args.add_all(["-c++", "-python", "-Werror"])
    args.add("-module", ctx.attr.module_name)
    args.add("-o", ctx.outputs.cc_out)
    args.add("-outdir", ctx.outputs.py_out.dirname)

    # "." (the execroot) first, so interfaces include each other by workspace path.
    args.add("-I.")
    args.add_all(
        depset(transitive = [_include_roots(cc) for cc in compilation_contexts]),
        format_each = "-I%s",
        uniquify = True,
    )
    args.add(src)

    swig_lib = ctx.files._swig_lib
    ctx.actions.run(
        executable = ctx.executable._swig,
        arguments = [args],
        inputs = depset(
            [src] + ctx.files.swig_includes + swig_lib,
            transitive = [cc.headers for cc in compilation_contexts],
        ),
        outputs = [ctx.outputs.cc_out, ctx.outputs.py_out],
        env = {"SWIG_LIB": _swig_lib_dir(swig_lib)},
        mnemonic = "PyWrapCc",
        progress_message = "SWIG %s -> %s" % (src.short_path, ctx.outputs.cc_out.short_path),
    )
    return [DefaultInfo(files = depset([ctx.outputs.cc_out, ctx.outputs.py_out]))]

_py_wrap_cc = rule(
    implementation = _py_wrap_cc_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "module_name": attr.string(mandatory = True),
        "py_module_name": attr.string(mandatory = True),
        "srcs": attr.label_list(mandatory = True, allow_files = [".i"]),
        "swig_includes": attr.label_list(allow_files = [".i", ".swg"]),
        "_swig": attr.label(
            default = Label("@local_config_swig//:swig"),
            allow_single_file = True,
            executable = True,
            cfg = "exec",
        ),
        "_swig_lib": attr.label(default = Label("@local_config_swig//:swig_lib")),
    },
    outputs = {
        "cc_out": "%{module_name}.cc",
        "py_out": "%{py_module_name}.py",
    },
)

def _exported_symbols_impl(ctx):
    ctx.actions.expand_template(
        template = ctx.file._template,
        output = ctx.outputs.out,
        substitutions = {"%{symbols}": "\n    ".join(["%s;" % s for s in ctx.attr.symbols])},
    )

_exported_symbols = rule(
    implementation = _exported_symbols_impl,
    attrs = {
        "out": attr.output(mandatory = True),
        "symbols": attr.string_list(mandatory = True),
        "_template": attr.label(
            default = Label("//bazel:pywrap_exports.lds.tpl"),
            allow_single_file = True,
        ),
    },
)

def _py_stub_impl(ctx):
    args = ctx.actions.args()
    args.add(ctx.file._generator)
    args.add("--package", ctx.attr.package)
    args.add("--module", ctx.attr.module_name)
    args.add("--out", ctx.outputs.out)
    args.add_all(ctx.files.module_files)
    ctx.actions.run(
        executable = ctx.executable._python,
        arguments = [args],
        inputs = ctx.files.module_files + [ctx.file._generator],
        outputs = [ctx.outputs.out],
        mnemonic = "PyStub",
        progress_message = "Writing the type stub %s" % ctx.outputs.out.short_path,
    )
    return [DefaultInfo(files = depset([ctx.outputs.out]))]

# The extension module's .pyi: the built module imported and its names written from SWIG's
# autodoc signatures (bazel/swig_stub.py). Built for the target and run here, as
# TensorFlow's API generator runs the built package.
_py_stub = rule(
    implementation = _py_stub_impl,
    attrs = {
        "module_files": attr.label_list(allow_files = True, mandatory = True),
        "module_name": attr.string(mandatory = True),
        "out": attr.output(mandatory = True),
        "package": attr.string(mandatory = True),
        "_generator": attr.label(
            default = Label("//bazel:swig_stub.py"),
            allow_single_file = True,
        ),
        "_python": attr.label(
            default = Label("@local_config_python//:python3"),
            executable = True,
            cfg = "exec",
        ),
    },
)

def py_wrap_cc(
        name,
        srcs,
        swig_includes = [],
        deps = [],
        copts = [],
        linkopts = [],
        data = [],
        version_script = None,
        **kwargs):
    """A Python extension module `_<name>.so`, its SWIG shim `<name>.py` and stub `<name>.pyi`.

    The type stub (PEP 561) is written from the built module (bazel/swig_stub.py).

    Args:
      name: the SWIG module name, e.g. "pywrap_swigflow"; also the py_library's name.
      srcs: the one top-level .i file.
      swig_includes: further .i files that srcs %includes.
      deps: cc_library targets wrapped and linked into the .so.
      copts: extra flags for compiling the generated .cc.
      linkopts: extra flags for linking the .so (e.g. an rpath to shared libraries it uses).
      data: files the module needs at run time (e.g. those shared libraries).
      version_script: a linker version script for the .so, for a module that other libraries
        link against and so exports an API besides its PyInit (which the script must export);
        by default one is generated that exports PyInit alone.
      **kwargs: passed to the py_library (visibility, tags, ...).
    """
    module_name = name.split("/")[-1]
    shared_object = "_%s.so" % module_name
    python_headers = "@local_config_python//:python_headers"

    _py_wrap_cc(
        name = name + "_py_wrap",
        srcs = srcs,
        swig_includes = swig_includes,
        deps = deps + [python_headers],
        module_name = module_name,
        py_module_name = module_name,
    )
    if version_script == None:
        version_script = "%s_exports.lds" % module_name
        _exported_symbols(
            name = name + "_exports",
            out = version_script,
            symbols = ["PyInit_" + shared_object[:-len(".so")]],
        )
    cc_binary(
        name = shared_object,
        srcs = [module_name + ".cc"],
        # SWIG's generated code trips these. The binding code it calls is ordinary C++ in its own
        # cc_library (//swig:bindings), compiled with the project's warnings as errors.
        copts = copts + [
            "-Wno-cast-function-type",
            "-Wno-missing-field-initializers",
            "-Wno-unused-parameter",
        ],
        additional_linker_inputs = [version_script],
        linkopts = ["-Wl,--version-script=$(location %s)" % version_script] + linkopts,
        linkshared = 1,
        linkstatic = 1,
        deps = deps + [python_headers],
    )
    _py_stub(
        name = name + "_stub",
        out = module_name + ".pyi",
        module_files = [shared_object, module_name + ".py"] + data,
        module_name = module_name,
        package = native.package_name().split("/")[-1],
    )
    py_library(
        name = name,
        srcs = [module_name + ".py"],
        srcs_version = "PY3",
        data = [shared_object, module_name + ".pyi"] + data,
        **kwargs
    )
