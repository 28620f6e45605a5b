#!/usr/bin/env python3
"""The architecture check on the real tree (must pass) and on small made-up trees (each
forbidden include must be caught, each allowed one must not)."""
import atexit
import pathlib
import shutil
import subprocess
import sys
import tempfile
import tomllib
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import check_architecture  # noqa: E402

TABLE = tomllib.loads((HERE / "allowed_dependencies.toml").read_text())


def tree(files: dict[str, str]) -> pathlib.Path:
    top = tempfile.mkdtemp(prefix="gpufleet_arch_")
    atexit.register(shutil.rmtree, top, True)
    root = pathlib.Path(top) / "src"
    for comp in TABLE["components"]:
        (root / comp).mkdir(parents=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


class ArchitectureTest(unittest.TestCase):
    def test_real_tree_has_no_forbidden_include(self):
        run = subprocess.run([sys.executable, str(HERE / "check_architecture.py")],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("0 forbidden includes", run.stdout)

    def test_upward_include_is_caught_with_file_and_line(self):
        src = tree({"store/window_store.cc": '#include "core/status.h"\n'
                                             '#include "detect/finding.h"\n'})
        problems = check_architecture.check(src, TABLE)
        self.assertEqual(len(problems), 1)
        self.assertIn("src/store/window_store.cc:2: store must not include detect", problems[0])

    def test_sideways_include_is_caught(self):
        src = tree({"collect/nvml_collector.cc": '#include "normalize/normalizer.h"\n'})
        self.assertEqual(len(check_architecture.check(src, TABLE)), 1)

    def test_allowed_arrows_and_own_headers_pass(self):
        src = tree({"server/http_api.cc": '#include "server/http_api.h"\n'
                                          '#include "detect/finding.h"\n#include "net/url.h"\n',
                    "collect/nvml_collector_test.cc": '#include "normalize/normalizer.h"\n'})
        self.assertEqual(check_architecture.check(src, TABLE), [])

    def test_socket_library_outside_net_is_caught_except_in_tests(self):
        src = tree({"agent/agent_server.cc": "#include <httplib.h>\n",
                    "agent/agent_test.cc": "#include <httplib.h>\n",
                    "net/http_server.cc": "#include <httplib.h>\n"})
        problems = check_architecture.check(src, TABLE)
        self.assertEqual(len(problems), 1)
        self.assertIn("agent/agent_server.cc:1", problems[0])
        self.assertIn("only net opens sockets", problems[0])

    def test_unknown_component_folder_is_caught(self):
        src = tree({"misc/util.cc": "int x;\n"})
        problems = check_architecture.check(src, TABLE)
        self.assertEqual(len(problems), 1)
        self.assertIn("'misc' is not in the table", problems[0])


if __name__ == "__main__":
    unittest.main(verbosity=2)
