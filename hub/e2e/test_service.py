"""What the hub does for the service manager that runs it (the Debian package's systemd unit),
with a real `nearcast-hub serve` and the sd_notify socket played by the test:

- `READY=1` (and a STATUS line naming what it serves) goes to `$NOTIFY_SOCKET` once the hub
  listens, to a socket path and to an abstract one (`@name`), so a Type=notify unit is started
  only when phones can connect;
- SIGHUP (`systemctl reload`) on a hub without TLS is logged and the hub keeps serving (the
  signal's default action would end it);
- `--version` prints the stamped version; an IPv6 listen address in brackets ([::1]:PORT) is
  served, and a bracket in the wrong place is refused naming the option."""
import os
import signal
import socket
import subprocess
import tempfile
import time
import unittest
import urllib.request

from hubtest import HUB, Hub


class ServiceManagerContract(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="nearcast-service-")
        self.db = f"sqlite:{self.work}/hub.sqlite"

    def serve_notifying(self, notify_address, bind_address):
        """A hub started with NOTIFY_SOCKET=`notify_address`; returns (process, datagrams)."""
        receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.addCleanup(receiver.close)
        receiver.bind(bind_address)
        receiver.settimeout(30)
        process = subprocess.Popen([HUB, "serve", "--listen", "127.0.0.1:0", "--db", self.db],
                                   env={**os.environ, "NOTIFY_SOCKET": notify_address},
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (process.poll() is None and process.terminate(), process.wait(20)))
        datagram = receiver.recv(4096).decode()
        return process, datagram

    def test_ready_is_notified_once_listening_to_a_path_and_to_an_abstract_socket(self):
        path = os.path.join(self.work, "notify")
        process, datagram = self.serve_notifying(path, path)
        lines = datagram.split("\n")
        self.assertIn("READY=1", lines)
        status = next(line for line in lines if line.startswith("STATUS="))
        self.assertRegex(status, r"^STATUS=serving http://127\.0\.0\.1:\d+$")
        port = int(status.rsplit(":", 1)[1])
        # Ready means listening: the status page answers at once.
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as response:
            self.assertEqual(response.status, 200)

        name = f"nearcast-test-{os.getpid()}-{time.monotonic_ns()}"
        _, datagram = self.serve_notifying("@" + name, "\0" + name)
        self.assertIn("READY=1", datagram.split("\n"))

    def test_sighup_without_tls_is_logged_and_the_hub_keeps_serving(self):
        hub = Hub(self.db)
        self.addCleanup(hub.stop)
        hub.process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 10
        while "SIGHUP" not in hub.stderr() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertIn("SIGHUP: no certificate to read again", hub.stderr())
        self.assertIsNone(hub.process.poll(), "the hub ended on SIGHUP")
        status, _ = hub.get("/healthz")
        self.assertEqual(status, 200)

    def test_version_and_ipv6_listen_addresses(self):
        version = subprocess.run([HUB, "--version"], capture_output=True, text=True, timeout=30)
        self.assertEqual(version.returncode, 0, version.stderr)
        self.assertRegex(version.stdout.strip(), r"^\d+\.\d+\.\d+")

        if socket.has_ipv6:
            try:
                probe = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
                probe.bind(("::1", 0))
                probe.close()
            except OSError:
                probe = None
            if probe is not None:
                hub = Hub(self.db, listen="[::1]:0")
                self.addCleanup(hub.stop)
                with socket.create_connection(("::1", hub.port), timeout=10) as connection:
                    connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n")
                    self.assertTrue(connection.recv(64).startswith(b"HTTP/1.1 200"))

        refused = subprocess.run([HUB, "serve", "--listen", "::1]:8080", "--db", self.db],
                                 capture_output=True, text=True, timeout=30)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("--listen ::1]:8080", refused.stderr)
        self.assertIn("brackets", refused.stderr)


if __name__ == "__main__":
    unittest.main()
