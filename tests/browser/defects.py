"""Regression tests of the defects of issue 38, each doing exactly the steps
the issue gives (a mixin of the browser suite, gui_suite.py)."""

import json
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

# White c3, Black d3 and a1: c3e3 jumps d3 and owes one more removal.
CAPTURE = "6/6/2WB2/6/B5 w 11 10 0 1"
# Under MultiJump two chains join a1 and c3.
MULTI = "6/6/1B4/B1B3/WB4 w 11 8 0 1"


class Defects:
    # -- helpers shared by the defect tests ------------------------------
    def game(self):
        return self.driver.execute_async_script(
            "const done = arguments[0]; import('/assets/app.js').then((m) => done(m.ctx.game));")

    def post(self, path, body):
        req = urllib.request.Request(self.url + path, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
        return json.load(urllib.request.urlopen(req))

    def legal_line(self, game, pv):
        """Whether the rules accept the line `pv` after the game (the server
        replays it with the rules library)."""
        try:
            self.post("api/state", {"variant": game["variant"], "fen": game["fen"],
                                    "moves": game["moves"] + pv.split()})
            return True
        except urllib.error.HTTPError:
            return False

    def players(self, white, black, movetime=0.3, strength="full", value=None):
        # Strength first: it is hidden once neither side is an engine.
        Select(self.el("#strength-kind")).select_by_value(strength)
        if value is not None:
            field = self.el("#strength-value")
            field.clear()
            field.send_keys(str(value) + Keys.TAB)
        Select(self.el("#white-player")).select_by_value(white)
        Select(self.el("#black-player")).select_by_value(black)
        Select(self.el("#clock-kind")).select_by_value("movetime")
        seconds = self.el("#clock-a")
        seconds.clear()
        seconds.send_keys(str(movetime) + Keys.TAB)

    def new_game(self, rules=None):
        """New game through its dialog (the rules it shows picked first)."""
        self.el("#new-game").click()
        self.until("the new-game dialog", lambda: self.el('[data-role="new-game"]').is_displayed())
        if rules:
            self.el(f'[data-role="new-game"] input[value="{rules}"]').click()
        self.el("#start-game").click()

    def entries(self):
        return [e.get_attribute("textContent") for e in self.els('[data-role="moves"] [data-ply]')]

    def session(self):
        return self.driver.execute_async_script(
            "const done = arguments[0]; import('/assets/api.js').then((m) => done(m.sessionId()));")

    def shown_lines(self):
        return self.driver.execute_script(
            "return [...document.querySelectorAll('[data-role=\"lines\"] > li')].map((li) => li.dataset.pv)")

    # -- the defects -------------------------------------------------------
    def defect_01_takeback(self):
        """Play, White = Person, Black = engine at 0.3 s a move: click c3
        (engine answers), click d3 (engine answers), then Takeback: the
        game is back at the engine's first answer and stays there."""
        self.open()
        self.players("human", "0", 0.3)
        self.click_square("c3")
        self.until("the engine's first answer", lambda: len(self.game()["moves"]) == 2)
        first_two = self.game()["moves"]
        self.click_square("d3")
        self.until("the engine's second answer", lambda: len(self.game()["moves"]) == 4)
        self.el("#takeback").click()
        self.until("the takeback", lambda: self.game()["moves"] == first_two)
        time.sleep(1.5)  # an engine search started in between would have answered by now
        assert self.game()["moves"] == first_two, (self.game()["moves"], first_two)
        assert "White to move" in self.status(), self.status()
        print(f"defect 1: takeback after 4 plies leaves {first_two}, nothing played for White")

    def defect_02_analysis_after_move(self):
        """Analyse a position, then place a piece on the board and click a
        line: the analysis goes on, on the new position, with lines that are
        legal there."""
        self.open("?variant=standard&moves=@c3,@d4&view=analyse")
        self.el("#analyse-go").click()
        self.until("lines", lambda: len(self.shown_lines()) >= 1)
        for action in ["board", "line", "board", "line"]:
            before = self.game()["moves"]
            if action == "board":
                st = self.state()
                move = next(m for m in st["legal"] if m["from"] is None)
                self.click_square(move["to"])
            else:
                self.click_first_line()
            self.until(f"the {action} move", lambda: len(self.game()["moves"]) == len(before) + 1)
            game = self.game()
            self.until("lines of the new position", lambda: len(self.shown_lines()) >= 1, timeout=10)
            for pv in self.shown_lines():
                assert self.legal_line(game, pv), f"after a {action} move the line {pv!r} is not legal"
            time.sleep(1.5)
            game = self.game()
            for pv in self.shown_lines():
                assert self.legal_line(game, pv), f"after a {action} move the line {pv!r} is not legal"
            assert self.shown_lines(), f"no line shown 1.5 s after a {action} move"
            slots = json.load(urllib.request.urlopen(self.url + f"api/engines?session={self.session()}"))["slots"]
            assert slots[2]["state"] == "thinking", f"the analysis stopped after a {action} move: {slots[2]}"
        print("defect 2: analysis goes on after board moves and line clicks, its lines legal")

    def defect_03_link_still(self):
        """/?moves=@c3,@d3,@c4,@d4,c4c5&view=analyse opens with Black to
        move and nothing moves on its own."""
        self.open("?moves=@c3,@d3,@c4,@d4,c4c5&view=analyse")
        time.sleep(2.5)
        moves = self.game()["moves"]
        assert moves == ["@c3", "@d3", "@c4", "@d4", "c4c5"], moves
        assert len(self.entries()) == 5, self.entries()
        print("defect 3: an analyse link stays at its position (5 plies, Black to move)")

    def defect_04_rules_confirm(self):
        """Changing Rules in the middle of a game asks first; No keeps the
        game and the rules, Yes starts the new game."""
        self.open()
        self.players("human", "human")
        self.click_square("c3")
        self.until("the move", lambda: len(self.game()["moves"]) == 1)
        Select(self.el("#variant")).select_by_value("6x6")
        self.until("the question", lambda: self.el('[data-role="ask"]').is_displayed())
        assert len(self.game()["moves"]) == 1
        self.el('[data-role="ask"] [data-answer="no"]').click()
        self.until("the question gone", lambda: not self.el('[data-role="ask"]').is_displayed())
        assert self.el("#variant").get_attribute("value") == "standard"
        assert self.game()["moves"] == ["@c3"], self.game()
        Select(self.el("#variant")).select_by_value("6x6")
        self.until("the question", lambda: self.el('[data-role="ask"]').is_displayed())
        self.el('[data-role="ask"] [data-answer="yes"]').click()
        self.until("the 6x6 game", lambda: self.game()["moves"] == [] and "6x6" in self.game()["variant"]
                   or self.state()["preset"] == "6x6")
        print("defect 4: changing rules mid-game asks; No keeps the game, Yes starts the new one")

    def defect_05_flag(self):
        """After a flag fall the loser's clock shows 0.0."""
        self.open()
        self.players("human", "0")
        Select(self.el("#clock-kind")).select_by_value("clock")
        minutes = self.el("#clock-a")
        minutes.clear()
        minutes.send_keys("0.05" + Keys.TAB)
        self.new_game()
        self.until("the flag fall", lambda: "time" in self.status(), timeout=10)
        time.sleep(0.5)
        clock = self.el('#bottom-player .clock').text
        assert clock == "0.0", clock
        print(f"defect 5: the flagged clock shows {clock}")

    def panel_at(self):
        r = self.driver.execute_script(
            "const r = document.querySelector('aside').getBoundingClientRect(); return [r.left, r.top];")
        return r

    def defect_06_layout(self):
        """A long status line, an error and the jump-path buttons do not
        move the right panel."""
        self.open("?variant=multi_jump=true&fen=" + urllib.parse.quote(MULTI))
        self.players("human", "human")
        at = self.panel_at()
        moved = []
        self.el("#move-input").send_keys("bogus-move-text-that-is-long" + Keys.ENTER)
        self.until("the error", lambda: self.el("#error").is_displayed())
        moved.append(("error", self.panel_at()))
        self.click_square("a1")
        self.click_square("c3")
        self.until("the path chooser", lambda: self.el('[data-role="jump-chooser"]').is_displayed())
        moved.append(("chooser", self.panel_at()))
        self.els('[data-role="jump-chooser"] button[data-jump]')[0].click()
        self.until("the owed removals", lambda: "owes" in self.status())
        moved.append(("long status", self.panel_at()))
        worst = max(max(abs(p[0] - at[0]), abs(p[1] - at[1])) for _, p in moved)
        assert worst <= 1, f"the right panel moved: from {at}: {moved}"
        print(f"defect 6: the right panel moved at most {worst:.1f} px (error, chooser, long status)")

    def defect_07_status(self):
        """After choosing one of two removals the status says one is left;
        a bonus turn is announced."""
        self.open("?variant=multi_jump=true&fen=" + urllib.parse.quote(MULTI))
        self.players("human", "human")
        self.click_square("a1")
        self.click_square("c3")
        self.until("the path chooser", lambda: self.el('[data-role="jump-chooser"]').is_displayed())
        self.el('[data-role="jump-chooser"] button[data-jump="a1c1c3"]').click()
        self.until("two owed", lambda: "2 removals" in self.status())
        self.click_square("a2")
        self.until("one left", lambda: "1 more removal" in self.status())
        assert "2 removals" not in self.status(), self.status()
        self.open("?variant=standard,bonus_turn=true&fen=" + urllib.parse.quote(CAPTURE))
        self.players("human", "human")
        self.click_square("c3")
        self.click_square("e3")
        self.until("the owed removal", lambda: "owes" in self.status())
        self.click_square("a1")
        self.until("the bonus turn", lambda: "bonus" in self.status().lower())
        print(f"defect 7: removals counted down; bonus turn: {self.status()!r}")

    def defect_08_scores(self):
        """Play's bar shows the engine's view from White's side and flips with
        the board; a table win is in words; Review's comment is White's
        view, as its bar."""
        fen = "6/6/2BW2/6/W5 b 10 10 0 1"  # Black captures d3 at once
        self.open("?fen=" + urllib.parse.quote(fen))
        self.players("human", "0", 0.3)
        self.until("the engine's capture", lambda: len(self.game()["moves"]) >= 1 and "White" in self.status())
        share = float(self.el("#evalbar").get_attribute("data-white"))
        assert share < 0.47, f"Black won a piece, yet White's share of the bar is {share}"
        fill_top = lambda: self.driver.execute_script(
            "const b = document.getElementById('evalbar').getBoundingClientRect(),"
            " f = document.querySelector('#evalbar .fill').getBoundingClientRect();"
            " return [Math.abs(f.bottom - b.bottom) < 3, Math.abs(f.top - b.top) < 3];")
        assert fill_top()[0], "White's part of the bar is at White's side (the bottom)"
        self.el("#flip").click()
        self.until("the bar flipped", lambda: fill_top()[1])
        # A table win in words.
        self.open("?view=analyse&fen=" + urllib.parse.quote("6/6/2WB2/6/W5 w 0 1 0 1"))
        Select(self.el("#analyse-engine")).select_by_visible_text("tables")
        self.el("#analyse-go").click()
        self.until("a line", lambda: len(self.shown_lines()) >= 1)
        score = self.driver.execute_script(
            "return document.querySelector('[data-role=\"lines\"] > li .score').textContent")
        assert "307" not in score and "win" in score.lower(), score
        assert "307" not in self.el("#evalbar").text, self.el("#evalbar").text
        self.el("#analyse-stop").click()
        # Review: a Black move's comment from White's side, as the bar.
        self.view("review")
        Select(self.el("#records-source")).select_by_value("f0")
        self.until("the game list", lambda: len(self.els("#game-list tbody tr")) >= 1)
        self.els("#game-list tbody tr")[0].click()
        body = self.el("body")
        body.send_keys(Keys.HOME)
        for _ in range(10):
            body.send_keys(Keys.ARROW_RIGHT)  # ply 10: c3a3xa2, +1.76 for Black
        self.until("ply 10", lambda: "c3a3xa2" in self.el("#review-comment").text)
        comment = self.el("#review-comment").text
        bar = self.el("#evalbar span").text
        assert "-1.76" in comment.replace("\u2212", "-") and "White" in comment, comment
        assert bar.replace("\u2212", "-").startswith("-1.8"), bar
        # A proved value in words, not "+W1".
        self.post_records('[Result "1-0"]\n\n1. @c3 {+W1/0} 1-0\n')
        self.until("the pasted game", lambda: "of 1," in self.status())
        body.send_keys(Keys.END)
        self.until("the comment", lambda: "@c3" in self.el("#review-comment").text)
        comment = self.el("#review-comment").text
        assert "W1" not in comment and "win" in comment, comment
        print(f"defect 8: Play bar {share:.2f} for White, flips; table line {score!r}; review {comment!r}")

    def post_records(self, text):
        area = self.el("#records-paste")
        area.clear()
        area.send_keys(text)
        self.el("#records-load").click()

    def defect_09_review_end(self):
        """Review: the last move is highlighted; a game ended at the ply
        limit says it was drawn and why."""
        self.open()
        self.view("review")
        self.post_records('[White "a"]\n[Black "b"]\n[Termination "max plies"]\n[Reason "draw: max plies"]\n'
                          '[Result "1/2-1/2"]\n\n1. @c3 @d3 2. @c1 @d1 1/2-1/2\n')
        self.until("the pasted game", lambda: "of 4," in self.status())
        body = self.el("body")
        body.send_keys(Keys.HOME)
        body.send_keys(Keys.ARROW_RIGHT)
        self.until("the last move shown", lambda: self.els('[data-square="c3"].last'))
        body.send_keys(Keys.END)
        self.until("the end", lambda: "max plies" in self.status())
        assert "draw" in self.status().lower(), self.status()
        assert self.els('[data-square="d1"].last'), "the last move is highlighted at the end"
        print(f"defect 9: review end: {self.status()!r}")

    def defect_10_draw_offer(self):
        """A draw offered on move 1 of a new game is not agreed on the
        previous game's last score."""
        self.open()
        self.players("human", "0", 0.3)
        self.click_square("c3")
        self.until("the engine's answer", lambda: len(self.game()["moves"]) == 2)
        self.el("#draw").click()
        self.until("the first draw agreed", lambda: "Draw agreed" in self.status() or self.ask_visible())
        self.close_dialogs()
        assert "Draw agreed" in self.status(), "(setup) the engine agrees at an even score"
        self.new_game()
        self.until("the new game", lambda: self.game()["moves"] == [])
        self.el("#draw").click()
        time.sleep(0.5)
        assert "Draw agreed" not in self.status(), self.status()
        print(f"defect 10: draw offer on move 1 of a new game: {self.el('#error').text!r}")

    def ask_visible(self):
        return any(d.is_displayed() for d in self.els("dialog"))

    def close_dialogs(self):
        self.driver.execute_script("for (const d of document.querySelectorAll('dialog[open]')) d.close();")

    def defect_12_move_list(self):
        """A capture entered by clicks is one entry, numbered; clicking an
        entry shows its position."""
        self.open("?fen=" + urllib.parse.quote(CAPTURE))
        self.players("human", "human")
        self.click_square("c3")
        self.click_square("e3")
        self.until("the owed removal", lambda: "owes" in self.status())
        self.click_square("a1")
        self.until("the capture", lambda: "Black to move" in self.status())
        self.click_square("a1")
        self.until("Black's placement", lambda: "White to move" in self.status())
        entries = self.entries()
        assert entries == ["c3e3xa1", "@a1"], entries
        numbers = [n.text for n in self.els('[data-role="moves"] .no')]
        assert numbers and numbers[0].startswith("1"), numbers
        self.els('[data-role="moves"] [data-ply]')[0].click()
        self.until("the first move's position", lambda: not self.els('[data-square="a1"] [data-piece]'))
        assert self.els('[data-square="e3"] [data-piece="W"]')
        self.el("body").send_keys(Keys.END)
        self.until("back at the end", lambda: self.els('[data-square="a1"] [data-piece="B"]'))
        print(f"defect 12: move list {numbers[0]} {entries}, clickable")
