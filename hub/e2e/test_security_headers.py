"""The hub's security headers (no other site may frame a page), through real HTTP and in
Debian's Chromium, headless.

- Every kind of answer carries Content-Security-Policy (frame-ancestors 'none', only the hub's own
  scripts and its WebAssembly decoder, nothing inline), X-Frame-Options: DENY,
  X-Content-Type-Options: nosniff and Referrer-Policy: no-referrer: the operators' page and its
  files, the listener, presenter, check and decode pages, a script, the decoder, `/j/CODE`'s
  redirect and its page for a code not on a screen, the OpenAPI document, /healthz, /metrics, the
  API's answers, refusals, preflights and event streams, a 404, and the plain-HTTP listener that
  redirects to HTTPS. The API's CORS answers are unchanged.
- The hub's HTML has no inline script, no <style> and no style="" or on...= attribute (the CSP
  would stop them).
- In Chromium: a page of another origin that frames /present, /listen and / gets no hub page in its
  frames (the browser says frame-ancestors refused it); an inline script, an inline handler and an
  inline style injected into a hub page do not run, and the browser reports each violation; the
  hub's listener page with `?hub=` naming another server cannot reach it (connect-src 'self'); the
  hub's pages load with no CSP violation of their own."""
import functools
import html.parser
import http.client
import http.server
import os
import shutil
import socket
import tempfile
import threading
import time
import unittest

from hubtest import (Beacon, Database, Hub, chromium, create_project, have_chromium, pdf_deck, upload_deck)
from test_listener import WEB

try:
    from selenium.webdriver.common.by import By
except ImportError:  # tools/setup/install-deps installs it
    pass

# What the hub sends on every answer (hub/Sources/NearcastHub/api/SecurityHeaders.swift).
EXPECTED = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}
# A beacon clock at the start of a 128 s rotation period: the show's code stays the same while the test runs.
EPOCH_ALIGNED_CLOCK = 128 * 39_062


def csp_directives(value):
    """{directive: [sources]} of a Content-Security-Policy header."""
    directives = {}
    for part in value.split(";"):
        words = part.split()
        if words:
            directives[words[0]] = words[1:]
    return directives


def exchange(port, method, path, headers=None, body=None):
    """(status, headers with lower-case names, body) of one request; an event stream is not read
    past its head."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        received = {name.lower(): value for name, value in response.getheaders()}
        data = b"" if "event-stream" in received.get("content-type", "") else response.read()
        return response.status, received, data
    finally:
        connection.close()


class InlineFinder(html.parser.HTMLParser):
    """What the CSP would stop in a page: inline scripts, <style> blocks, style and on... attributes."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "script" and not names.get("src"):
            self.found.append("an inline <script>")
        if tag == "style":
            self.found.append("a <style> block")
        for name, _ in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")


