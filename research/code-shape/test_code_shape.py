"""research/code-shape/code-shape on a small Swift tree made here: the cycle finder, the function
measure (braces in strings, interpolations and comments), the dependency edges and a type's members.

Run: python3 -m unittest discover -s research/code-shape -v
"""
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "code-shape")


def load_tool():
    loader = importlib.machinery.SourceFileLoader("code_shape", TOOL)
    spec = importlib.util.spec_from_loader("code_shape", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


code_shape = load_tool()

# Module App: A -> B -> F -> A is one cycle of three; D <-> E one of two; C depends on A only and
# names D and E only in a comment and a string (were those read as uses, C would join D and E's
# cycle, since D mentions C).
FILES = {
    "Sources/App/A.swift": '''
        struct A {
            let b: B
            var count: Int { didSet { print("changed {") } }
            var name: String { "a" }
            static let limit = 3

            init(b: B) {
                self.b = b; count = 0
            }

            // The measured one: 9 lines, from `func` to its closing brace, with braces in a
            // string, an interpolation with a closure, a raw string and a comment.
            func render(_ items: [Int]) -> String {
                let open = "{ not a brace"
                let list = "\\(items.map { "\\($0)}" }.joined())"
                let raw = #"}"# + #"""
                    }}}
                    """#
                /* { nested /* } */ { */
                return open + list + raw
            }
        }
        ''',
    "Sources/App/B.swift": '''
        final class B {
            var f: F?
            func go() { if true { _ = 1 } }
        }
        ''',
    "Sources/App/F.swift": '''
        enum F {
            case one(A)
        }
        ''',
    "Sources/App/C.swift": '''
        /// Unlike D and E.
        protocol C {
            func needed() -> A
        }
        let message = "D and E"
        ''',
    "Sources/App/sub/D.swift": '''
        struct D { var e: E?; var c: C? }
        typealias DAlias = D
        ''',
    "Sources/App/sub/E.swift": '''
        extension A {
            func extra() {}
            var doubled: Int { count * 2 }
        }
        struct E { let d: DAlias }
        ''',
    "Sources/Other/Lone.swift": '''
        struct Lone {}
        struct Alone { let lone: Lone }
        ''',
    "hub/Sources/Hub/H1.swift": "struct H1 { let h: H2 }\n",
    "hub/Sources/Hub/H2.swift": "struct H2 { let h: H1? }\n",
}


class CodeShapeTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.TemporaryDirectory()
        cls.root = cls.directory.name
        for path, text in FILES.items():
            full = os.path.join(cls.root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(textwrap.dedent(text).lstrip("\n"))
        run = subprocess.run([sys.executable, TOOL, "--root", cls.root, "--json", "--type", "A", "--type", "Gone"],
                             capture_output=True, text=True, timeout=60)
        if run.returncode != 0:
            raise AssertionError(f"code-shape failed: {run.stderr}")
        cls.result = json.loads(run.stdout)

    @classmethod
    def tearDownClass(cls):
        cls.directory.cleanup()

    def test_cycles_per_module(self):
        app = self.result["modules"]["Sources/App"]
        self.assertEqual(app["files"], 6)
        self.assertEqual(app["cycles"], 2, app)
        self.assertEqual(app["cycle_sizes"], [3, 2])
        self.assertEqual(app["largest_files"],
                         ["Sources/App/A.swift", "Sources/App/B.swift", "Sources/App/F.swift"])
        self.assertEqual(self.result["modules"]["Sources/Other"]["cycles"], 0)
        hub = self.result["modules"]["hub/Sources/Hub"]
        self.assertEqual((hub["cycles"], hub["largest"]), (1, 2))

    def test_edges_ignore_comments_and_strings(self):
        files = code_shape.swift_files(self.root)["Sources/App"]
        graph = code_shape.dependency_graph(files)
        self.assertEqual(graph["Sources/App/C.swift"], {"Sources/App/A.swift"})
        # E uses the typealias declared in D, and extends A.
        self.assertEqual(graph["Sources/App/sub/E.swift"], {"Sources/App/sub/D.swift", "Sources/App/A.swift"})

    def test_alternative_declarations_of_one_type_are_not_edges(self):
        with tempfile.TemporaryDirectory() as root:
            folder = os.path.join(root, "Sources", "Drivers")
            os.makedirs(folder)
            for name in ("LEDsV1", "LEDsV2"):
                with open(os.path.join(folder, f"{name}.swift"), "w") as f:
                    f.write("#if GPIOD_V%s\nfinal class LEDs { let pins: Pins }\n#endif\n" % name[-1])
            with open(os.path.join(folder, "Pins.swift"), "w") as f:
                f.write("struct Pins { }\n")
            graph = code_shape.dependency_graph(code_shape.swift_files(root)["Sources/Drivers"])
        self.assertEqual(graph["Sources/Drivers/LEDsV1.swift"], {"Sources/Drivers/Pins.swift"})
        self.assertEqual(graph["Sources/Drivers/LEDsV2.swift"], {"Sources/Drivers/Pins.swift"})

    def test_strongly_connected_components(self):
        graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}, "g": set()}
        components = sorted(code_shape.strongly_connected(graph))
        self.assertEqual(components, [["a", "b", "c"], ["d", "e"], ["f"], ["g"]])
        # A long chain closing on itself, deeper than Python's recursion limit.
        chain = {str(i): {str(i + 1)} for i in range(5000)}
        chain["5000"] = {"0"}
        self.assertEqual([len(c) for c in code_shape.strongly_connected(chain)], [5001])

    def test_function_measure(self):
        functions = {(f["name"], f["file"]): (f["line"], f["lines"]) for f in self.result["largest_functions"]}
        self.assertEqual(functions[("A.render", "Sources/App/A.swift")], (13, 9))
        self.assertEqual(functions[("A.init", "Sources/App/A.swift")], (7, 3))
        self.assertEqual(functions[("B.go", "Sources/App/B.swift")], (3, 1))
        self.assertEqual(functions[("A.extra", "Sources/App/sub/E.swift")], (2, 1))
        # The protocol's requirement has no body: it is not a function to measure.
        self.assertNotIn("C.needed", {name for name, _ in functions})
        self.assertEqual(self.result["largest_functions"][0]["name"], "A.render")

    def test_largest_files(self):
        self.assertEqual(self.result["largest_files"][0], {"file": "Sources/App/A.swift", "lines": 22})

    def test_type_members(self):
        a, gone = self.result["types"]
        self.assertEqual(a["by_kind"], {"computed var": 2, "func": 2, "init": 1, "static stored let": 1,
                                        "stored let": 1, "stored var": 1})
        self.assertEqual(a["members"], 8)
        self.assertEqual(a["extensions"], ["extension Sources/App/sub/E.swift:1"])
        self.assertEqual(gone["members"], 0)
        self.assertEqual(gone["declared"], [])

    def test_mask_keeps_offsets_and_interpolated_code(self):
        source = 'let s = "a{\\(f("}"))b" // {\nlet t = 1 /* } */\n'
        masked = code_shape.mask(source)
        self.assertEqual(len(masked), len(source))
        self.assertEqual(masked.count("\n"), 2)
        self.assertNotIn("{", masked)
        self.assertNotIn("}", masked)
        self.assertIn("f(", masked)

    def test_text_output(self):
        run = subprocess.run([sys.executable, TOOL, "--root", self.root, "--type", "A"],
                             capture_output=True, text=True, timeout=60, check=True)
        self.assertIn("Sources/App: 6 files", run.stdout)
        self.assertIn("2 cycles (sizes 3, 2)", run.stdout)
        self.assertIn("cycles in all modules: 3", run.stdout)
        self.assertIn("Members of A: 8", run.stdout)


if __name__ == "__main__":
    unittest.main()
