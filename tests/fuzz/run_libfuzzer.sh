#!/usr/bin/env bash
# Coverage-guided fuzzing with clang's libFuzzer, ASan and UBSan: the long runs. CI runs the same
# targets briefly through fuzz_driver.cc (//tests/fuzz:*_fuzz_test).
#
#   tests/fuzz/run_libfuzzer.sh TARGET [SECONDS] [libFuzzer flags...]   (default: 600 seconds)
#
# TARGET: record_reader (native/io: readers, the scanner, index scanning and parsing), example
# (the Example/SequenceExample codec), image (the JPEG/PNG decoders and batch decode), op_defs
# (OpDef parsing and the op generator) or quantized_ops (TensorFlow's quantized ops on every
# 8-bit kernel the CPU has). Needs clang (as root: apt-get install -y clang). Works in
# .fuzz/TARGET/ (git-ignored): the binary, the growing corpus and any crash-* inputs, which
# reproduce with: .fuzz/TARGET/fuzzer .fuzz/TARGET/crash-...
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
target="${1:-}"
seconds="${2:-600}"
(($# > 2)) && shift 2 || set --
command -v clang++ >/dev/null || {
  echo "run_libfuzzer: clang++ not found; as root: apt-get install -y clang" >&2
  exit 1
}

work="$root/.fuzz/$target"
mkdir -p "$work/include" "$work/corpus"
ln -sfn "$root/native" "$work/include/swigflow"  # headers are included as swigflow/...

libs=()
declare -A isa_flags=()
case "$target" in
  record_reader)
    sources=(
      native/framework/status.cc native/framework/cpu_info.cc
      native/io/crc32c.cc native/io/crc32c_sse42.cc native/io/file.cc native/io/input_stream.cc
      native/io/zlib_stream.cc native/io/record_options.cc native/io/record_writer.cc
      native/io/record_reader.cc native/io/record_index.cc native/io/record_scan.cc
      tests/fuzz/record_reader_fuzzer.cc
    )
    # Seeds: the golden files small enough to mutate quickly, also ZLIB- and GZIP-compressed.
    for f in "$root"/tests/testdata/golden/*.tfrecord; do
      if (($(stat -c %s "$f") <= 65536)); then
        base=$(basename "$f")
        cp "$f" "$work/corpus/$base"
        gzip -c "$f" >"$work/corpus/$base.gz"
        python3 -c 'import sys, zlib; sys.stdout.buffer.write(zlib.compress(open(sys.argv[1], "rb").read()))' \
          "$f" >"$work/corpus/$base.zlib"
      fi
    done
    ;;
  example)
    sources=(native/framework/status.cc native/framework/thread_pool.cc
      native/example/example.cc native/example/parse.cc tests/fuzz/example_fuzzer.cc)
    cp "$root"/tests/testdata/example_seeds/* "$work/corpus/"
    ;;
  image)
    sources=(native/framework/status.cc native/framework/cpu_info.cc
      native/framework/thread_pool.cc native/image/batch.cc native/image/crop.cc
      native/image/image.cc native/image/jpeg.cc native/image/png.cc native/image/resize.cc
      native/image/resize_kernels_sse2.cc native/image/resize_kernels_avx2.cc
      native/image/resize_kernels_avx512.cc tests/fuzz/image_fuzzer.cc)
    declare -A isa_flags=(
      [native/image/resize_kernels_avx2.cc]="-mavx2"
      [native/image/resize_kernels_avx512.cc]="-mavx512f -mavx512bw -mavx512dq -mavx512vl
        -ffp-contract=off"
    )
    libs=(-ljpeg -lpng16)
    cp "$root"/tests/testdata/tf_images/*.jpg "$root"/tests/testdata/tf_images/*.png "$work/corpus/"
    ;;
  op_defs)
    sources=(native/framework/status.cc native/framework/cpu_info.cc
      native/framework/thread_pool.cc native/framework/tensor.cc native/framework/op.cc
      native/framework/op_compat.cc native/framework/python_op_gen.cc
      tests/fuzz/op_defs_fuzzer.cc)
    cp "$root"/tests/api/golden/ops.txt "$work/corpus/"
    ;;
  quantized_ops)
    sources=(native/framework/status.cc native/framework/cpu_info.cc
      native/framework/thread_pool.cc native/framework/tensor.cc native/framework/op.cc
      native/framework/memory.cc
      native/kernels/gemm/gemm.cc native/kernels/gemm/kernel_scalar.cc
      native/kernels/gemm/kernel_avx2.cc native/kernels/gemm/kernel_avx512.cc
      native/kernels/gemm/int8_gemm.cc native/kernels/gemm/int8_kernel_scalar.cc
      native/kernels/gemm/int8_kernel_avx2.cc native/kernels/gemm/int8_kernel_avx_vnni.cc
      native/kernels/gemm/int8_kernel_avx512_vnni.cc
      native/kernels/gemm/config/kernel_config.cc native/kernels/gemm/config/zen4.cc
      native/kernels/quantization/conv_geometry.cc native/kernels/quantization/fused_ops.cc
      native/kernels/quantization/gemm_operands.cc
      native/kernels/quantization/quantization_utils.cc
      native/kernels/quantization/quantize_ops.cc native/kernels/quantization/quantized_ops.cc
      native/kernels/quantization/requantize_row.cc
      native/kernels/quantization/requantize_row_avx2.cc
      native/kernels/quantization/requantize_row_avx512.cc
      tests/fuzz/quantized_ops_fuzzer.cc)
    # Each micro-kernel is compiled for its own ISA, as in its BUILD file; the fuzzer runs the
    # ones the CPU has.
    declare -A isa_flags=(
      [native/kernels/gemm/kernel_avx2.cc]="-mavx2 -mfma"
      [native/kernels/gemm/kernel_avx512.cc]="-mavx512f -mfma"
      [native/kernels/gemm/int8_kernel_avx2.cc]="-mavx2"
      [native/kernels/gemm/int8_kernel_avx_vnni.cc]="-mavx2 -mavxvnni"
      [native/kernels/gemm/int8_kernel_avx512_vnni.cc]="-mavx512f -mavx512bw -mavx512vnni"
      [native/kernels/quantization/requantize_row_avx2.cc]="-mavx2"
      [native/kernels/quantization/requantize_row_avx512.cc]="-mavx512f"
    )
    cp "$root"/tests/testdata/quantized_ops_seeds/* "$work/corpus/"
    ;;
  *)
    echo "usage: $0 record_reader|example|image|op_defs|quantized_ops [SECONDS]" \
      "[libFuzzer flags...]" >&2
    exit 2
    ;;
esac
flags=(-std=c++17 -O1 -g -msse4.2 -fno-omit-frame-pointer -fsanitize=address,undefined
  -fno-sanitize-recover=undefined -I"$work/include" -I"$root")
# One object per source, so that a source can have flags of its own (isa_flags).
mkdir -p "$work/obj"
objects=()
for src in "${sources[@]}"; do
  object="$work/obj/$(echo "$src" | tr / _).o"
  extra=${isa_flags[$src]:-}
  fuzzer_flag=-fsanitize=fuzzer-no-link
  [[ "$src" == tests/fuzz/* ]] && fuzzer_flag=-fsanitize=fuzzer
  # shellcheck disable=SC2086  # extra is a list of flags
  (cd "$root" && clang++ "${flags[@]}" "$fuzzer_flag" $extra -c "$src" -o "$object")
  objects+=("$object")
done
clang++ -fsanitize=fuzzer,address,undefined "${objects[@]}" "${libs[@]}" -lz -pthread \
  -o "$work/fuzzer"

cd "$work"
exec ./fuzzer -max_total_time="$seconds" -max_len=65536 -timeout=10 \
  -rss_limit_mb=512 -malloc_limit_mb=256 -print_final_stats=1 "$@" corpus
