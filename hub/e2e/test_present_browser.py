"""Nearcast Present in real browsers: Debian's Chromium, headless, through WebDriver.

A simulated box (`nearcast run --board sim --exponent 7`, a new EID every 128 s) registers with a
real hub; a PDF deck made here is uploaded. The presenter's page (/present) drives the show with
the keyboard; audience pages (the listener page) whose fake microphones hear the box's audio
through one of the bench's rooms find the show by decoding the box's EID, follow every move
(back through the slides already shown, the presenter's reload, a second presenter screen in the
remote layout), and a reaction tapped on one of them falls over the presenter's slide. A page
whose microphone hears nothing cannot react, until it types the code shown on the presenter's
screen. A page that stops hearing the box says it is lost and stops following, and follows again
when it hears the box. On PostgreSQL, the presenter on one hub and the audience on another.

NEARCAST_PRESENT_SCREENSHOTS=DIR saves present-presenter.png and present-remote.png there
(docs/presenter.md's are made so; the audience's, by test_present_audience.py)."""
import math
import os
import shutil
import signal
import tempfile
import time
import unittest

from hubtest import (POSTGRES, Database, Hub, chromium, create_project, have_chromium, pdf_deck, start_sim_box,
                     upload_deck)
from relay import AnswerLostAfterCounting
from test_listener import WEB, fake_microphone, read_wav, through_room, write_pcm16

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError:  # tools/setup/install-deps installs it
    pass

SCREENSHOTS = os.environ.get("NEARCAST_PRESENT_SCREENSHOTS")
EMOJI = "\U0001F44F"   # 👏, the first of the default reactions
SHOWN_AFTER_S = 2.2    # a page the presenter leaves sooner than 2 s is not shown to the audience


def wait_for(condition, timeout, what, *browsers):
    """Polls `condition` until it is true; on a timeout, says what each browser's page said."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = condition()
        except Exception:  # an element replaced while read: try again
            value = None
        if value:
            return value
        time.sleep(0.1)
    detail = ""
    for browser in browsers:
        text = browser.execute_script("return document.body.innerText")
        logs = [entry["message"] for entry in browser.get_log("browser")]
        detail += f"\n--- {browser.current_url}\n{text[:1500]}\nconsole: {logs[-10:]}"
    raise AssertionError(f"{what} did not happen in {timeout} s{detail}")


def page_shown(browser):
    """`#slide`'s data-page (the page an image is shown of), or None."""
    value = browser.find_element(By.ID, "slide").get_attribute("data-page")
    return int(value) if value else None


def shows(browser, page):
    return lambda: page_shown(browser) == page


