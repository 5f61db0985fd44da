"""`tools/vm/vm-board run` with tests/fake-qemu in place of qemu: the host's half of a run, tested
without booting. The arm64 board is the one used, because its root and cache can both be made
here (NEARCAST_CACHE holds the root tools/setup/debian13-root names, NEARCAST_VM_CACHE the kernel's
files; empty files do, since nothing boots); the amd64 board's root is this machine's own /, and
everything past choosing the root is the same code. What a real boot adds (the guest's side of the
console protocol in tools/vm/stage2) is what tools/check/test-vm covers."""
import os
import subprocess
import tempfile
import textwrap
import time
import unittest

TESTS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(TESTS)))
VM_BOARD = os.path.join(REPO, "tools", "vm", "vm-board")
KVER = "6.12.0-test-arm64"


class VmBoardRunTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        top = self.dir.name
        # The arm64 root as tools/setup/debian13-root would leave it, as far as vm-board looks.
        root = os.path.join(top, "roots", "debian13-arm64")
        for d in ("var/lib/dpkg", "bin", "lib/modules/%s/kernel/sound" % KVER):
            os.makedirs(os.path.join(root, d))
        self.touch(os.path.join(root, ".nearcast-recipe"))
        self.touch(os.path.join(root, "bin/busybox"), mode=0o755)
        with open(os.path.join(root, "var/lib/dpkg/status"), "w") as f:
            f.write(textwrap.dedent("""\
                Package: linux-image-arm64
                Status: install ok installed
                Priority: optional
                Maintainer: test
                Architecture: arm64
                Version: 6.12.0-test
                Depends: linux-image-%s (= 6.12.0-test)
                Description: the kernel vm-board boots
                """ % KVER))
        # What setup leaves in the cache.
        self.cache = os.path.join(top, "vm-cache")
        for name in ("vmlinux", "gpio-sim.ko", "hci_vhci.ko", "initramfs.cpio.gz"):
            self.touch(os.path.join(self.cache, KVER, name))
        self.bin = os.path.join(top, "bin")
        os.makedirs(self.bin)
        os.symlink(os.path.join(TESTS, "fake-qemu"), os.path.join(self.bin, "qemu-system-aarch64"))
        self.args_file = os.path.join(top, "qemu-args")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("NEARCAST_", "FAKE_QEMU"))}
        self.env.update(PATH=self.bin + os.pathsep + os.environ["PATH"], NEARCAST_CACHE=os.path.join(top, "roots"),
                        NEARCAST_VM_CACHE=self.cache, FAKE_QEMU_ARGS=self.args_file)

    def tearDown(self):
        self.dir.cleanup()

    @staticmethod
    def touch(path, mode=0o644):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "w").close()
        os.chmod(path, mode)

    def run_board(self, *args, fake="run", cwd=REPO, timeout=60):
        env = dict(self.env, FAKE_QEMU=fake)
        return subprocess.run([VM_BOARD, "--arch", "arm64", "run", *args], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=timeout)

    def qemu_args(self):
        with open(self.args_file) as f:
            return f.read().splitlines()

    def test_output_and_exit_code_are_the_commands(self):
        run = self.run_board("--", "sh", "-c", "echo one; printf 'no newline at the end'; exit 7")
        self.assertEqual(run.returncode, 7, run.stderr)
        # The line without a newline is the command's; the newline before the marker is not.
        self.assertEqual(run.stdout, "one\nno newline at the end\n")
        self.assertIn("vm-board: guest ready in", run.stderr)
        self.assertIn("vm-board: command exited with 7 after", run.stderr)
        # Boot messages stay out of the output without --verbose.
        self.assertNotIn("Booting Linux", run.stdout + run.stderr)

    def test_empty_lines_of_the_command_are_kept(self):
        run = self.run_board("--", "printf", "a\\n\\nb\\n\\n")
        self.assertEqual((run.returncode, run.stdout), (0, "a\n\nb\n\n"), run.stderr)

    def test_arguments_env_and_working_directory_reach_the_command_exactly(self):
        awkward = ["two words", "it's", '"quoted"', "$HOME", "*", "new\nline", ""]
        run = self.run_board("--env", "GREETING=hello  there; $(no)", "--env", "EMPTY=", "--",
                             "sh", "-c", 'printf "<%s>\\n" "$@" "$GREETING" "${EMPTY-unset}" "$NEARCAST_VM" "$PWD"',
                             "sh", *awkward, cwd=os.path.join(REPO, "tools"))
        self.assertEqual(run.returncode, 0, run.stderr)
        # ... and it ran in the host's working directory, as a guest command does.
        expected = awkward + ["hello  there; $(no)", "", "1", os.path.join(REPO, "tools")]
        self.assertEqual(run.stdout, "".join("<%s>\n" % a for a in expected))

    def test_a_marker_without_the_nonce_is_the_commands_output(self):
        # Only the run's own nonce ends it: a program printing marker-like lines does not.
        run = self.run_board("--", "sh", "-c", "echo VM-BOARD-EXIT:0000000000000000:0; echo VM-BOARD-READY:x; exit 3")
        self.assertEqual(run.returncode, 3, run.stderr)
        self.assertEqual(run.stdout, "VM-BOARD-EXIT:0000000000000000:0\nVM-BOARD-READY:x\n")

    def test_what_qemu_is_given(self):
        share = os.path.join(self.dir.name, "share")
        os.makedirs(share)
        run = self.run_board("--memory", "512", "--cpus", "2", "--share", share, "--", "true")
        self.assertEqual(run.returncode, 0, run.stderr)
        args = self.qemu_args()
        self.assertEqual(args[:11], ["-M", "virt", "-m", "512", "-smp", "2", "-accel", "tcg", "-cpu", "cortex-a72", "-fsdev"])
        self.assertIn("local,id=share,path=%s,security_model=none,multidevs=remap" % share, args)
        self.assertIn("local,id=repo,path=%s,security_model=none,readonly=on,multidevs=remap" % REPO, args)
        self.assertEqual(args[args.index("-kernel") + 1], os.path.join(self.cache, KVER, "vmlinux"))
        self.assertEqual(args[args.index("-initrd") + 1], os.path.join(self.cache, KVER, "initramfs.cpio.gz"))
        cmdline = args[args.index("-append") + 1].split()
        self.assertIn("console=ttyAMA0", cmdline)
        self.assertIn("vmboard.mounts=repo@%s,vmcache@%s" % (REPO, self.cache), cmdline)
        stage2 = [a for a in cmdline if a.startswith("vmboard.stage2=")]
        self.assertEqual(len(stage2), 1, cmdline)
        self.assertTrue(stage2[0].startswith("vmboard.stage2=%s/runs/run." % self.cache), stage2)
        # The run's job directory is gone afterwards.
        self.assertEqual(os.listdir(os.path.join(self.cache, "runs")), [])

    def test_a_failed_guest_set_up_step_is_named(self):
        run = self.run_board("--", "true", fake="setup-fails")
        self.assertEqual(run.returncode, 125)
        self.assertIn("vm-board: error: boot failure: guest set-up failed: insmod /cache/gpio-sim.ko failed", run.stderr)
        self.assertEqual(run.stdout, "")

    def test_a_kernel_panic_is_shown_and_named(self):
        run = self.run_board("--", "true", fake="panic")
        self.assertEqual(run.returncode, 125)
        self.assertIn("Kernel panic - not syncing: VFS: Unable to mount root fs", run.stdout)
        self.assertIn("vm-board: error: kernel panic: VFS: Unable to mount root fs on unknown-block(0,0)", run.stderr)

    def test_qemu_refusing_to_start(self):
        run = self.run_board("--", "true", fake="refuse")
        self.assertEqual(run.returncode, 125)
        self.assertIn("qemu-system-aarch64: -fsdev local,id=root: cannot initialize fsdev 'root'", run.stderr)
        self.assertIn("vm-board: error: qemu failed (exit 1); its messages are above", run.stderr)

    def test_a_run_past_its_timeout_is_stopped(self):
        started = time.monotonic()
        run = self.run_board("--timeout", "2", "--", "true", fake="hang")
        self.assertEqual(run.returncode, 124, run.stderr)
        self.assertIn("vm-board: error: timeout: the VM was still running after 2 s (the command did not finish); killed",
                      run.stderr)
        self.assertLess(time.monotonic() - started, 20)

    def test_a_guest_that_stops_without_the_exit_code(self):
        run = self.run_board("--", "echo", "partial", fake="lost")
        self.assertEqual(run.returncode, 125)
        # After READY everything the console says is shown, the kernel's power-off line included.
        self.assertEqual(run.stdout, "partial\n[   12.345678] reboot: Power down\n")
        self.assertIn("vm-board: error: the guest stopped without reporting the command's exit code", run.stderr)

    def test_setup_not_done(self):
        os.remove(os.path.join(self.cache, KVER, "hci_vhci.ko"))
        run = self.run_board("--", "true")
        self.assertEqual(run.returncode, 125)
        self.assertIn("vm-board: error: setup has not been done (%s/%s/hci_vhci.ko is missing): run tools/vm/vm-board setup"
                      % (self.cache, KVER), run.stderr)

    def test_usage_errors(self):
        for args, message in [
            (["--env", "1X=y", "--", "true"], "vm-board: --env takes NAME=VALUE, not '1X=y'"),
            (["--timeout", "0", "--", "true"], "vm-board: --timeout takes whole seconds"),
            (["--memory", "128", "--", "true"], "vm-board: --memory takes MB (>= 256)"),
            (["--share", "/nonexistent", "--", "true"], "vm-board: --share: /nonexistent is not a directory"),
            (["--"], "vm-board: run needs a command after --"),
            (["true"], "vm-board: unknown option 'true' (the command goes after --)"),
        ]:
            with self.subTest(args=args):
                run = self.run_board(*args)
                self.assertEqual((run.returncode, run.stderr), (2, message + "\n"))

    def test_the_arm64_board_needs_a_directory_inside_the_repository(self):
        run = self.run_board("--", "true", cwd=self.dir.name)
        self.assertEqual(run.returncode, 125)
        self.assertIn("on the arm64 board the working directory must be inside %s" % REPO, run.stderr)


if __name__ == "__main__":
    unittest.main()
