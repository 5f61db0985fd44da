"""tools/vm/build-modules and tools/vm/linux-source-files: what they say when they cannot work.
Their real work needs a kernel's headers and Debian's linux-source; `tools/vm/vm-board setup` does it
on both boards (and tools/check/test-vm then boots with the result)."""
import os
import subprocess
import tempfile
import unittest

TOOLS_VM = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(script, *args):
    return subprocess.run([os.path.join(TOOLS_VM, script), *args], capture_output=True, text=True)


class ModuleScriptTests(unittest.TestCase):
    def test_build_modules_names_the_missing_headers(self):
        with tempfile.TemporaryDirectory() as module:
            result = run("build-modules", "0.0.0-none", module)
            self.assertEqual(result.returncode, 1)
            self.assertEqual(result.stderr, "build-modules: /lib/modules/0.0.0-none/build is missing (linux-headers-0.0.0-none)\n")
            self.assertEqual(os.listdir(module), [])   # nothing was started

    def test_usage(self):
        for script, args, expected in [("build-modules", ["6.1.0-56-amd64"], "tools/vm/build-modules KVER DIR..."),
                                       ("linux-source-files", ["6.12", "/tmp/x"], "tools/vm/linux-source-files KVER DIR FILE...")]:
            with self.subTest(script=script):
                result = run(script, *args)
                self.assertEqual(result.returncode, 2)
                self.assertIn(expected, result.stderr)


if __name__ == "__main__":
    unittest.main()
