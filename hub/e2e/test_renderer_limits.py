"""The deck renderer keeps its limits, through real hubs and real poppler processes:
slow PDFs are stopped at the wall-clock deadline, one at a time, while the hub answers /healthz
at once; an abandoned upload, a SIGTERM and a kill -9 of the hub each leave no renderer behind;
a hub out of descriptors refuses an upload (503) and lives on; a project's storage quota
refuses a deck with nothing stored.

The slow PDF is one page of 200,000 filled rectangles in a flate stream: 10 KB on disk, over a
minute of pdftoppm at 1,600 pixels. Each hub gets a TMPDIR of its own, so its renderers are told
apart from other tests' (run_parallel.py runs classes side by side) by their command lines.
"""
import http.client
import json
import os
import signal
import socket
import tempfile
import threading
import time
import unittest
import zlib

from hubtest import Database, Hub, create_project, pdf_deck, pdf_file, upload_deck


def slow_pdf(rectangles: int = 200_000) -> bytes:
    """One 960 x 540 page whose content stream fills `rectangles` 200 x 100 rectangles: a few
    KB compressed, a minute and more to rasterise."""
    content = zlib.compress(b"0.5 0.5 200 100 re f\n" * rectangles, 9)
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 960 540] /Contents 4 0 R >>",
               b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(content) + content + b"\nendstream"]
    return pdf_file(objects)


def renderers(folder: str) -> dict:
    """Live (not zombie) poppler processes whose command line names `folder`:
    {pid: (their /proc stat fields after the name, their command line)}."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as f:
                # After the ")" that ends the command's name: state, ppid, pgrp, ...
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if folder in command and ("pdftoppm" in command or "pdfinfo" in command) and fields[0] != "Z":
            found[int(entry)] = (fields, command)
    return found


def wait_for(condition, timeout: float, step: float = 0.05):
    """`condition()`'s first true value within `timeout` seconds, else None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    return None