class SecurityHeadersOverHTTP(unittest.TestCase):
    """One hub (SQLite) with a project, an EID box and a show running, asked for every kind of answer."""

    @classmethod
    def setUpClass(cls):
        cls.database = Database("sqlite")
        keys = create_project(cls.database.url, "demo")
        cls.secret, cls.public = keys["secretKey"], keys["apiKey"]
        cls.hub = Hub(cls.database.url)
        try:
            beacon = Beacon(cls.hub.service_public_key(), exponent=7, clock=EPOCH_ALIGNED_CLOCK)
            status, answer = cls.hub.post("/v1beta1/beacons:register", beacon.registration("main hall"), key=cls.secret)
            assert status == 200, answer
            cls.beacon_id = beacon.name()[len("beacons/"):]
            status, deck = upload_deck(cls.hub.port, cls.secret, pdf_deck(1))
            assert status == 201, deck
            status, show = cls.hub.request("PUT", f"/v1/shows/{cls.beacon_id}", {"deck": deck["deck"], "page": 1}, key=cls.secret)
            assert status == 200, show
            cls.code = cls.hub.get(f"/v1/shows/{cls.beacon_id}", key=cls.secret)[1]["code"]
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.hub.stop()
        cls.database.drop()

    def assertSecured(self, path, headers, what=""):
        label = f"{path} {what}".strip()
        for name, value in EXPECTED.items():
            self.assertEqual(headers.get(name), value, f"{label}: {name} in {headers}")
        self.assertIn("content-security-policy", headers, label)
        policy = csp_directives(headers["content-security-policy"])
        self.assertEqual(policy.get("frame-ancestors"), ["'none'"], label)
        self.assertEqual(policy.get("script-src"), ["'self'", "'wasm-unsafe-eval'"], f"{label}: only the hub's scripts and the decoder")
        self.assertNotIn("'unsafe-inline'", headers["content-security-policy"], label)
        self.assertNotIn("'unsafe-eval'", headers["content-security-policy"], label)

    def test_every_kind_of_answer_carries_the_headers(self):
        port, code = self.hub.port, self.code
        other = "000000" if code != "000000" else "111111"
        listener = os.path.exists(os.path.join(WEB, "nearcast-modem.wasm"))
        # (method, path, request headers, expected status, expected content type's start)
        cases = [
            ("GET", "/", {}, 200, "text/html"),
            ("GET", "/hub-status.js", {}, 200, "text/javascript"),
            ("GET", "/hub-reach.js", {}, 200, "text/javascript"),
            ("GET", "/hub-status.css", {}, 200, "text/css"),
            ("GET", "/hub-notice.css", {}, 200, "text/css"),
            ("GET", f"/j/{code}", {}, 302, None),
            ("GET", f"/j/{other}", {}, 404, "text/html"),
            ("GET", "/healthz", {}, 200, "application/json"),
            ("GET", "/metrics", {}, 200, "text/plain"),
            ("GET", "/v1beta1/eidparams", {}, 200, "application/json"),
            ("GET", "/v1beta1/beacons", {}, 401, "application/json"),
            ("GET", "/v1beta1/beacons", {"X-Api-Key": "ncsec_wrong"}, 403, "application/json"),
            ("POST", "/v1/presence", {"Content-Type": "application/json"}, 400, "application/json"),
            ("GET", f"/v1/shows/{self.beacon_id}", {"X-Api-Key": self.secret}, 200, "application/json"),
            ("GET", f"/v1/shows/{self.beacon_id}/qr.svg?base=http://127.0.0.1", {"X-Api-Key": self.secret}, 200, "image/svg+xml"),
            ("GET", f"/v1/shows/{self.beacon_id}/events", {"X-Api-Key": self.secret}, 200, "text/event-stream"),
            ("GET", "/no/such/route", {}, 404, "application/json"),
            ("DELETE", "/healthz", {}, 404, "application/json"),
        ]
        if listener:
            cases += [
                ("GET", f"/listen?key={self.public}", {}, 200, "text/html"),
                ("GET", "/present", {}, 200, "text/html"),
                ("GET", "/check", {}, 200, "text/html"),
                ("GET", "/decode.html", {}, 200, "text/html"),
                ("GET", "/listener.js", {}, 200, "text/javascript"),
                ("GET", "/listener-worker.js", {}, 200, "text/javascript"),
                ("GET", "/listener.css", {}, 200, "text/css"),
                ("GET", "/nearcast-modem.wasm", {}, 200, "application/wasm"),
                ("GET", "/listener-hub.json", {}, 200, "application/json"),
                ("GET", "/openapi.yaml", {}, 200, "application/yaml"),
                ("GET", "/nothing.js", {}, 404, "application/json"),
            ]
        for method, path, headers, status, kind in cases:
            got, received, body = exchange(port, method, path, headers, b"{}" if method == "POST" else None)
            self.assertEqual(got, status, f"{method} {path}: {body[:200]!r}")
            if kind:
                self.assertTrue(received.get("content-type", "").startswith(kind), f"{method} {path}: {received}")
            self.assertSecured(path, received, method)
        self.assertTrue(listener, "the listener page's routes were checked (build it: tools/setup/build-web)")

    def test_the_apis_cors_answers_are_unchanged(self):
        # A page of another origin may call the API: the preflight is answered, and so is the call.
        status, headers, _ = exchange(self.hub.port, "OPTIONS", "/v1beta1/beaconinfo:getforobserved",
                                      {"Origin": "https://pages.example", "Access-Control-Request-Method": "POST",
                                       "Access-Control-Request-Headers": "content-type, x-api-key"})
        self.assertLess(status, 300)
        self.assertEqual(headers.get("access-control-allow-origin"), "*")
        self.assertIn("POST", headers.get("access-control-allow-methods", ""))
        self.assertSecured("OPTIONS getforobserved", headers)
        status, headers, _ = exchange(self.hub.port, "GET", "/v1beta1/eidparams", {"Origin": "https://pages.example"})
        self.assertEqual((status, headers.get("access-control-allow-origin")), (200, "*"))
        self.assertSecured("/v1beta1/eidparams", headers, "with an Origin")
        # The pages, /healthz and /metrics stay same-origin, as before.
        for path in ("/", "/healthz", "/metrics"):
            self.assertNotIn("access-control-allow-origin", exchange(self.hub.port, "GET", path, {"Origin": "https://pages.example"})[1], path)

    def test_the_hubs_html_has_nothing_inline(self):
        pages = ["/", f"/j/{'000000' if self.code != '000000' else '111111'}"]
        if os.path.exists(os.path.join(WEB, "nearcast-modem.wasm")):
            pages += [f"/listen?key={self.public}", "/present", "/check", "/decode.html"]
        for path in pages:
            _, headers, body = exchange(self.hub.port, "GET", path)
            self.assertIn("text/html", headers.get("content-type", ""), path)
            finder = InlineFinder()
            finder.feed(body.decode())
            self.assertEqual(finder.found, [], f"{path} holds what the CSP stops")

    def test_the_https_redirect_listener_carries_the_headers(self):
        from tlsproxy import NAME, TestCA
        work = tempfile.mkdtemp(prefix="nearcast-headers-")
        hub = None
        try:
            ca = TestCA(work)
            cert, key, _ = ca.issue("hub")
            hub = Hub(self.database.url, tls=ca.client_context(),
                      extra=("--tls-cert", cert, "--tls-key", key, "--redirect-http", "127.0.0.1:0"))
            for host in (NAME, None):
                with socket.create_connection(("127.0.0.1", hub.redirect_port), timeout=10) as s:
                    head = f"GET /present HTTP/1.1\r\n" + (f"Host: {host}\r\n" if host else "") + "Connection: close\r\n\r\n"
                    s.sendall(head.encode())
                    answer = b""
                    while chunk := s.recv(65536):
                        answer += chunk
                lines = answer.split(b"\r\n\r\n", 1)[0].decode().split("\r\n")
                headers = {name.lower(): value.strip() for name, value in (line.split(":", 1) for line in lines[1:])}
                self.assertTrue(lines[0].startswith("HTTP/1.1 308" if host else "HTTP/1.1 400"), lines[0])
                self.assertSecured("redirect listener", headers, host or "(no Host)")
            # And the HTTPS side, through its own HTTP/1.1 connection.
            status, _, headers = hub.exchange("GET", "/v1beta1/eidparams")
            self.assertEqual(status, 200)
            self.assertSecured("/v1beta1/eidparams", headers, "over HTTPS")
        finally:
            if hub:
                hub.stop()
            shutil.rmtree(work, ignore_errors=True)


