#!/usr/bin/env python3
"""The real-browser suite of `yote gui` (run by `cargo test`, tests/gui.rs).

Headless Chromium driven by Selenium: plays a whole game against the engine
by clicks under the hand-removal rules (two-click captures, a removal taken
from the hand), survives the engine being killed mid-game, runs an analysis
and reads its lines, reviews a records file (keyboard stepping, the graph),
follows a growing records file, and saves screenshots. Prints the measured
page-ready and click times.

    python3 tests/browser/gui_suite.py --yote target/release/yote \
        --records tests/data/gui-analysed.pgn --out target/gui-screenshots
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

os.environ.setdefault("SE_OFFLINE", "true")
os.environ.setdefault("SE_AVOID_STATS", "true")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import asset_proxy  # noqa: E402
from defects import Defects  # noqa: E402
from targets import Targets  # noqa: E402
from features import Features  # noqa: E402

WAIT = 20


class Suite(Defects, Targets, Features):
    def __init__(self, args):
        self.args = args
        os.makedirs(args.out, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="yote-gui-browser-")
        self.watched = os.path.join(self.tmp, "match.pgn")
        self.games = split_games(open(args.records).read())
        with open(self.watched, "w") as f:
            f.write(self.games[0])
        # Endgame tables of up to 4 pieces (a tenth of a second), for an
        # engine that reports table values.
        self.tables = os.path.join(self.tmp, "tb")
        subprocess.run([args.yote, "tb", "generate", "--pieces", "4", "--dir", self.tables],
                       check=True, capture_output=True)
        tables_engine = f"name=tables,cmd={args.yote},option.TablebasePath={self.tables}"
        started = time.perf_counter()
        self.server = subprocess.Popen(
            [args.yote, "gui", "--port", "0", "--records", args.records, "--records", self.watched,
             "--engine", tables_engine],
            stdout=subprocess.PIPE, text=True)
        self.url = self.server.stdout.readline().split()[-1]
        if args.assets:
            self.url = asset_proxy.start(self.url, args.assets)
        self.server_start_ms = (time.perf_counter() - started) * 1000
        options = webdriver.ChromeOptions()
        options.binary_location = args.chromium
        for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=1200,820", "--disable-extensions",
                  "--enable-precise-memory-info", "--js-flags=--expose-gc"]:
            options.add_argument(a)
        self.driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
        self.driver.set_script_timeout(WAIT)
        self.rng = random.Random(7)
        self.figures = {}

    def close(self):
        self.driver.quit()
        self.server.terminate()
        self.server.wait()

    # -- helpers ---------------------------------------------------------
    def el(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def els(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def until(self, what, condition, timeout=WAIT):
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.02).until(lambda d: safely(condition))
        except Exception:
            self.shot("failure")
            raise AssertionError(f"timed out waiting for {what}; status: {self.status()!r}; "
                                 f"error: {self.el('#error').text!r}")

    def click_first_line(self):
        """Clicks the first analysis line; its first move. A line redrawn
        under the click (the analysis goes on) is clicked again."""
        picked = []

        def click():
            line = self.els('[data-role="lines"] > li')[0]
            move = line.get_attribute("data-pv").split()[0]
            line.click()
            picked.append(move)
            return True

        self.until("a line clicked", click)
        return picked[-1]

    def status(self):
        return self.el('[data-role="status"]').text

    def plies(self):
        """Entries of the move list: one per turn (a capture with its
        removals is one)."""
        return len(self.els('[data-role="moves"] [data-ply]'))

    def shot(self, name):
        path = os.path.join(self.args.out, f"{name}.png")
        self.driver.save_screenshot(path)
        return path

    def phone_shot(self, name):
        """The page as it is now, at a phone's 360 × 740 (then back)."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True})
        try:
            time.sleep(0.3)  # the resize handled, the board refitted
            return self.shot(name)
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
            time.sleep(0.2)

    def state(self):
        """The game shown, asked of the server as the page asks it."""
        game = self.driver.execute_async_script(
            "const done = arguments[0]; import('/assets/app.js').then((m) => done(m.ctx.game));")
        body = json.dumps(game).encode()
        req = urllib.request.Request(self.url + "api/state", body, {"Content-Type": "application/json"})
        return json.load(urllib.request.urlopen(req))

    def click_square(self, square):
        for attempt in range(3):
            try:
                cell = self.el(f'[data-square="{square}"]')
                self.driver.execute_script(
                    "const r = arguments[0].getBoundingClientRect();"
                    "if (r.top < 0 || r.bottom > innerHeight) arguments[0].scrollIntoView({block: 'center'});", cell)
                cell.click()
                return
            except Exception as e:  # a cell redrawn or moved under the click
                if ("stale" not in str(e).lower() and "intercepted" not in str(e)) or attempt == 2:
                    raise

    def open(self, query="", keep_settings=False):
        # Each step starts from the page's defaults, not the settings an
        # earlier step left in localStorage.
        if not keep_settings and self.driver.current_url.startswith(self.url):
            self.driver.execute_script("localStorage.clear()")
        self.driver.get(self.url + query)
        self.until("the page", lambda: self.driver.execute_script("return document.body.dataset.ready") == "true")

    def view(self, name):
        self.el(f'#views button[data-view="{name}"]').click()

    # -- play ------------------------------------------------------------
    def set_up_game(self, variant, movetime, skill):
        Select(self.el("#white-player")).select_by_value("human")
        Select(self.el("#black-player")).select_by_value("0")
        Select(self.el("#strength-kind")).select_by_value("skill")
        value = self.el("#strength-value")
        value.clear()
        value.send_keys(str(skill))
        Select(self.el("#clock-kind")).select_by_value("movetime")
        seconds = self.el("#clock-a")
        seconds.clear()
        seconds.send_keys(str(movetime))
        if "=" in variant:
            Select(self.el("#variant")).select_by_value("custom")
            spec = self.el("#spec")
            spec.clear()
            spec.send_keys(variant + Keys.TAB)
        else:
            Select(self.el("#variant")).select_by_value(variant)
        self.until("a new game", lambda: self.plies() == 0 and "White to move" in self.status()
                   and self.state()["variant"].find("pieces=" + variant.split("pieces=")[-1]) >= 0
                   if "=" in variant else self.plies() == 0 and "White to move" in self.status())

    def human_move(self, st):
        """One move by clicks: captures first (a hand removal when the rules
        allow it), else a random placement or step."""
        legal = st["legal"]
        before = self.plies()
        captures = [m for m in legal if m["jump"]]
        if captures:
            hand = [m for m in captures if m["hand"] > 0]
            move = (hand or captures)[0]
            self.click_square(move["from"])
            self.until("targets", lambda: self.els(f'[data-square="{move["to"]}"].target'))
            self.click_square(move["to"])
            self.until("the owed removal", lambda: "owes" in self.status())
            self.captures += 1
            if move["hand"] > 0:
                self.hand_removals += 1
                self.el('[data-role="hand-B"]').click()
            else:
                self.click_square(move["removes"][0])
            self.until("the removal", lambda: self.plies() >= before + 1 and "owes" not in self.status())
            return
        move = self.rng.choice(legal)
        if move["from"] is None:
            self.click_square(move["to"])
        else:
            self.click_square(move["from"])
            self.click_square(move["to"])
        self.until("the move", lambda: self.plies() > before)

    def play_whole_game(self):
        self.open()
        # A custom rule spec: the hand-removal rules with six pieces each,
        # so that a whole game by clicks stays short.
        self.set_up_game("hand-removal,pieces=6", 0.05, 0)
        self.captures = 0
        self.hand_removals = 0
        started = time.perf_counter()
        # Layout stability: the right panel stays put over the whole game
        # (captures, removals, an error, the end).
        at = self.panel_at()
        worst = 0
        for turn in range(400):
            st = self.state()
            if st["status"] or "Game over" in self.status():
                break
            if st["board"]["side"] == "W":
                if turn == 4:
                    self.el("#move-input").send_keys("not-a-move" + Keys.ENTER)
                    self.until("the error", lambda: self.el("#error").is_displayed())
                    p = self.panel_at()
                    worst = max(worst, abs(p[0] - at[0]), abs(p[1] - at[1]))
                self.human_move(st)
                if self.plies() == 6:
                    self.shot("play")
                p = self.panel_at()
                worst = max(worst, abs(p[0] - at[0]), abs(p[1] - at[1]))
            else:
                self.until("the engine's move", lambda: self.status().startswith("White") or "Game over" in self.status())
        self.until("the end of the game", lambda: "Game over" in self.status())
        text = self.status()
        assert "wins" in text or "draw" in text, text
        assert self.captures >= 1 and self.hand_removals >= 1, (self.captures, self.hand_removals)
        p = self.panel_at()
        worst = max(worst, abs(p[0] - at[0]), abs(p[1] - at[1]))
        assert worst <= 1, f"the right panel moved {worst} px during the game"
        self.figures["panel_moved_px_whole_game"] = worst
        hands = (self.el('[data-role="hand-W"]').text, self.el('[data-role="hand-B"]').text)
        assert all(h.isdigit() for h in hands), hands
        self.shot("game-over")
        print(f"whole game: {self.plies()} moves, {self.captures} captures by clicks, "
              f"the right panel moved at most {worst:.1f} px, "
              f"{self.hand_removals} from the hand, {time.perf_counter() - started:.1f} s; {text}")

    def kill_engine_mid_game(self):
        self.open()
        self.set_up_game("standard", 3, 20)
        self.click_square("c3")
        self.until("the engine thinking", lambda: "thinking" in self.status())
        engines = subprocess.run(["pgrep", "-P", str(self.server.pid)], capture_output=True, text=True).stdout.split()
        assert engines, "no engine process under the server"
        for pid in engines:
            os.kill(int(pid), signal.SIGKILL)
        self.until("the crash shown", lambda: "crashed" in self.el('[data-role="engine-B"]').text)
        self.shot("engine-crashed")
        self.el('[data-role="restart-B"]').click()
        self.until("the restarted engine's move", lambda: self.plies() == 2, timeout=30)
        assert urllib.request.urlopen(self.url + "api/config").status == 200
        print("engine killed mid-game: shown as crashed, restarted, game went on")

    def board_sizes(self):
        for rows, cols in [(3, 3), (8, 8), (4, 7)]:
            self.open(f"?variant=rows={rows},cols={cols},pieces=4")
            squares = self.els("[data-square]")
            assert len(squares) == rows * cols, (rows, cols, len(squares))
            corner = "abcdefgh"[cols - 1] + str(rows)
            assert self.els(f'[data-square="{corner}"]'), corner
        self.open("?variant=standard&moves=@c3,@d4,bogus")
        self.until("the link's error", lambda: "bogus" in self.el("#error").text)
        print("boards 3x3, 8x8, 4x7 drawn; a bad link parameter shows its error")

    def multi_jump_path(self):
        """Under MultiJump two chains join a1 and c3 (over a2 and b3, or
        over b1 and c2): clicking a1 then c3 asks which path, and the one
        picked (not the first listed) is played, then its removals."""
        fen = "6/6/1B4/B1B3/WB4 w 11 8 0 1"
        self.open("?variant=multi_jump=true&fen=" + urllib.parse.quote(fen))
        self.click_square("a1")
        self.until("c3 among the targets", lambda: self.els('[data-square="c3"].target'))
        self.click_square("c3")
        self.until("the path chooser", lambda: self.el('[data-role="jump-chooser"]').is_displayed())
        choices = {b.text: b for b in self.els('[data-role="jump-chooser"] button[data-jump]')}
        assert sorted(choices) == ["a1 → a3 → c3 (takes a2, b3)", "a1 → c1 → c3 (takes b1, c2)"], list(choices)
        assert self.plies() == 0, "nothing is played before the path is chosen"
        self.shot("multi-jump-chooser")
        choices["a1 → c1 → c3 (takes b1, c2)"].click()
        self.until("the chosen jump", lambda: "owes 2 removals" in self.status())
        assert self.el('[data-role="moves"] .pending').get_attribute("textContent") == "a1c1c3…"
        assert not self.els('[data-square="b1"] [data-piece]') and not self.els('[data-square="c2"] [data-piece]')
        assert self.els('[data-square="a2"] [data-piece="B"]'), "the other path's pieces stay"
        self.click_square("a2")
        self.click_square("b3")
        self.until("the removals", lambda: self.plies() >= 1)
        assert self.els('[data-role="moves"] [data-ply]')[0].get_attribute("textContent") == "a1c1c3xa2xb3"
        # Escape dismisses the chooser without playing.
        self.open("?variant=multi_jump=true&fen=" + urllib.parse.quote(fen))
        self.click_square("a1")
        self.click_square("c3")
        self.until("the path chooser", lambda: self.el('[data-role="jump-chooser"]').is_displayed())
        self.el("body").send_keys(Keys.ESCAPE)
        self.until("the chooser gone", lambda: not self.el('[data-role="jump-chooser"]').is_displayed())
        assert self.plies() == 0
        print("multi-jump: two paths a1 → c3 offered, the second one played, then its two removals")

    # -- analyse -----------------------------------------------------------
    def analyse(self):
        self.open("?variant=standard&moves=@c3,@d4")
        self.view("analyse")
        lines = self.el("#multipv")
        lines.clear()
        lines.send_keys("3")
        self.el("#analyse-go").click()
        self.until("three analysis lines", lambda: len(self.els('[data-role="lines"] > li')) >= 3)
        self.until("depth 4", lambda: int(self.el("#analysis-summary").text.split()[1].rstrip(",")) >= 4)
        self.shot("analyse")
        # Lines are redrawn as they stream in; read them once stopped.
        self.el("#analyse-stop").click()
        self.until("the analysis stopped", lambda: "on" not in self.el("#analyse-go").get_attribute("class"))
        texts = self.driver.execute_script(
            "return [...document.querySelectorAll('[data-role=\"lines\"] > li')].map((li) => li.innerText)")
        assert len(texts) >= 3 and all("depth" in t and "nps" in t for t in texts), texts
        # The last lines may still be redrawn just after the stop.
        first = self.click_first_line()
        self.until("the line's move played", lambda: self.plies() == 3)
        assert self.els('[data-role="moves"] [data-ply]')[2].get_attribute("textContent") == first
        # The editor: a position the engine refuses shows its error.
        self.el("#edit-toggle").click()
        self.el("#edit-clear").click()
        self.el('[data-put="W"]').click()
        for sq in ["a1", "b1", "c1"]:
            self.click_square(sq)
        hand = self.el("#edit-hand-W")
        hand.clear()
        hand.send_keys("10")
        self.el("#edit-apply").click()
        self.until("the editor's error", lambda: "pieces" in self.el("#edit-error").text)
        hand.clear()
        hand.send_keys("9")
        self.el("#edit-apply").click()
        self.until("the edited position", lambda: self.el("#edit-error").get_attribute("hidden") is not None
                   and len(self.els('[data-piece="W"]')) == 3 and self.plies() == 0)
        print(f"analysis: {len(texts)} lines, e.g. {texts[0].splitlines()[0]!r}")

    def analyse_without_shared_worker(self):
        """A browser without SharedWorker: the tab opens a stream of its own
        (`/api/events?session=`) and still gets its lines."""
        added = self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                                            {"source": "delete window.SharedWorker;"})
        try:
            self.open("?variant=standard&moves=@c3,@d4&view=analyse")
            assert self.driver.execute_script("return typeof SharedWorker") == "undefined"
            self.el("#analyse-go").click()
            self.until("lines on the tab's own stream", lambda: len(self.els('[data-role="lines"] > li')) >= 1)
            self.el("#analyse-stop").click()
            self.until("the analysis stopped", lambda: "on" not in self.el("#analyse-go").get_attribute("class"))
        finally:
            self.driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument",
                                        {"identifier": added["identifier"]})
        print("analysis without SharedWorker: lines on the tab's own stream")

    def ten_tabs_analysing(self):
        """Ten tabs analysing at once share one event stream (the page's
        SharedWorker), so an eleventh page still loads at once, and each tab
        gets only its own session's lines."""
        first = self.driver.current_window_handle
        # Streams the server still counts from earlier steps (a closed one
        # is noticed at its next keepalive).
        before = json.load(urllib.request.urlopen(self.url + "api/health"))["streams"]
        # Two placements each, White to move (a person), so no engine plays
        # Black's move in any tab: ten positions, ten analyses.
        cells = ["a1,f5", "b2,e4", "c3,d4", "d4,c3", "e5,a1", "f1,b5", "a5,f2", "b4,e2", "c1,d5", "f5,a2"]
        tabs = []
        for cell in cells:
            self.driver.switch_to.new_window("tab")
            self.open(f"?variant=standard&moves={'@' + cell.replace(',', ',@')}&view=analyse")
            lines = self.el("#multipv")
            lines.clear()
            lines.send_keys("2")
            self.el("#analyse-go").click()
            tabs.append((self.driver.current_window_handle, cell))
        for handle, cell in tabs:
            self.driver.switch_to.window(handle)
            self.until(f"two lines in the tab of @{cell}", lambda: len(self.els('[data-role="lines"] > li')) >= 2,
                       timeout=60)
        health = json.load(urllib.request.urlopen(self.url + "api/health"))
        rss = server_rss_kib(self.server.pid)
        self.driver.switch_to.new_window("tab")
        t = time.perf_counter()
        self.open()
        eleventh = time.perf_counter() - t
        ready_ms = self.driver.execute_script("return window.yoteReadyMs")
        self.driver.close()
        checked = 0
        for handle, cell in tabs:
            self.driver.switch_to.window(handle)
            strays = self.driver.execute_script("return window.yoteStrayEvents")
            assert strays == 0, f"the tab of @{cell} saw {strays} events of other sessions"
            pvs = self.driver.execute_script(
                "return [...document.querySelectorAll('[data-role=\"lines\"] > li')].map((li) => li.dataset.pv)")
            for pv in pvs:
                moves = ["@" + c for c in cell.split(",")] + pv.split()
                body = json.dumps({"variant": "standard", "moves": moves}).encode()
                req = urllib.request.Request(self.url + "api/state", body, {"Content-Type": "application/json"})
                try:
                    urllib.request.urlopen(req)
                except urllib.error.HTTPError as e:
                    raise AssertionError(f"the tab of @{cell} shows a line not of its position: {pv}: {e.read()}")
                checked += 1
        self.shot("ten-tabs")
        sessions = []
        for handle, _ in tabs:
            self.driver.switch_to.window(handle)
            sessions.append(self.driver.execute_async_script(
                "const done = arguments[0]; import('/assets/api.js').then((m) => done(m.sessionId()));"))
        for handle, _ in tabs:
            self.driver.switch_to.window(handle)
            self.driver.close()
        self.driver.switch_to.window(first)
        # Every tab gone: each session is closed by the tab's beacon (a 404
        # now) or at least detached from the shared stream, so its analysis
        # stops.
        deadline = time.time() + 20
        for session in sessions:
            while True:
                try:
                    status = json.load(urllib.request.urlopen(self.url + f"api/engines?session={session}"))
                except urllib.error.HTTPError as e:
                    assert e.code == 404, e
                    break
                if status["slots"][2]["state"] != "thinking":
                    break
                assert time.time() < deadline, f"session {session} still analyses after its tab closed"
                time.sleep(0.1)
        added = health["streams"] - before
        assert added <= 1, f"ten analysing tabs hold {added} streams, not one shared"
        # The < 1 s target is read from the figure (docs/gui.md); the test
        # fails only where the page plainly waited on the analyses, so that
        # a machine busy with other work does not fail it.
        assert eleventh < 5.0, f"an eleventh page took {eleventh:.2f} s to load beside ten analysing tabs"
        self.figures["eleventh_page_load_s_with_10_analysing"] = round(eleventh, 3)
        self.figures["server_rss_kib_10_tabs_analysing"] = rss
        print(f"ten tabs analysing on {added} shared stream: {checked} lines checked against their own "
              f"positions, no stray event; an eleventh page loaded in {eleventh * 1000:.0f} ms "
              f"(ready at {ready_ms:.0f} ms); server {rss} KiB")

    def tablebase(self):
        """An engine with endgame tables: the Analyse view shows the table's
        value of a table position (as `yote tb probe` gives it), and none
        for a position beyond the tables."""
        shown = []
        for fen, value in [("6/6/2WB2/6/W5 w 0 1 0 1", "win, the next capture in 1 ply"),
                           ("6/6/2W3/6/W3B1 w 0 1 0 1", "draw")]:
            probe = subprocess.run([self.args.yote, "tb", "probe", "--dir", self.tables, "--fen", fen],
                                   capture_output=True, text=True, check=True).stdout.splitlines()[0]
            assert probe.startswith("value " + value.split(",")[0]), (fen, probe)
            self.open("?view=analyse&fen=" + urllib.parse.quote(fen))
            Select(self.el("#analyse-engine")).select_by_visible_text("tables")
            self.el("#analyse-go").click()
            self.until(f"the table value of {fen}", lambda: self.el("#tb-value").text.startswith("Tablebase:"))
            text = self.el("#tb-value").text
            assert text == f"Tablebase: {value}", (fen, text, probe)
            shown.append(text)
            self.el("#analyse-stop").click()
            self.until("the analysis stopped", lambda: "on" not in self.el("#analyse-go").get_attribute("class"))
        self.shot("tablebase")
        # Beyond the tables (the start position): lines, but no table value.
        self.open("?view=analyse")
        Select(self.el("#analyse-engine")).select_by_visible_text("tables")
        self.el("#analyse-go").click()
        self.until("lines", lambda: len(self.els('[data-role="lines"] > li')) >= 1)
        assert self.el("#tb-value").text == "", self.el("#tb-value").text
        self.el("#analyse-stop").click()
        print(f"tablebase values shown: {shown}; none at the start position")

    def editor_hands(self):
        """The editor moves pieces between a hand and the board: a piece put
        comes from its side's hand, one covered or emptied goes back; the
        hands beside the board follow the fields; a hand that makes too
        many pieces is refused by the engine's check, one that fits is set."""
        self.open("?view=analyse")
        hand = lambda side: (self.el(f"#edit-hand-{side}").get_attribute("value"),
                             self.el(f'[data-role="hand-{side}"]').text)
        self.el('[data-put="W"]').click()
        for sq in ["a1", "b1", "c1"]:
            self.click_square(sq)
        assert hand("W") == ("9", "9") and hand("B") == ("12", "12"), (hand("W"), hand("B"))
        self.el('[data-put="B"]').click()
        self.click_square("a1")
        assert hand("W") == ("10", "10") and hand("B") == ("11", "11"), (hand("W"), hand("B"))
        self.el('[data-put="."]').click()
        self.click_square("b1")
        assert hand("W") == ("11", "11"), hand("W")
        field = self.el("#edit-hand-W")
        field.clear()
        field.send_keys("12")
        self.until("the typed hand shown", lambda: hand("W") == ("12", "12"))
        self.el("#edit-apply").click()
        self.until("too many pieces refused", lambda: "13 pieces" in self.el("#edit-error").text)
        assert self.plies() == 0 and len(self.els('[data-piece]')) == 2
        field.clear()
        field.send_keys("11")
        self.el("#edit-apply").click()
        self.until("the edited position", lambda: self.el("#edit-error").get_attribute("hidden") is not None)
        st = self.state()
        assert st["board"]["hands"] == {"W": 11, "B": 11}, st["board"]
        cells = st["board"]["cells"]
        assert cells[0] == "B" and cells[1] == "." and cells[2] == "W", cells[:6]
        assert self.el('[data-role="hand-W"]').text == "11"
        # Clear board: the pieces go back to their hands.
        self.el("#edit-clear").click()
        assert hand("W") == ("12", "12") and hand("B") == ("12", "12"), (hand("W"), hand("B"))
        self.el("#edit-toggle").click()
        # Out of editing, the fields show the position on the board again,
        # and the one a link opens.
        self.until("the fields back on the position", lambda: hand("W") == ("11", "11"))
        self.open("?view=analyse&fen=" + urllib.parse.quote("6/6/2W3/6/W3B1 b 0 1 0 1"))
        self.until("the linked position's hands", lambda: hand("W") == ("0", "0") and hand("B") == ("1", "1"))
        assert self.el("#edit-side").get_attribute("value") == "b"
        print("editor: hands follow the pieces put and taken off; 13 pieces refused, 12 set (11 in hand); "
              "out of editing the fields show the position")

    # -- review ------------------------------------------------------------
    def review(self):
        self.open()
        self.view("review")
        self.until("the records list", lambda: len(self.els("#records-source option")) >= 3)
        Select(self.el("#records-source")).select_by_value("f0")
        self.until("the game list", lambda: len(self.els("#game-list tbody tr")) == len(self.games))
        self.els("#game-list tbody tr")[1].click()
        self.until("game 2", lambda: "current" in self.els("#game-list tbody tr")[1].get_attribute("class"))
        body = self.el("body")
        for _ in range(3):
            body.send_keys(Keys.ARROW_RIGHT)
        self.until("ply 3", lambda: self.status().startswith("Ply 3 of"))
        total = int(self.status().split(" of ")[1].split(",")[0])
        assert self.els(".mark-q, .mark-qq, .mark-qe"), "marks shown on the moves"
        graph = self.el('[data-role="graph"]')
        self.driver.execute_script(
            "const g = arguments[0], b = g.getBoundingClientRect();"
            "g.dispatchEvent(new MouseEvent('click', {clientX: b.left + b.width * 0.5, clientY: b.top + 10, bubbles: true}));",
            graph)
        self.until("the graph's ply", lambda: self.status().startswith(f"Ply {round(total / 2)} of"))
        body.send_keys(Keys.END)
        self.until("the end", lambda: self.status().startswith("Game over") or self.status().startswith(f"Ply {total}"))
        self.shot("review")
        print(f"review: {len(self.games)} games listed, stepped by keys, graph click went to ply {round(total / 2)}")

    # -- watch -------------------------------------------------------------
    def watch(self):
        self.open()
        self.view("watch")
        Select(self.el("#watch-source")).select_by_value("f1")
        self.el("#watch-start").click()
        self.until("the first game", lambda: len(self.els("#watch-games tbody tr")) == 1)
        with open(self.watched, "a") as f:
            f.write("".join(self.games[1:]))
        self.until("the appended games", lambda: len(self.els("#watch-games tbody tr")) == len(self.games))
        self.until("standings", lambda: len(self.els("#standings tbody tr")) == 2)
        self.shot("watch")
        print(f"watch: {len(self.games)} games arrived live, standings of 2 engines")
        self.watch_large()
        self.watch_match_in_progress()
        self.watch_rewritten_file()

    def watch_rewritten_file(self):
        """A records file rewritten under the page (a new match in its
        place): the server sends `reset` and its games again; the page
        shows them once."""
        with open(self.watched, "w") as f:
            f.write(self.games[0])
        self.until("the rewritten file's one game", lambda: len(self.els("#watch-games tbody tr")) == 1)
        time.sleep(1.0)  # three of the server's looks at the file
        rows = len(self.els("#watch-games tbody tr"))
        assert rows == 1, f"{rows} rows after the file was rewritten with 1 game"
        print("watch: a rewritten file's game shown once")

    # -- engine lifetime ---------------------------------------------------
    def health(self):
        return json.load(urllib.request.urlopen(self.url + "api/health"))

    def hidden_tabs_keep_engines(self):
        """The engines of tabs that are open but frozen or hidden are kept;
        a tab that crashed (no pagehide, no beacon) or was closed has its
        engine ended within 30 s.

        A second headless Chromium, with the background throttling that
        ChromeDriver turns off turned on and Chrome's intensive wake-up
        throttling (timers once a minute) after 1 s hidden instead of
        5 min. Tab A (a Play game, waiting for the person) is hidden and
        frozen (Page.setWebLifecycleState), so none of its timers runs,
        the worst a background tab's timers get; tab B (the same) is
        hidden behind another tab. Both must keep their engines 20 s, past
        the server's 15 s without a word from the page (before the shared
        worker beat for the tabs, A's was stopped). In this harness B's
        own timers were not throttled (a plain page's were:
        scripts/gui/hidden_timers.py), so A is the test's teeth; B's
        timers' largest gap is reported. Then B is crashed (Page.crash:
        its Web Lock goes, and the shared worker, which lives in A's
        renderer, closes its session) and A closed while frozen, and both
        engines must end within 30 s."""
        options = webdriver.ChromeOptions()
        options.binary_location = self.args.chromium
        options.add_experimental_option("excludeSwitches", [
            "disable-background-timer-throttling", "disable-backgrounding-occluded-windows"])
        for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                  "--window-size=1200,820", "--disable-extensions",
                  "--enable-features=IntensiveWakeUpThrottling:grace_period_seconds/1"]:
            options.add_argument(a)
        main = self.driver
        self.driver = webdriver.Chrome(service=Service(self.args.chromedriver), options=options)
        self.driver.set_script_timeout(WAIT)
        try:
            self.until("no engine of earlier pages", lambda: self.health()["engines"] == 0, timeout=25)
            tabs = {}
            for name in "AB":
                if name == "B":
                    self.driver.switch_to.new_window("tab")
                self.open(keep_settings=True)
                self.set_up_game("standard", 0.1, 20)
                self.human_move(self.state())
                self.until(f"tab {name}'s engine replied",
                           lambda: self.plies() == 2 and "White to move" in self.status())
                tabs[name] = self.driver.current_window_handle
            self.driver.execute_script(
                "window.yoteProbe = []; setInterval(() => yoteProbe.push(performance.now()), 1000);")
            self.driver.switch_to.window(tabs["A"])
            self.driver.execute_cdp_cmd("Page.setWebLifecycleState", {"state": "frozen"})
            self.driver.switch_to.new_window("tab")
            self.driver.get("about:blank")
            assert self.health()["engines"] == 2, self.health()
            # Past ENGINE_IDLE (15 s) and the reaper's second after the
            # frozen tab's last timer.
            hidden = time.perf_counter()
            time.sleep(20)
            engines = self.health()["engines"]
            kept = time.perf_counter() - hidden
            self.driver.switch_to.window(tabs["B"])
            probe = self.driver.execute_script("return yoteProbe")
            gap = max(b - a for a, b in zip(probe, probe[1:])) / 1000
            assert engines == 2, f"{2 - engines} engine(s) of hidden tabs stopped ({engines} running; " \
                f"tab B's timers ran at most {gap:.1f} s apart)"
            # A crashed tab says nothing: no pagehide, no beacon.
            started = time.perf_counter()
            try:
                self.driver.execute_cdp_cmd("Page.crash", {})
            except Exception:
                pass  # the tab's renderer is gone: no answer
            self.until("the crashed tab's engine ended", lambda: self.health()["engines"] == 1, timeout=30)
            crashed = time.perf_counter() - started
            self.driver.switch_to.window(tabs["A"])
            started = time.perf_counter()
            self.driver.close()
            self.until("the frozen tab's engine ended after it closed",
                       lambda: self.health()["engines"] == 0, timeout=30)
            closed = time.perf_counter() - started
        finally:
            self.driver.quit()
            self.driver = main
        self.figures["hidden_tab_timer_gap_s"] = round(gap, 1)
        self.figures["crashed_tab_engine_ended_s"] = round(crashed, 1)
        self.figures["closed_frozen_tab_engine_ended_s"] = round(closed, 1)
        print(f"hidden tabs: both engines kept {kept:.0f} s (the frozen tab's timers stopped, the hidden "
              f"tab's ran up to {gap:.1f} s apart); a crashed tab's engine ended {crashed:.1f} s after, "
              f"a closed frozen tab's {closed:.1f} s after")

    def watch_match_in_progress(self):
        """A real `yote match --pgn` appending to the watched file: its
        games in progress are shown as live boards with their pieces and
        clocks before they end; one clicked opens large with both clocks,
        the mover's counting down; then they are replaced by their
        results."""
        before = len(self.els("#watch-games tbody tr"))
        engine = f"cmd={self.args.yote}"
        match = subprocess.Popen(
            [self.args.yote, "match", "--quiet", "--tc", "4+0.05", "--games", "2", "--concurrency", "2",
             "--max-plies", "40", "--engine", f"name=left,{engine}", "--engine", f"name=right,{engine}",
             "--pgn", self.watched],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            live = '[data-role="live-boards"] [data-live-game]'
            self.until("a live board with pieces", lambda: self.els(f"{live} [data-piece]"))
            seen = self.driver.execute_script(
                f"return [...document.querySelectorAll('{live}')].map((b) => [b.dataset.liveGame, "
                "Number(b.dataset.plies), b.querySelectorAll('[data-piece]').length, b.innerText])")
            assert match.poll() is None, "the match ended before a live board was seen"
            self.watch_clocks(live)
            self.until("the match's end", lambda: match.poll() is not None, timeout=60)
        finally:
            if match.poll() is None:
                match.kill()
            match.wait()
        assert match.returncode == 0, match.returncode
        self.until("the results landed", lambda: len(self.els("#watch-games tbody tr")) == before + 2)
        self.until("no live board left", lambda: not self.els(live))
        print(f"watch: a running match's live boards seen (game, plies, pieces: "
              f"{[s[:3] for s in seen]}), then its 2 results")

    def watch_clocks(self, live):
        """The clocks of a game in progress: on its card, and on the large
        board it opens, each a time under the 4 s the match gives, the
        mover's running down between the runner's updates."""
        seconds = lambda text: (int(text.split(":")[0]) * 60 + float(text.split(":")[1])) if ":" in text else float(text)
        card = self.els(live)[0]
        card_clocks = lambda: [c.text.strip() for c in card.find_elements("css selector", "[data-clock]")]
        self.until("the card's clocks", lambda: len(card_clocks()) == 2 and all(card_clocks()))
        self.shot("watch-live")
        self.phone_shot("watch-live-phone")
        card.click()
        self.until("the large board", lambda: self.el('[data-role="watch-large"]').is_displayed())
        clock = lambda side: self.el(f'[data-role="watch-clock-{side}"]')
        self.until("both clocks on the large board", lambda: clock("W").text and clock("B").text)
        texts = {side: clock(side).text for side in "WB"}
        assert all(0 <= seconds(t) <= 4.0 for t in texts.values()), texts
        names = [self.el(f'[data-role="watch-player-{s}"] .name').text for s in "WB"]
        assert sorted(names) == ["left", "right"], names
        # The mover's clock counts down while the runner thinks: looks every
        # 20 ms for 0.6 s, taken in the page (a ply can be shorter than a
        # few WebDriver calls); two within one ply, the later lower.
        ticked = []
        looks = []

        def counts_down():
            seen = self.driver.execute_async_script("""
                const done = arguments[0];
                const box = document.querySelector('[data-role="watch-large"]');
                const seen = [];
                const look = () => {
                  const running = box.querySelectorAll('.clock.running');
                  if (running.length === 1) seen.push([running[0].id, running[0].textContent, box.querySelector('p').textContent, performance.now()]);
                  if (seen.length && performance.now() - seen[0][3] > 600) done(seen); else setTimeout(look, 20);
                };
                look();
                setTimeout(() => done(seen), 1500);
            """)
            looks.append(seen[-3:])
            for i, a in enumerate(seen):
                for b in seen[i + 1:]:
                    if a[0] == b[0] and a[2] == b[2] and seconds(b[1]) < seconds(a[1]):
                        ticked.append((seconds(a[1]), seconds(b[1]), round((b[3] - a[3]) / 1000, 2)))
                        return True
            return False

        try:
            self.until("the mover's clock counting down", counts_down, timeout=15)
        except AssertionError as e:
            raise AssertionError(f"{e}; the last looks: {looks[-4:]}")
        self.shot("watch-large-clocks")
        self.phone_shot("watch-large-clocks-phone")
        self.figures["watch_clock_ticked"] = ticked[-1][:2]
        self.el("#watch-large-close").click()
        print(f"watch: clocks on the card and the large board ({texts}), the mover's went "
              f"{ticked[-1][0]} -> {ticked[-1][1]} s in {ticked[-1][2]} s")

    # -- measurements --------------------------------------------------------
    def memory(self):
        """Server memory with 10 tabs open, and page memory while 1,000 games
        of a match arrive in Watch."""
        first = self.driver.current_window_handle
        for _ in range(10):
            self.driver.switch_to.new_window("tab")
            self.open()
        time.sleep(0.5)
        rss = server_rss_kib(self.server.pid)
        for handle in self.driver.window_handles:
            if handle != first:
                self.driver.switch_to.window(handle)
                self.driver.close()
        self.driver.switch_to.window(first)
        with open(self.watched, "w") as f:
            f.write(self.games[0])
        self.open()
        self.view("watch")
        Select(self.el("#watch-source")).select_by_value("f1")
        self.el("#watch-start").click()
        self.until("the first game", lambda: len(self.els("#watch-games tbody tr")) == 1)
        heap = []
        arrived = 1
        for batch in range(5):
            with open(self.watched, "a") as f:
                for i in range(200 if batch < 4 else 199):
                    f.write(self.games[(arrived + i) % len(self.games)])
            arrived += 200 if batch < 4 else 199
            self.until(f"{arrived} games", lambda: self.el("#watch-info").text.startswith(f"{arrived} games"))
            self.driver.execute_script("window.gc && window.gc()")
            heap.append(self.driver.execute_script(
                "return [performance.memory.usedJSHeapSize, document.getElementsByTagName('*').length]"))
        rows = len(self.els("#watch-games tbody tr"))
        boards = len(self.els("#watch-boards > .mini"))
        assert rows == 200 and boards <= 6, (rows, boards)
        # Elements: 200 rows and at most six boards whatever the count.
        one_board = 40 + 8 * 8
        assert max(h[1] for h in heap) - heap[0][1] <= 6 * one_board, heap
        growth = heap[-1][0] - heap[1][0]
        assert growth < 2 << 20, f"the page's heap grew by {growth} bytes from 400 to 1000 games"
        self.figures["server_rss_kib_10_tabs"] = rss
        self.figures["watch_heap_bytes_at_200_400_600_800_1000"] = [h[0] for h in heap]
        self.figures["watch_elements_at_200_400_600_800_1000"] = [h[1] for h in heap]
        print(f"memory: server {rss} KiB with 10 tabs; watch of {arrived} games: "
              f"heap {[round(h[0] / 1024) for h in heap]} KiB, elements {[h[1] for h in heap]}")

    def measure(self):
        ready = []
        for _ in range(5):
            t = time.perf_counter()
            self.driver.get("about:blank")
            self.open()
            print(f"    load {time.perf_counter() - t:.2f} s", flush=True)
            # From navigation start to the board drawn and the page usable.
            ready.append(self.driver.execute_script("return window.yoteReadyMs"))
        # What the page transfers: the document and every file it loads
        # (the shared worker's too), as the browser counted them.
        weight = self.driver.execute_script(
            "return [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')]"
            ".filter((e) => !e.name.includes('/api/')).reduce((n, e) => n + (e.transferSize || e.encodedBodySize), 0)")
        assert 0 < weight <= 150 * 1024, f"the page weighs {weight} bytes"
        Select(self.el("#black-player")).select_by_value("human")
        click = self.driver.execute_async_script("""
            const done = arguments[0];
            const board = document.getElementById('board');
            const times = [];
            const press = (sq) => {
              const el = document.querySelector(`[data-square="${sq}"]`);
              const r = el.getBoundingClientRect();
              const o = {clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true};
              el.dispatchEvent(new PointerEvent('pointerdown', o));
              el.dispatchEvent(new PointerEvent('pointerup', o));
            };
            const moves = document.querySelector('[data-role="moves"]');
            const squares = ['a1', 'b2', 'c1', 'd2', 'e1', 'f2', 'a3', 'b4', 'c3', 'd4'];
            let i = 0;
            const next = () => {
              if (i >= squares.length) return done(times);
              const count = moves.children.length;
              const t0 = performance.now();
              press(squares[i++]);
              const wait = () => {
                if (moves.children.length > count) { times.push(performance.now() - t0); next(); }
                else requestAnimationFrame(wait);
              };
              wait();
            };
            next();
        """)
        select = self.driver.execute_script("""
            const el = document.querySelector('[data-square="a1"]');
            const r = el.getBoundingClientRect();
            const o = {clientX: r.left + 5, clientY: r.top + 5, bubbles: true};
            const t0 = performance.now();
            el.dispatchEvent(new PointerEvent('pointerdown', o));
            const targets = document.querySelectorAll('.target').length;
            return [performance.now() - t0, targets];
        """)
        median = lambda xs: sorted(xs)[len(xs) // 2]
        self.figures = {
            "page_ready_ms_median": round(median(ready), 1),
            "page_weight_bytes": weight,
            "move_click_answered_ms_median": round(median(click), 1),
            "select_click_targets_ms": round(select[0], 2),
            "targets_shown": select[1],
        }
        print("measured: " + json.dumps(self.figures))


def server_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return None


def safely(condition):
    """A condition read while the page redraws (a stale element) is not
    yet true."""
    try:
        return condition()
    except Exception:
        return False


def split_games(text):
    parts = text.split("[Event ")
    return ["[Event " + p for p in parts[1:]]


DEFECTS = ["defect_01_takeback", "defect_02_analysis_after_move", "defect_03_link_still",
           "defect_04_rules_confirm", "defect_05_flag", "defect_06_layout", "defect_07_status",
           "defect_08_scores", "defect_09_review_end", "defect_10_draw_offer", "defect_12_move_list"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--yote", required=True)
    p.add_argument("--records", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    p.add_argument("--only", default="")
    p.add_argument("--assets", default="", help="serve the page's files from this folder (no rebuild)")
    p.add_argument("--keep-going", action="store_true", help="run every step, then list the failures")
    args = p.parse_args()
    suite = Suite(args)
    started = time.perf_counter()
    try:
        # `memory` (10 tabs, a 1,000-game watch) is a measurement, run
        # with --only memory; the default steps are the tests.
        steps = args.only.split(",") if args.only else [
            *DEFECTS, "analysis_matches_board", "phone", "move_tree", "analyse_this_game", "arrow_and_marks",
            "play_dialogs", "new_game_dialog_settings", "leaves_asked", "settings_kept", "board_resize", "current_move_visible", "docs_screenshot", "play_whole_game", "kill_engine_mid_game", "board_sizes", "multi_jump_path", "analyse", "editor_hands", "tablebase", "analyse_without_shared_worker", "ten_tabs_analysing", "review", "watch",
            "hidden_tabs_keep_engines", "measure"]
        failures = []
        for step in steps:
            t = time.perf_counter()
            try:
                getattr(suite, step)()
            except Exception as e:
                if not args.keep_going:
                    raise
                failures.append(step)
                print(f"FAILED {step}: {type(e).__name__}: {str(e)[:300]}")
            print(f"  ({step}: {time.perf_counter() - t:.1f} s)", flush=True)
        if failures:
            raise SystemExit(f"failed: {', '.join(failures)}")
    finally:
        suite.close()
    print(f"browser suite passed in {time.perf_counter() - started:.1f} s; screenshots in {args.out}")


if __name__ == "__main__":
    sys.exit(main())