class RendererLimits(unittest.TestCase):
    """Each test starts its own hub (SQLite) with the limits it tries, over one database."""

    @classmethod
    def setUpClass(cls):
        cls.database = Database("sqlite")
        cls.keys = create_project(cls.database.url, "demo")
        cls.secret = cls.keys["secretKey"]
        cls.slow = slow_pdf()

    @classmethod
    def tearDownClass(cls):
        cls.database.drop()

    def setUp(self):
        self.temporary = tempfile.mkdtemp(prefix="nearcast-renderer-test-")
        self.hub = None

    def tearDown(self):
        if self.hub is not None:
            if self._outcome.success is False:
                print(self.hub.stderr())
            self.hub.stop()
        for pid in renderers(self.temporary):
            os.kill(pid, signal.SIGKILL)

    def start_hub(self, *flags, wrapper=()):
        """A hub whose renders work in this test's own TMPDIR."""
        previous = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = self.temporary
        try:
            self.hub = Hub(self.database.url, extra=flags, wrapper=wrapper)
        finally:
            if previous is None:
                del os.environ["TMPDIR"]
            else:
                os.environ["TMPDIR"] = previous
        return self.hub

    def upload_in_background(self, pdf: bytes) -> dict:
        """Uploads `pdf` on a thread; the dict gets "status", "answer" and "seconds" when it ends."""
        result = {}

        def run():
            started = time.monotonic()
            try:
                result["status"], result["answer"] = upload_deck(self.hub.port, self.secret, pdf)
            except (OSError, http.client.HTTPException) as error:
                result["status"], result["answer"] = None, repr(error)
            result["seconds"] = time.monotonic() - started

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        result["thread"] = thread
        return result

    def wait_for_a_renderer(self) -> dict:
        found = wait_for(lambda: {pid: fields for pid, (fields, command) in renderers(self.temporary).items()
                                  if "pdftoppm" in command}, 10)
        self.assertTrue(found, "no pdftoppm started for the upload")
        return found

    def test_slow_decks_are_refused_at_the_deadline_one_at_a_time_while_the_hub_answers(self):
        hub = self.start_hub("--deck-render-seconds", "3", "--deck-renders-at-once", "1")
        first = self.upload_in_background(self.slow)
        running = self.wait_for_a_renderer()
        second = self.upload_in_background(self.slow)
        hub_group = os.getpgid(hub.process.pid)
        for pid, fields in running.items():
            # Its own process group (what the deadline kills), at nice 10 (stat field 19).
            self.assertEqual(int(fields[2]), pid, "a renderer leads a process group of its own")
            self.assertNotEqual(int(fields[2]), hub_group)
            self.assertEqual(int(fields[16]), 10, "a renderer runs at nice 10")
        latencies, most = [], 0
        while first["thread"].is_alive() or second["thread"].is_alive():
            # One deck at a time: its two sizes, never four processes.
            most = max(most, len(renderers(self.temporary)))
            started = time.monotonic()
            status, _ = hub.request("GET", "/healthz")
            latencies.append(time.monotonic() - started)
            self.assertEqual(status, 200)
            time.sleep(0.1)
        for upload in (first, second):
            self.assertEqual(upload["status"], 422, upload["answer"])
            self.assertIn("longer than 3 s", upload["answer"]["error"]["message"])
        # The bounds are behaviour, not speed (the figures are printed): a render left alone
        # takes over a minute, so each refusal well inside that came from its 3 s deadline; the
        # second deck could not be refused before the first's deadline and its own had passed;
        # and a hub that waited on a render would not answer /healthz for 3 s. Speed is for the
        # printed figures: test classes run side by side.
        self.assertLess(first["seconds"], 20, "refused at its deadline, not at the render's end")
        self.assertGreater(second["seconds"], 5, "the second deck waited for the first")
        self.assertLess(second["seconds"], 30, "refused at its own deadline after the first's")
        self.assertLessEqual(most, 2)
        self.assertGreater(len(latencies), 20)
        self.assertLess(max(latencies), 2.5, f"/healthz during the renders: {sorted(latencies)}")
        print(f"\n  refused after {first['seconds']:.2f} s and {second['seconds']:.2f} s; /healthz max "
              f"{max(latencies) * 1000:.1f} ms over {len(latencies)} probes", end=" ")
        self.assertEqual(wait_for(lambda: not renderers(self.temporary), 1), True, "a renderer outlived its deadline")

    def test_an_abandoned_upload_stops_its_render(self):
        hub = self.start_hub("--deck-render-seconds", "60")
        connection = http.client.HTTPConnection("127.0.0.1", hub.port, timeout=10)
        connection.request("POST", "/v1/decks", body=self.slow,
                           headers={"X-Api-Key": self.secret, "Content-Type": "application/pdf"})
        self.wait_for_a_renderer()
        connection.close()
        gone = time.monotonic()
        self.assertEqual(wait_for(lambda: not renderers(self.temporary), 2), True, "the render went on without its uploader")
        print(f"\n  renderer gone {time.monotonic() - gone:.2f} s after the uploader closed", end=" ")
        status, answer = hub.request("GET", "/v1/decks", key=self.secret)
        self.assertEqual((status, answer["decks"]), (200, []))

    def test_sigterm_during_a_render_stops_the_hub_promptly(self):
        hub = self.start_hub("--deck-render-seconds", "60")
        upload = self.upload_in_background(self.slow)
        self.wait_for_a_renderer()
        started = time.monotonic()
        hub.process.send_signal(signal.SIGTERM)
        hub.process.wait(timeout=20)
        seconds = time.monotonic() - started
        print(f"\n  SIGTERM to exit during a render: {seconds:.2f} s", end=" ")
        self.assertLess(seconds, 5)
        upload["thread"].join(5)
        self.assertIn(upload["status"], (503, None), upload["answer"])
        self.assertEqual(wait_for(lambda: not renderers(self.temporary), 1), True, "a renderer outlived the hub")

    def test_kill_9_of_the_hub_leaves_no_renderer(self):
        hub = self.start_hub("--deck-render-seconds", "60")
        self.upload_in_background(self.slow)
        self.wait_for_a_renderer()
        hub.process.kill()
        hub.process.wait()
        self.assertEqual(wait_for(lambda: not renderers(self.temporary), 2), True,
                         f"renderers outlived a killed hub: {renderers(self.temporary)}")

    def test_out_of_descriptors_an_upload_is_a_503_and_the_hub_lives_on(self):
        hub = self.start_hub("--limits", "off", wrapper=("prlimit", "--nofile=64"))
        pdf = pdf_deck(2)
        upload = socket.create_connection(("127.0.0.1", hub.port), timeout=10)
        upload.sendall(b"POST /v1/decks HTTP/1.1\r\nHost: hub\r\nX-Api-Key: %s\r\nContent-Type: application/pdf\r\n"
                       b"Content-Length: %d\r\n\r\n" % (self.secret.encode(), len(pdf)) + pdf[:-10])
        # Idle connections until the hub holds all 64 descriptors it may.
        idle = []
        descriptors = lambda: len(os.listdir(f"/proc/{hub.process.pid}/fd"))
        while descriptors() < 64 and len(idle) < 100:
            idle.append(socket.create_connection(("127.0.0.1", hub.port), timeout=10))
            wait_for(lambda: descriptors() >= 64, 0.05, step=0.01)
        self.assertEqual(descriptors(), 64)
        upload.sendall(pdf[-10:])
        answer = upload.recv(65536).decode(errors="replace")
        upload.close()
        for connection in idle:
            connection.close()
        self.assertTrue(answer.startswith("HTTP/1.1 503"), answer[:300])
        self.assertIn("out of resources to render a deck (too many open files)", answer)
        self.assertEqual(wait_for(lambda: hub.request("GET", "/healthz")[0] == 200, 5), True)
        self.assertIsNone(hub.process.poll(), "the hub died")

    def test_the_storage_quota_refuses_a_deck_and_stores_nothing(self):
        hub = self.start_hub("--deck-storage-mb", "1")
        status, first = upload_deck(hub.port, self.secret, pdf_deck(4), title="fits")
        self.assertEqual(status, 201, first)
        status, answer = upload_deck(hub.port, self.secret, pdf_deck(32), title="too much")
        self.assertEqual(status, 507, answer)
        message = answer["error"]["message"]
        self.assertIn("the quota is 1.00 MB a project", message)
        self.assertIn("decks.storagePerProjectMB", message)
        self.assertRegex(message, r"already hold 0\.1\d MB of page images and this deck's pages need 1\.\d\d MB")
        status, listed = hub.request("GET", "/v1/decks", key=self.secret)
        self.assertEqual([deck["title"] for deck in listed["decks"]], ["fits"])
        status, _ = hub.request("DELETE", f"/v1/decks/{first['deck']}", key=self.secret)
        self.assertEqual(status, 200)


if __name__ == "__main__":
    unittest.main()