class PresentTests:
    """A hub (or two on one database), a box on it, a deck; set up per class."""

    database_kind = "sqlite"
    pages = 5

    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="nearcast-present-")
        cls.state = os.path.join(cls.work, "box")
        cls.database = Database(cls.database_kind)
        cls.keys = create_project(cls.database.url, "demo")
        cls.secret, cls.public = cls.keys["secretKey"], cls.keys["apiKey"]
        cls.hubs = [Hub(cls.database.url, extra=("--listener", WEB)) for _ in range(cls.hub_count)]
        status, created = upload_deck(cls.hubs[0].port, cls.secret, pdf_deck(cls.pages), "Launch")
        assert status == 201, (status, created)
        cls.deck = created["deck"]
        cls.browsers = []

    @classmethod
    def tearDownClass(cls):
        for hub in cls.hubs:
            hub.stop()
        cls.database.drop()
        shutil.rmtree(cls.work, ignore_errors=True)

    def setUp(self):
        self.browsers = []

    def tearDown(self):
        if self._outcome.success is False:
            for browser in self.browsers:
                print(f"--- {browser.current_url}\n{browser.execute_script('return document.body.innerText')[:2000]}")
                print([entry["message"] for entry in browser.get_log("browser")][-20:])
            for hub in self.hubs:
                print(hub.stderr()[-3000:])
        for browser in self.browsers:
            browser.quit()

    def record_the_box(self):
        """`record_box`, with no show left on the box: each test starts its own (an earlier
        test's would be resumed at its page)."""
        microphone, beacon = self.record_box()
        self.assertIn(self.hubs[0].delete(f"/v1/shows/{beacon}", key=self.secret)[0], (200, 404))
        return microphone, beacon

    def record_box(self):
        """Runs the box for 8 s and passes its audio through a room: a microphone that hears its
        EID of now, which the hub accepts for at least one more rotation period (128 s). Returns
        the microphone's file and the box's beacon (without `beacons/`)."""
        log = os.path.join(self.work, "box.log")
        # Started as docs/presenter.md starts it: a hub and nothing to publish (its hub EID).
        box = start_sim_box(self.state, f"http://127.0.0.1:{self.hubs[0].port}", self.secret,
                            [], log, ("--exponent", "7", "--duration", "8"))
        try:
            self.assertEqual(box.wait(timeout=90), 0, open(log).read()[-3000:])
        finally:
            if box.poll() is None:
                box.send_signal(signal.SIGTERM)
                box.wait(timeout=30)
        microphone = os.path.join(self.work, "room-a.wav")
        through_room(os.path.join(self.state, "audio.wav"), microphone)
        status, listed = self.hubs[0].get("/v1beta1/beacons", key=self.secret)
        self.assertEqual(status, 200, listed)
        self.assertEqual(len(listed["beacons"]), 1, listed)
        return microphone, listed["beacons"][0]["beaconName"].removeprefix("beacons/")

    def silent_microphone(self):
        path = os.path.join(self.work, "silence.wav")
        write_pcm16(path, 48_000, [1e-4 * math.sin(i) for i in range(48_000 * 2)])
        return path

    def browser(self, *flags, size=(1280, 800)):
        browser = chromium(*flags)
        browser.set_window_size(*size)
        self.browsers.append(browser)
        return browser

    def presenter(self, hub, beacon, remote=False, size=(1280, 800)):
        browser = self.browser(size=size)
        browser.get(f"http://127.0.0.1:{hub.port}/present#key={self.secret}&deck={self.deck}&beacon={beacon}"
                    + ("&remote=1" if remote else ""))
        wait_for(lambda: page_shown(browser) is not None, 30, "the presenter's slide", browser)
        self.assertNotIn(self.secret, browser.current_url, "the fragment with the key is gone from the address")
        return browser

    def audience(self, hub, microphone):
        browser = self.browser(*fake_microphone(microphone), size=(420, 860))
        browser.get(f"http://127.0.0.1:{hub.port}/listen?key={self.public}")
        return browser

    @staticmethod
    def press(browser, key):
        browser.find_element(By.TAG_NAME, "body").send_keys(key)

    def react(self, audience, value=EMOJI):
        button = wait_for(lambda: next((b for b in audience.find_elements(By.CSS_SELECTOR, "#reaction-bar [data-reaction]")
                                        if b.get_attribute("data-reaction") == value and b.is_enabled()), None),
                          30, f"an enabled {value} button", audience)
        button.click()

    @staticmethod
    def falling(presenter, value=EMOJI):
        return [e for e in presenter.find_elements(By.CSS_SELECTOR, "#reactions > [data-reaction]")
                if e.get_attribute("data-reaction") == value]


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "present.html")), "needs the pages: tools/setup/build-web")
class PresentInTheBrowser(PresentTests, unittest.TestCase):
    hub_count = 1

    def test_the_room_follows_the_presenter_and_reacts_on_the_slides(self):
        hub = self.hubs[0]
        microphone, beacon = self.record_the_box()
        presenter = self.presenter(hub, beacon)
        self.assertEqual(page_shown(presenter), 1)
        first, second = self.audience(hub, microphone), self.audience(hub, microphone)
        for phone in (first, second):
            wait_for(shows(phone, 1), 90, "the audience's page hearing the box and showing slide 1", phone)

        # A reaction tapped on a phone that heard the box falls over the presenter's slide.
        self.react(first)
        wait_for(lambda: self.falling(presenter), 10, "the reaction on the presenter's slide", presenter, first)

        # The keyboard moves the show; every phone follows. (A page counts as shown, for paging
        # back, once it has stayed 2 s on the screen: each stays a little longer here.)
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(shows(first, 2), 10, "slide 2 on a phone", first)
        time.sleep(SHOWN_AFTER_S)
        self.press(presenter, Keys.PAGE_DOWN)
        for phone in (presenter, first, second):
            wait_for(shows(phone, 3), 10, "slide 3 everywhere", phone)
        time.sleep(SHOWN_AFTER_S)

        # A phone pages back (never ahead of the presenter) and is no longer live; the other is.
        first.find_element(By.ID, "back").click()
        wait_for(shows(first, 2), 10, "the phone paging back to 2", first)
        self.assertTrue(first.find_element(By.ID, "live").is_displayed())
        self.press(presenter, Keys.SPACE)
        wait_for(shows(second, 4), 10, "the live phone at 4", second)
        # The phone paging back has the move too (its label says so) and stays where it is.
        label = wait_for(lambda: (lambda text: text if "(live: 4)" in text else None)(first.find_element(By.ID, "page-label").text),
                         10, "the paged-back phone hearing of slide 4", first)
        self.assertTrue(label.startswith("2 / "), label)
        self.assertEqual(page_shown(first), 2, "the phone paging back stays where it is")
        first.find_element(By.ID, "ahead").click()
        first.find_element(By.ID, "ahead").click()
        wait_for(shows(first, 4), 10, "the phone paging forward to what was shown", first)
        self.assertFalse(first.find_element(By.ID, "ahead").is_enabled(), "no paging past the presenter")
        first.find_element(By.ID, "back").click()
        wait_for(shows(first, 3), 10, "back again", first)
        first.find_element(By.ID, "live").click()
        wait_for(shows(first, 4), 10, "back to live", first)
        self.assertFalse(first.find_element(By.ID, "live").is_displayed())

        # The presenter reloads: the page comes back at the hub's page, with the key the tab kept.
        presenter.refresh()
        wait_for(shows(presenter, 4), 30, "the presenter's page resuming at 4", presenter)
        self.press(presenter, Keys.ARROW_LEFT)
        for phone in (presenter, first, second):
            wait_for(shows(phone, 3), 10, "slide 3 after the reload", phone)

        # A second presenter screen, the remote layout on the presenter's phone, moves the show too.
        remote = self.presenter(hub, beacon, remote=True, size=(420, 860))
        wait_for(shows(remote, 3), 10, "the remote at 3", remote)
        remote.find_element(By.ID, "next").click()
        for phone in (remote, presenter, first, second):
            wait_for(shows(phone, 4), 10, "slide 4 from the remote", phone)
        self.press(presenter, Keys.END)
        for phone in (presenter, first, second):
            wait_for(shows(phone, self.pages), 10, "the last slide", phone)
        self.press(presenter, Keys.HOME)
        wait_for(shows(presenter, 1), 10, "Home", presenter)
        wait_for(shows(second, 1), 10, "Home on a phone", second)

        # The presenter's screen counts the phones and the reactions.
        wait_for(lambda: presenter.find_element(By.ID, "followers").text == "2", 20, "two phones following", presenter)
        self.assertIn(EMOJI, presenter.find_element(By.ID, "counts").text)
        self.assertRegex(presenter.find_element(By.ID, "join-address").text, r"/j/[0-9A-Z]{6}$")

        if SCREENSHOTS:
            os.makedirs(SCREENSHOTS, exist_ok=True)
            self.press(presenter, Keys.ARROW_RIGHT)
            wait_for(shows(first, 2), 10, "slide 2 for the screenshots", first)
            # Timed for the pictures only (reactions spread out, then mid-flight on the slide):
            # nothing is asserted on them.
            for value in ("\u2764\ufe0f", EMOJI, "\U0001F389", EMOJI, "\U0001F602"):
                self.react(first, value)
                time.sleep(0.3)
            time.sleep(2.5)
            presenter.save_screenshot(os.path.join(SCREENSHOTS, "present-presenter.png"))
            remote.save_screenshot(os.path.join(SCREENSHOTS, "present-remote.png"))

    def test_a_phone_that_hears_nothing_cannot_react_until_it_types_the_code(self):
        hub = self.hubs[0]
        _, beacon = self.record_the_box()
        presenter = self.presenter(hub, beacon)
        deaf = self.audience(hub, self.silent_microphone())
        # It hears no box, so it has no show and no reaction to send; it offers the code (within 8 s).
        wait_for(lambda: deaf.find_element(By.ID, "join-by-code").is_displayed(), 60, "the code offered", deaf)
        self.assertIsNone(page_shown(deaf))
        self.assertEqual([b for b in deaf.find_elements(By.CSS_SELECTOR, "[data-reaction]") if b.is_enabled()], [])
        # A code that is not the screen's is refused in words.
        deaf.find_element(By.ID, "code").send_keys("ZZZZZZ")
        deaf.find_element(By.ID, "code-join").click()
        wait_for(lambda: "Not accepted" in deaf.find_element(By.ID, "code-state").text, 10, "a wrong code refused", deaf)
        # The code on the presenter's screen: proof of presence by sight.
        address = wait_for(lambda: presenter.find_element(By.ID, "join-address").text, 20, "the join address", presenter)
        code = address.rsplit("/", 1)[1]
        deaf.find_element(By.ID, "code").clear()
        deaf.find_element(By.ID, "code").send_keys(code)
        deaf.find_element(By.ID, "code-join").click()
        wait_for(shows(deaf, 1), 20, "the show after the code", deaf)
        self.assertEqual(deaf.find_element(By.ID, "reaction-bar").get_attribute("data-proof"), "code")
        self.react(deaf)
        wait_for(lambda: self.falling(presenter), 10, "the reaction by sight on the presenter's slide", presenter, deaf)
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(shows(deaf, 2), 10, "the phone that joined by code following", deaf)

    def test_a_phone_that_stops_hearing_the_box_says_it_is_lost_and_follows_again_when_it_hears_it(self):
        hub = self.hubs[0]
        microphone, beacon = self.record_the_box()
        # The box's 8 s, then 40 s of nothing: the phone walks out of the room and back, as the
        # fake microphone loops. `lostAfter=12` shortens the page's two minutes for the test.
        rate, samples = read_wav(microphone)
        away = os.path.join(self.work, "in-and-out.wav")
        write_pcm16(away, rate, samples + [0.0] * (40 * rate))
        presenter = self.presenter(hub, beacon)
        phone = self.browser(*fake_microphone(away), size=(420, 860))
        phone.get(f"http://127.0.0.1:{hub.port}/listen?key={self.public}&lostAfter=12")
        wait_for(shows(phone, 1), 60, "the phone following", phone)
        wait_for(lambda: presenter.find_element(By.ID, "followers").text == "1", 20, "the presenter counting the phone", presenter)
        lost = lambda: phone.find_element(By.ID, "show").get_attribute("data-lost") == "true"  # noqa: E731
        wait_for(lost, 40, "the phone saying it is lost", phone)
        self.assertEqual(phone.find_element(By.ID, "state").get_attribute("data-state"), "lost")
        self.assertIn("has not heard the room's box", phone.find_element(By.ID, "state").text)
        self.assertEqual([b for b in phone.find_elements(By.CSS_SELECTOR, "#reaction-bar [data-reaction]") if b.is_enabled()], [],
                         "no reactions from a phone that left")
        # Lost, it stopped following: its stream closed (the presenter counts no phone), so the
        # presenter's next page does not reach it...
        wait_for(lambda: presenter.find_element(By.ID, "followers").text == "0", 20,
                 "the presenter's count of phones dropping to 0", presenter, phone)
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(shows(presenter, 2), 10, "the presenter at 2", presenter)
        if lost():   # (unless the loop came round meanwhile)
            self.assertEqual(page_shown(phone), 1)
        # ...until it hears the box again, and follows from the live page.
        wait_for(lambda: not lost() and page_shown(phone) == 2, 60, "the phone back in the room at the live page", phone)

    def test_the_join_address_of_the_qr_code_opens_the_show(self):
        hub = self.hubs[0]
        _, beacon = self.record_the_box()
        presenter = self.presenter(hub, beacon)
        address = wait_for(lambda: presenter.find_element(By.ID, "join-address").text, 20, "the join address", presenter)
        self.assertTrue(presenter.find_element(By.ID, "qr").get_attribute("src").startswith("blob:"))
        scanned = self.browser(*fake_microphone(self.silent_microphone()), size=(420, 860))
        scanned.get(f"http://{address}")
        wait_for(shows(scanned, 1), 30, "the show from the scanned address", scanned)
        self.assertNotIn("ncpass_", scanned.current_url, "the pass is taken out of the address bar")
        self.react(scanned)
        wait_for(lambda: self.falling(presenter), 10, "the scanned phone's reaction", presenter, scanned)
        # K: a new code revokes the pass. This phone hears nothing (a photo of the QR code, used
        # elsewhere), so it stops following and asks for the code now on the screen.
        self.press(presenter, "k")
        wait_for(lambda: presenter.find_element(By.ID, "join-address").text != address, 20, "a new code on the screen", presenter)
        following = lambda: scanned.find_element(By.ID, "show").is_displayed()  # noqa: E731
        wait_for(lambda: not following(), 20, "the scanned phone no longer following", scanned)
        self.assertIn("changed the code", scanned.find_element(By.ID, "show-state").text)
        wait_for(lambda: scanned.find_element(By.ID, "join-by-code").is_displayed(), 20, "the code asked for", scanned)
        self.press(presenter, Keys.ARROW_RIGHT)
        time.sleep(1.5)
        self.assertFalse(following(), "a revoked pass follows no page turn")
        # The code now on the screen lets it back in, on the live page.
        code = presenter.find_element(By.ID, "join-address").text.rsplit("/", 1)[1]
        scanned.find_element(By.ID, "code").send_keys(code)
        scanned.find_element(By.ID, "code-join").click()
        wait_for(shows(scanned, 2), 20, "the show after the new code", scanned)

    def test_a_tap_whose_answer_was_lost_is_sent_again_and_counted_once(self):
        """A balancer that lost the hub's answer to a tap the hub had counted says 502 (a hub
        killed under HAProxy at that moment, say). The page sends the tap again with its key
        (`Idempotency-Key`); the hub finds the tap's receipt and answers 202, and the show counts
        the tap once. The phone sees no error. A tap HAProxy answered 408 itself (its body came
        too late: it reached no hub) is sent again too, and counted."""
        hub = self.hubs[0]
        microphone, beacon = self.record_the_box()
        status, body = hub.request("PUT", f"/v1/shows/{beacon}", {"deck": self.deck, "page": 1}, key=self.secret)
        self.assertEqual(status, 200, body)
        relay = AnswerLostAfterCounting(hub.port, reply=AnswerLostAfterCounting.BAD_GATEWAY)
        try:
            phone = self.browser(*fake_microphone(microphone), size=(420, 860))
            phone.get(f"http://127.0.0.1:{relay.port}/listen?key={self.public}")
            wait_for(shows(phone, 1), 90, "the page, through the relay, hearing the box and showing slide 1", phone)
            relay.armed.set()
            self.react(phone)
            wait_for(lambda: phone.execute_script("return document.body.dataset.tapsSentAgain") == "1", 15, "the tap sent again", phone)
            counted = lambda: hub.get(f"/v1/shows/{beacon}", key=self.secret)[1].get("counts")  # noqa: E731
            wait_for(counted, 10, "the tap counted", phone)
            time.sleep(1)   # a second count of it would be written within a batch (150 ms)
            self.assertEqual(relay.dropped, ["HTTP/1.1 202 Accepted"], "the hub counted the tap whose answer was lost")
            self.assertEqual(counted(), {EMOJI: 1}, "sent twice, counted once")
            self.assertEqual(phone.find_element(By.ID, "reaction-state").text, "", "no error on the phone")

            relay.reply, relay.forward = AnswerLostAfterCounting.REQUEST_TIMEOUT, False
            relay.armed.set()
            self.react(phone)
            wait_for(lambda: phone.execute_script("return document.body.dataset.tapsSentAgain") == "2", 15, "the tap sent again after a 408", phone)
            wait_for(lambda: counted() == {EMOJI: 2}, 10, "the second tap counted, once", phone)
            self.assertEqual(relay.dropped[1:], ["not sent to the hub"])
            self.assertEqual(phone.find_element(By.ID, "reaction-state").text, "", "no error on the phone")
        finally:
            relay.close()


