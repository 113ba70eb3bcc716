"""The measured targets of issue 38 (a mixin of the browser suite):
analysis lines that always match the board, and a whole game played by
taps on a 360 x 740 phone screen."""

import os
import random
import time

from selenium.webdriver.common.keys import Keys

READ_BOARD_AND_LINES = """
const done = arguments[0];
import('/assets/app.js').then((m) => done([m.ctx.game,
  [...document.querySelectorAll('[data-role="lines"] > li')].map((li) => li.dataset.pv)]));
"""


class Targets:
    def board_and_lines(self):
        """The game on the board and the lines shown, read in one go."""
        return self.driver.execute_async_script(READ_BOARD_AND_LINES)

    def play_by_clicks(self, move, press):
        """Plays a legal move of the server's list by pressing cells (and a
        hand for a removal from it)."""
        if move["from"] is None and move["to"] is None:
            picks = move["removes"] + ["@"] * move["hand"]
        else:
            if move["from"] is None:
                press(f'[data-square="{move["to"]}"]')
            else:
                press(f'[data-square="{move["from"]}"]')
                press(f'[data-square="{move["to"]}"]')
                chooser = self.els('[data-role="jump-chooser"] button[data-jump]')
                if chooser:
                    want = move["jump"] or move["text"]
                    press(f'[data-role="jump-chooser"] button[data-jump="{want}"]')
            picks = (move["removes"] + ["@"] * move["hand"]) if move["jump"] else []
        if picks:
            self.until("the owed removals", lambda: "owes" in self.status())
        foe = "B" if self.state()["board"]["side"] == "W" else "W"
        for p in picks:
            press(f'[data-role="hand-{foe}"]' if p == "@" else f'[data-square="{p}"]')

    def analysis_matches_board(self):
        """30 random board moves, line clicks, takebacks and edits while
        analysing; after each, every line shown is legal in the position
        shown (replayed by the server's rules), read three times within a
        second, and the analysis goes on."""
        rng = random.Random(int(os.environ.get("YOTE_GUI_SEED", "38")))
        self.open("?view=analyse&moves=@c3,@d4")
        lines = self.el("#multipv")
        lines.clear()
        lines.send_keys("2" + Keys.TAB)
        self.el("#analyse-go").click()
        self.until("lines", lambda: self.board_and_lines()[1])
        click = lambda css: self.el(css).click()
        counts = {}
        checked = 0
        for step in range(30):
            st = self.state()
            kinds = ["move"] * 4 + ["line"] * 3 + ["takeback"] * 2 + ["edit"]
            if st["status"] or not st["legal"]:
                kinds = ["takeback"]
            kind = rng.choice(kinds)
            before = self.board_and_lines()[0]
            if kind == "move":
                self.play_by_clicks(rng.choice(st["legal"]), click)
            elif kind == "line":
                shown = self.els('[data-role="lines"] > li')
                if not shown:
                    kind = "takeback"
                else:
                    try:
                        shown[rng.randrange(len(shown))].click()
                    except Exception:
                        kind = "line (redrawn)"
            if kind == "takeback":
                self.el("body").send_keys(Keys.ARROW_LEFT)
            elif kind == "edit":
                self.edit_one_piece(st, rng)
            counts[kind] = counts.get(kind, 0) + 1
            if kind != "edit" and kind != "line (redrawn)":
                self.until(f"step {step}: the {kind} on the board",
                           lambda: self.board_and_lines()[0] != before or not before["moves"], timeout=5)
            for _ in range(2):
                game, pvs = self.board_and_lines()
                for pv in pvs:
                    assert self.legal_line(game, pv), f"step {step} ({kind}): line {pv!r} is not legal in {game}"
                    checked += 1
                time.sleep(0.15)
            print(f"  step {step} {kind}: {len(game['moves'])} moves, {len(pvs)} lines, "
                  f"{self.el('#analysis-summary').text!r} {self.el('#analyse-go').get_attribute('class')}")
        self.until("lines after the last step", lambda: self.board_and_lines()[1], timeout=10)
        assert "on" in self.el("#analyse-go").get_attribute("class")
        self.el("#analyse-stop").click()
        print(f"analysis matches the board: 30 steps {counts}, {checked} shown lines all legal")

    def edit_one_piece(self, st, rng):
        """An edit: one piece of the side to move put on an empty cell from
        its hand, then Set position (a position the engine refuses is left
        unset, and editing closed)."""
        empty = [i for i, c in enumerate(st["board"]["cells"]) if c == "."]
        side = st["board"]["side"]
        if not empty or st["board"]["hands"][side] == 0 or st["board"]["owed"]:
            self.el("body").send_keys(Keys.ARROW_LEFT)
            return
        cols = st["board"]["cols"]
        cell = empty[rng.randrange(len(empty))]
        name = "abcdefgh"[cell % cols] + str(cell // cols + 1)
        self.el(f'[data-put="{side}"]').click()
        self.click_square(name)
        self.el("#edit-apply").click()
        self.until("the edit applied or refused",
                   lambda: self.el("#edit-error").is_displayed() or not self.driver.execute_script(
                       "return document.getElementById('edit-toggle').classList.contains('on')"))
        if self.el("#edit-error").is_displayed():
            self.el("#edit-toggle").click()

    def tap(self, css):
        """A finger's tap at the middle of the element (touch events)."""
        x, y = self.driver.execute_script(
            "const e = document.querySelector(arguments[0]);"
            "if (e.getBoundingClientRect().top < 0 || e.getBoundingClientRect().bottom > innerHeight)"
            "  e.scrollIntoView({block: 'center'});"
            "const r = e.getBoundingClientRect();"
            "return [r.left + r.width / 2, r.top + r.height / 2];", css)
        point = [{"x": x, "y": y}]
        self.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point})
        self.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    def phone(self):
        """At 360 x 740: no horizontal scroll, the board at least 340 px
        wide, and a whole game played by taps."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True})
        self.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
        try:
            self.open("?variant=hand-removal,pieces=6")
            self.players("human", "0", 0.05, "skill", 0)
            width = self.driver.execute_script("return document.getElementById('board').getBoundingClientRect().width")
            assert width >= 340, f"the board is {width} px wide at 360 px"
            taps = 0
            captured = 0
            for _ in range(200):
                st = self.state()
                if st["status"] or "Game over" in self.status() or "wins" in self.status():
                    break
                if st["board"]["side"] == "W" and "thinking" not in self.status():
                    legal = st["legal"]
                    captures = [m for m in legal if m["jump"] or m["captured"]]
                    move = captures[0] if captures else self.rng.choice(legal)
                    captured += bool(captures)
                    before = self.plies()
                    self.play_by_clicks(move, self.tap)
                    taps += 1
                    self.until(f"the tapped move {move['text']}", lambda: self.plies() > before or self.state()["status"])
                else:
                    self.until("the engine's move", lambda: self.status().startswith("White")
                               or "Game over" in self.status())
                if taps == 3:
                    self.shot("phone")
                scroll = self.driver.execute_script(
                    "return [document.documentElement.scrollWidth, window.innerWidth]")
                assert scroll[0] <= scroll[1], f"horizontal scroll at 360 px: {scroll}"
            self.until("the end of the game", lambda: "Game over" in self.status() or "wins" in self.status())
            self.shot("phone-end")
            assert captured >= 1, "no capture was made by taps"
            print(f"phone 360x740: board {width:.0f} px, no horizontal scroll, a whole game by {taps} moves tapped ({captured} captures): "
                  f"{self.status()!r}")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