class OtherOrigin:
    """A page of another origin (a plain HTTP server on another port of loopback) that frames the
    hub's pages."""

    def __init__(self, hub_port, paths):
        self.directory = tempfile.mkdtemp(prefix="nearcast-framer-")
        frames = "\n".join(f'<iframe id="f{i}" src="http://127.0.0.1:{hub_port}{path}" width="400" height="300"></iframe>'
                           for i, path in enumerate(paths))
        with open(os.path.join(self.directory, "framer.html"), "w") as f:
            f.write(f"<!doctype html><title>Another site</title>{frames}")

        class Quiet(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=self.directory))
        self.port = self.server.server_port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        shutil.rmtree(self.directory, ignore_errors=True)


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "nearcast-modem.wasm")), "needs the page: tools/setup/build-web")
class SecurityHeadersInChromium(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.database = Database("sqlite")
        cls.public = create_project(cls.database.url, "demo")["apiKey"]
        cls.hub = Hub(cls.database.url)
        cls.browser = chromium()

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        cls.hub.stop()
        cls.database.drop()

    def console(self):
        return [entry["message"] for entry in self.browser.get_log("browser")]

    def test_another_site_cannot_frame_the_hubs_pages(self):
        paths = ["/present", f"/listen?key={self.public}", "/"]
        framer = OtherOrigin(self.hub.port, paths)
        self.console()   # what an earlier test left in the log
        try:
            self.browser.get(f"http://127.0.0.1:{framer.port}/framer.html")
            # Each frame's load event fires whether or not the browser refused it; wait for all of them.
            self.browser.execute_async_script("""
                const done = arguments[arguments.length - 1];
                const frames = [...document.querySelectorAll("iframe")];
                let left = frames.length;
                const deadline = setTimeout(() => done(false), 10000);
                for (const frame of frames) frame.addEventListener("load", () => { if (--left === 0) { clearTimeout(deadline); done(true); } });
            """)
            time.sleep(0.3)
            shown = {}
            for index, path in enumerate(paths):
                # WebDriver may enter a frame of any origin: what is in it is what the browser showed.
                self.browser.switch_to.frame(self.browser.find_element(By.ID, f"f{index}"))
                try:
                    shown[path] = self.browser.execute_script(
                        "return {url: location.href, title: document.title, hub: !!document.querySelector('script[src], link[rel=stylesheet]')}")
                finally:
                    self.browser.switch_to.default_content()
            framed = {path: inside for path, inside in shown.items() if inside["hub"] or "127.0.0.1" in inside["url"]}
            self.assertEqual(framed, {}, "the hub's pages loaded inside another site's frames")
            # Chromium says why, naming the origin it refused, once per frame.
            logs = self.console()
            refused = [line for line in logs if f"Framing 'http://127.0.0.1:{self.hub.port}/' violates" in line and "frame-ancestors 'none'" in line]
            self.assertEqual(len(refused), len(paths), f"the browser says frame-ancestors refused each frame; console: {logs}")
        finally:
            framer.stop()

    def test_the_hubs_listener_page_talks_to_no_other_hub(self):
        # `?hub=` naming another server, on the hub's own page: the browser refuses the request
        # (connect-src 'self'), so a link cannot send the page's key and what it heard elsewhere.
        other = OtherOrigin(self.hub.port, [])
        self.console()
        try:
            self.browser.get(f"http://127.0.0.1:{self.hub.port}/listen?key={self.public}&hub=http://127.0.0.1:{other.port}")
            # The code form, as the page offers it to a phone that hears nothing.
            self.browser.execute_script("document.getElementById('join-by-code').hidden = false")
            self.browser.find_element(By.ID, "code").send_keys("ZZZZZZ")
            self.browser.find_element(By.ID, "code-join").click()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not self.browser.find_element(By.ID, "code-state").text.startswith(("The hub", "Not")):
                time.sleep(0.1)
            said = self.browser.find_element(By.ID, "code-state").text
            self.assertTrue(said.startswith("The hub cannot be reached"), said)
            # (Those words are what any unreachable hub gets, CORS refusing this one included: the
            # browser's log tells the CSP's refusal apart.)
            logs = self.console()
            self.assertTrue([line for line in logs if f"127.0.0.1:{other.port}" in line and "connect-src" in line], logs)
        finally:
            other.stop()

    def test_an_injected_inline_script_or_style_does_not_run(self):
        self.browser.get(f"http://127.0.0.1:{self.hub.port}/listen?key={self.public}")
        self.browser.find_element(By.ID, "start")
        # What a script injected into the page (an XSS) would do: an inline <script> element, an
        # inline handler and an inline style. (WebDriver's own script runs as the browser's, which
        # the CSP does not govern: it only plants the injection and reads what happened.)
        result = self.browser.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const violations = [];
            document.addEventListener("securitypolicyviolation", (e) => violations.push(e.violatedDirective));
            const script = document.createElement("script");
            script.textContent = "window.injectedScriptRan = true;";
            document.body.append(script);
            document.body.insertAdjacentHTML("beforeend",
                '<img id="injected-img" src="data:," onload="window.injectedHandlerRan = true" onerror="window.injectedHandlerRan = true">'
                + '<div id="injected-style" style="color: rgb(1, 2, 3)">styled</div>');
            setTimeout(() => done({
                script: window.injectedScriptRan === true,
                handler: window.injectedHandlerRan === true,
                color: getComputedStyle(document.getElementById("injected-style")).color,
                violations,
            }), 500);
        """)
        self.assertFalse(result["script"], f"the injected inline script ran: {result}")
        self.assertFalse(result["handler"], f"the injected inline handler ran: {result}")
        self.assertNotEqual(result["color"], "rgb(1, 2, 3)", f"the injected inline style applied: {result}")
        self.assertIn("script-src-elem", result["violations"], f"the browser reported the blocked script: {result}")
        self.assertIn("script-src-attr", result["violations"], result)
        self.assertIn("style-src-attr", result["violations"], result)

    def test_the_hubs_pages_load_with_no_violation_of_their_own(self):
        for path in ("/", f"/listen?key={self.public}", "/present", "/check", "/decode.html"):
            self.browser.get(f"http://127.0.0.1:{self.hub.port}{path}")
            violations = self.browser.execute_async_script("""
                const done = arguments[arguments.length - 1];
                const seen = [];
                document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
                setTimeout(() => done(seen), 700);
            """)
            logs = [line for line in self.console() if "Content Security Policy" in line or "Content-Security-Policy" in line]
            self.assertEqual((violations, logs), ([], []), path)
            self.assertTrue(self.browser.execute_script("return document.readyState === 'complete'"), path)


if __name__ == "__main__":
    unittest.main()
