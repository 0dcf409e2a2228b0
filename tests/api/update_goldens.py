"""Rewrites tests/api/golden/ from the current build, after an intended change:

    bazel run //tests/api:update_goldens

then review the diff (git diff tests/api/golden) and commit it with the change."""

import os
import sys

import api_golden


def main():
    workspace = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    if not workspace:
        sys.exit("run me with: bazel run //tests/api:update_goldens")
    golden = os.path.join(workspace, "tests", "api", "golden")
    os.makedirs(os.path.join(golden, "api"), exist_ok=True)
    written = {os.path.join(golden, "ops.txt"): api_golden.ops_text()}
    for name in api_golden.PUBLIC_MODULES:
        written[os.path.join(golden, "api", name + ".txt")] = api_golden.describe(name)
    for stale in os.listdir(os.path.join(golden, "api")):
        path = os.path.join(golden, "api", stale)
        if path not in written:
            os.remove(path)
            print(f"removed {os.path.relpath(path, workspace)}")
    for path, text in sorted(written.items()):
        with open(path, "w") as f:
            f.write(text)
        print(f"wrote {os.path.relpath(path, workspace)}")


if __name__ == "__main__":
    main()