@unittest.skipIf(not have_chromium(), "needs selenium and Debian's chromium")
@unittest.skipUnless(os.path.exists(os.path.join(WEB, "present.html")), "needs the pages: tools/setup/build-web")
@unittest.skipUnless(POSTGRES, "needs NEARCAST_HUB_POSTGRES_URL (tools/check/test-hub starts a server)")
class PresentAcrossTwoHubs(PresentTests, unittest.TestCase):
    """The presenter on one hub, the audience on another, one PostgreSQL between them."""

    database_kind = "postgres"
    hub_count = 2

    def test_the_presenter_on_one_hub_and_the_room_on_the_other(self):
        first_hub, second_hub = self.hubs
        microphone, beacon = self.record_the_box()
        presenter = self.presenter(first_hub, beacon)
        phone = self.audience(second_hub, microphone)
        wait_for(shows(phone, 1), 90, "the phone on the second hub showing slide 1", phone)
        self.press(presenter, Keys.ARROW_RIGHT)
        wait_for(shows(phone, 2), 10, "the phone on the second hub following", phone)
        self.react(phone)
        wait_for(lambda: self.falling(presenter), 10, "a reaction through the other hub", presenter, phone)
        wait_for(lambda: presenter.find_element(By.ID, "followers").text == "1", 20, "the other hub's follower counted", presenter)


if __name__ == "__main__":
    unittest.main()
