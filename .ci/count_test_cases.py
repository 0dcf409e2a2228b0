"""Prints 'tests: N passed, N failed, N skipped' over the JUnit XML files Bazel collected.

Arguments: testlogs directories (missing ones are skipped). Exits 1 when a case failed or none ran.
"""

import pathlib
import sys
import xml.etree.ElementTree as ET


def main(testlog_dirs):
    passed = failed = skipped = 0
    for testlogs in map(pathlib.Path, testlog_dirs):
        for xml in sorted(testlogs.rglob("test.xml")) if testlogs.is_dir() else []:
            for case in ET.parse(xml).iter("testcase"):
                if case.find("failure") is not None or case.find("error") is not None:
                    failed += 1
                elif case.find("skipped") is not None or case.get("result") == "skipped":
                    skipped += 1
                else:
                    passed += 1
    print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
