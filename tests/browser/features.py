"""What people expect of the page (issue 38), a mixin of the browser suite:
the move tree in Analyse, "Analyse this game", the best-line arrow, the
marks of the last move and of capture targets, confirmations, the result
dialog and rematch, settings kept between visits, Watch's large board."""

import time
import urllib.parse

from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from defects import CAPTURE


class Features:
    def main_line(self):
        return self.driver.execute_script(
            "return [...document.querySelectorAll('[data-role=\"moves\"] > [data-ply]')].map((e) => e.textContent)")

    def variations(self):
        return self.driver.execute_script(
            "return [...document.querySelectorAll('[data-role=\"moves\"] .variation')].map((e) => e.textContent)")

    def move_tree(self):
        """A move from an earlier position starts a variation; it can be
        promoted, copied as records text, deleted, and loaded back; the
        keys move through it."""
        self.open("?view=analyse&moves=@c3,@d4")
        body = self.el("body")
        body.send_keys(Keys.ARROW_LEFT)
        self.until("back one move", lambda: self.game()["moves"] == ["@c3"])
        self.click_square("a1")
        self.until("the variation", lambda: self.variations())
        assert self.main_line() == ["@c3", "@d4"], self.main_line()
        assert "@a1" in self.variations()[0], self.variations()
        assert "current" in self.el('[data-role="moves"] .variation [data-ply]').get_attribute("class")
        self.el("#tree-promote").click()
        self.until("promoted", lambda: self.main_line() == ["@c3", "@a1"])
        assert "@d4" in self.variations()[0], self.variations()
        self.el("#tree-copy").click()
        text = self.el("#tree-text").get_attribute("value")
        assert "1. @c3 @a1 (1... @d4)" in text, text
        self.el("#tree-delete").click()
        self.until("deleted", lambda: self.main_line() == ["@c3", "@d4"] and not self.variations())
        self.el("#tree-load").click()
        # The board's moves were made by hand: replacing them asks.
        self.until("the question", lambda: self.el('[data-role="ask"]').is_displayed())
        self.el('[data-role="ask"] [data-answer="yes"]').click()
        self.until("loaded back", lambda: self.main_line() == ["@c3", "@a1"] and self.variations())
        body.send_keys(Keys.END)
        self.until("End: the main line's end", lambda: self.game()["moves"] == ["@c3", "@a1"])
        body.send_keys(Keys.HOME)
        self.until("Home: the start", lambda: self.game()["moves"] == [])
        body.send_keys(Keys.ARROW_RIGHT)
        self.until("→: one move", lambda: self.game()["moves"] == ["@c3"])
        # Text that is not a game is refused, and the tree stays.
        area = self.el("#tree-text")
        area.clear()
        area.send_keys("1. @c3 @c3")
        self.el("#tree-load").click()
        self.until("the refusal", lambda: "not loaded" in self.el("#tree-error").text)
        assert self.main_line() == ["@c3", "@a1"]
        print(f"move tree: variation made, promoted, copied ({text.splitlines()[-1]!r}), deleted, loaded back")

    def analyse_this_game(self):
        """From Play and from Review, "Analyse this game" opens the whole
        game in Analyse at the move shown."""
        self.open()
        self.players("human", "human")
        for sq in ["c3", "d3", "c1"]:
            self.click_square(sq)
        self.until("three moves", lambda: len(self.game()["moves"]) == 3)
        self.el("#play-analyse").click()
        self.until("Analyse", lambda: self.el("#analyse-panel").is_displayed())
        assert self.main_line() == ["@c3", "@d3", "@c1"], self.main_line()
        assert self.game()["moves"] == ["@c3", "@d3", "@c1"]
        self.view("review")
        Select(self.el("#records-source")).select_by_value("f0")
        self.until("the game list", lambda: len(self.els("#game-list tbody tr")) >= 1)
        self.until("game 1", lambda: self.status().startswith("Ply 0 of"))
        total = int(self.status().split(" of ")[1].split(",")[0])
        for _ in range(5):
            self.el("body").send_keys(Keys.ARROW_RIGHT)
        self.until("ply 5", lambda: self.status().startswith("Ply 5 of"))
        self.el("#rv-play").click()
        self.until("the record in Analyse", lambda: self.el("#analyse-panel").is_displayed()
                   and len(self.game()["moves"]) == 5)
        assert len(self.main_line()) == total, (len(self.main_line()), total)
        print(f"analyse this game: from Play (3 moves) and from Review ({total} plies, at ply 5)")

    def arrow_and_marks(self):
        """The best line's first move is drawn (and the toggle hides it);
        capture targets are marked unlike plain steps; the last capture
        shows its jumped cell and removed piece as ghosts."""
        self.open("?view=analyse&fen=" + urllib.parse.quote(CAPTURE))
        self.el("#analyse-go").click()
        arrow = '[data-role="arrow"] > *'
        self.until("the arrow", lambda: self.els(arrow))
        self.el("#arrow-toggle").click()
        self.until("no arrow", lambda: not self.els(arrow))
        self.el("#arrow-toggle").click()
        # Hovering a line previews its end on a small board.
        self.until("lines", lambda: self.els('[data-role="lines"] > li'))
        self.driver.execute_script(
            "document.querySelector('[data-role=\"lines\"] > li').dispatchEvent("
            "new MouseEvent('mouseenter', {clientX: 500, clientY: 300}))")
        self.until("the preview", lambda: self.el("#line-preview").is_displayed()
                   and self.els("#line-preview [data-square]"))
        self.el("#analyse-stop").click()
        self.click_square("c3")
        self.until("targets", lambda: self.els('[data-square="e3"].target'))
        assert "capture" in self.el('[data-square="e3"]').get_attribute("class")
        steps = [e for e in self.els(".target") if "capture" not in e.get_attribute("class")]
        assert steps, "plain steps are targets without the capture mark"
        self.click_square("e3")
        self.until("the owed removal", lambda: "owes" in self.status())
        self.click_square("a1")
        self.until("the capture", lambda: "Black to move" in self.status())
        assert self.els('[data-square="d3"] .ghost[data-ghost="B"]'), "the jumped piece's ghost"
        assert self.els('[data-square="a1"] .ghost[data-ghost="B"]'), "the removed piece's ghost"
        assert "last" in self.el('[data-square="c3"]').get_attribute("class")
        self.shot("last-capture")
        print("arrow drawn and toggled; capture targets marked; ghosts on the jumped and removed cells")

    def play_dialogs(self):
        """New game and resignation ask first; the result dialog gives the
        reason, and Rematch starts a new game with colours swapped."""
        self.open()
        self.players("human", "0", 0.2)
        self.click_square("c3")
        self.until("the engine's answer", lambda: len(self.game()["moves"]) == 2)
        self.el("#new-game").click()
        self.until("the new-game dialog", lambda: self.el('[data-role="new-game"]').is_displayed())
        about = self.el('[data-role="new-game"] input[value="hand-removal"]').find_element("xpath", "..").text
        assert "hand" in about and len(self.els('[data-role="new-game"] input[name="new-rules"]')) >= 7, about
        self.el('[data-role="new-game"] input[value="6x6"]').click()
        self.shot("new-game")
        self.el("#start-game").click()
        self.until("the question", lambda: self.el('[data-role="ask"]').is_displayed())
        self.el('[data-role="ask"] [data-answer="no"]').click()
        assert len(self.game()["moves"]) == 2
        assert self.el("#variant").get_attribute("value") == "standard", "the rules stay as they were"
        self.el("#resign").click()
        self.until("the question", lambda: self.el('[data-role="ask"]').is_displayed())
        self.el('[data-role="ask"] [data-answer="no"]').click()
        assert "resign" not in self.status()
        self.el("#resign").click()
        self.until("the question", lambda: self.el('[data-role="ask"]').is_displayed())
        self.el('[data-role="ask"] [data-answer="yes"]').click()
        self.until("the result", lambda: self.el('[data-role="result"]').is_displayed())
        reason = self.el('[data-role="result-reason"]').text
        assert "White resigns" in reason and "0-1" in reason, reason
        self.shot("result")
        self.el("#rematch").click()
        self.until("the rematch: the engine opens as White",
                   lambda: len(self.game()["moves"]) == 1 and "Black to move" in self.status())
        assert self.el("#white-player").get_attribute("value") == "0"
        assert self.el("#black-player").get_attribute("value") == "human"
        self.close_dialogs()
        self.players("human", "human")
        self.new_game("6x6")
        self.until("the question", lambda: self.el('[data-role="ask"]').is_displayed())
        self.el('[data-role="ask"] [data-answer="yes"]').click()
        self.until("a 6x6 game", lambda: self.state()["preset"] == "6x6" and self.game()["moves"] == [])
        print(f"dialogs: new game (rules with descriptions) and resignation asked; result {reason!r}; rematch with colours swapped")

    def new_game_dialog_settings(self):
        """The new-game dialog sets the players, the engines' strength
        (shown only where an engine plays) and the clock as well as the
        rules; Start makes them the panel's settings, kept between
        visits, and Cancel changes nothing."""
        self.open()
        self.el("#new-game").click()
        dialog = '[data-role="new-game"]'
        self.until("the new-game dialog", lambda: self.el(dialog).is_displayed())
        shown = lambda css: self.el(f"{dialog} {css}").is_displayed()
        # As the panel has them: a person against the engine, full strength.
        assert self.el("#ng-white").get_attribute("value") == "human"
        assert self.el("#ng-black").get_attribute("value") == "0"
        assert shown("#ng-strength-kind") and not shown("#ng-strength-value"), "full strength has no value"
        Select(self.el("#ng-white")).select_by_value("human")
        Select(self.el("#ng-black")).select_by_value("human")
        assert not shown("#ng-strength-kind"), "strength shown with no engine playing"
        Select(self.el("#ng-white")).select_by_value("0")
        assert shown("#ng-strength-kind")
        Select(self.el("#ng-strength-kind")).select_by_value("skill")
        assert shown("#ng-strength-value")
        value = self.el("#ng-strength-value")
        value.clear()
        value.send_keys("3")
        assert not shown("#ng-clock-b"), "a fixed time per move has no second field"
        Select(self.el("#ng-clock-kind")).select_by_value("clock")
        assert shown("#ng-clock-b")
        for field, text in [("#ng-clock-a", "1"), ("#ng-clock-b", "2")]:
            self.el(field).clear()
            self.el(field).send_keys(text)
        self.el(f'{dialog} input[value="6x6"]').click()
        self.shot("new-game-settings")
        self.phone_shot("new-game-settings-phone")
        self.el("#start-game").click()
        # The engine opens as White; the person's clock (Black) counts down.
        self.until("the engine's first move as White", lambda: len(self.game()["moves"]) == 1
                   and "Black to move" in self.status())
        assert self.state()["preset"] == "6x6"
        panel = {f: self.el(f"#{f}").get_attribute("value") for f in
                 ["white-player", "black-player", "strength-kind", "strength-value", "clock-kind", "clock-a", "clock-b"]}
        assert panel == {"white-player": "0", "black-player": "human", "strength-kind": "skill",
                         "strength-value": "3", "clock-kind": "clock", "clock-a": "1", "clock-b": "2"}, panel
        clock = self.el('.player[data-side="B"] .clock')
        secs = lambda t: int(t.split(":")[0]) * 60 + int(t.split(":")[1]) if ":" in t else float(t)
        self.until("Black's clock counting down from a minute", lambda: "running" in clock.get_attribute("class")
                   and 50 <= secs(clock.text) < 60)
        # Cancel changes nothing.
        self.el("#new-game").click()
        self.until("the new-game dialog", lambda: self.el(dialog).is_displayed())
        Select(self.el("#ng-black")).select_by_value("0")
        self.el("#new-game-cancel").click()
        assert self.el("#black-player").get_attribute("value") == "human"
        self.open(keep_settings=True)
        kept = {f: self.el(f"#{f}").get_attribute("value") for f in panel}
        assert kept == panel, kept
        print(f"new-game dialog: players, strength (hidden without an engine), clock and rules set; kept: {kept}")

    def leaves_asked(self):
        """The real beforeunload of a reload, as the page answers it: asked
        (cancelled) while a game is in progress in Play or moves were made
        on Analyse's board, not otherwise. Headless Chromium under
        ChromeDriver shows no prompt and navigates on, so a listener the
        test adds after the page's own notes whether the page cancelled
        the event (sessionStorage survives the reload)."""
        note = ("sessionStorage.removeItem('asked');"
                "addEventListener('beforeunload', (e) => sessionStorage.setItem('asked', String(e.defaultPrevented)));")

        def reload_asks():
            self.driver.execute_script(note)
            self.driver.get(self.driver.current_url)
            self.until("the page", lambda: self.driver.execute_script("return document.body.dataset.ready") == "true")
            return self.driver.execute_script("return sessionStorage.getItem('asked')")

        self.open()
        self.players("human", "human")
        assert reload_asks() == "false", "a page with no game asked"
        self.players("human", "human")
        self.click_square("c3")
        self.until("a move", lambda: len(self.game()["moves"]) == 1)
        # Views come and go; Play's game stays.
        for view in ["review", "watch", "analyse", "play"]:
            self.view(view)
        self.until("Play's game kept", lambda: len(self.game()["moves"]) == 1)
        assert reload_asks() == "true", "a reload did not ask with a game in progress"
        self.players("human", "human")
        self.click_square("c3")
        self.until("a move", lambda: len(self.game()["moves"]) == 1)
        self.el("#resign").click()
        self.until("the question", lambda: self.el('[data-role="ask"]').is_displayed())
        self.el('[data-role="ask"] [data-answer="yes"]').click()
        self.until("the result", lambda: self.el('[data-role="result"]').is_displayed())
        self.close_dialogs()
        assert reload_asks() == "false", "a finished game asked"
        # Moves made on Analyse's board: a reload asks, and so does
        # "Analyse this game", whose No keeps them.
        self.open("?view=analyse&moves=@c3")
        assert reload_asks() == "false", "an analyse link asked before any move on its board"
        self.click_square("d4")
        self.until("the move", lambda: self.game()["moves"] == ["@c3", "@d4"])
        self.view("play")
        self.el("#play-analyse").click()
        self.until("the question", lambda: self.el('[data-role="ask"]').is_displayed())
        self.el('[data-role="ask"] [data-answer="no"]').click()
        assert self.el("#play-panel").is_displayed(), "Play stays"
        self.view("analyse")
        self.until("Analyse's moves kept", lambda: self.game()["moves"] == ["@c3", "@d4"])
        assert reload_asks() == "true", "a reload did not ask with moves made on Analyse's board"
        print("leaving asked: with a game in progress and with moves made on Analyse's board, not otherwise; "
              "views keep Play's game; Analyse this game asks before replacing Analyse's moves")

    def settings_kept(self):
        """Settings are kept between visits (localStorage)."""
        self.open()
        self.players("human", "human", 2)
        Select(self.el("#variant")).select_by_value("6x6")
        self.until("6x6", lambda: self.state()["preset"] == "6x6")
        self.open(keep_settings=True)
        assert self.el("#black-player").get_attribute("value") == "human"
        assert self.el("#clock-a").get_attribute("value") == "2"
        assert self.el("#variant").get_attribute("value") == "6x6"
        print("settings kept between visits: players, clock, rules")

    def watch_large(self):
        """Watch: a game clicked opens large, with its hands."""
        boards = self.els("#watch-boards > .mini")
        assert boards, "no finished game shown"
        boards[0].click()
        self.until("the large board", lambda: self.el('[data-role="watch-large"]').is_displayed())
        pieces = len(self.els('[data-role="watch-large"] [data-piece]'))
        assert pieces > 0 and "in hand" in self.el('[data-role="watch-large"] p').text
        self.el("#watch-large-close").click()
        time.sleep(0.1)
        print(f"watch: a game opened large ({pieces} pieces)")

    def docs_screenshot(self):
        """The screenshot of docs/gui.md: Analyse with a variation in the
        tree, three lines and the best-line arrow."""
        self.open("?view=analyse&moves=@c3,@d4,@c4,@d3")
        self.el("body").send_keys(Keys.ARROW_LEFT)
        self.until("back one move", lambda: len(self.game()["moves"]) == 3)
        self.click_square("b4")
        self.until("the variation", lambda: self.variations())
        self.el("#analyse-go").click()
        self.until("three lines at depth 8", lambda: len(self.els('[data-role="lines"] > li')) >= 3
                   and int(self.el("#analysis-summary").text.split()[1].rstrip(",")) >= 8, timeout=30)
        self.driver.execute_script("window.scrollTo(0, 0)")
        self.shot("docs-desktop")
        self.el("#analyse-stop").click()
        print("docs screenshot taken (Analyse with a variation)")

    def board_resize(self):
        """The board follows a drag of its corner handle, and keeps the
        size on the next visit."""
        from selenium.webdriver.common.action_chains import ActionChains
        self.open()
        width = lambda: self.driver.execute_script("return document.getElementById('board').getBoundingClientRect().width")
        before = width()
        handle = self.el('[data-role="resize"]')
        ActionChains(self.driver).click_and_hold(handle).move_by_offset(-120, 0).release().perform()
        after = width()
        assert before - 140 <= after <= before - 100, (before, after)
        self.open(keep_settings=True)
        kept = width()
        assert abs(kept - after) <= 1, (after, kept)
        print(f"board resized by its handle: {before:.0f} -> {after:.0f} px, kept on reload")

    def current_move_visible(self):
        """Review's list scrolls to the move shown at the end of a long game."""
        self.open()
        self.view("review")
        Select(self.el("#records-source")).select_by_value("f0")
        self.until("a game", lambda: self.status().startswith("Ply 0 of"))
        self.el("body").send_keys(Keys.END)
        self.until("the end", lambda: self.els("#review-moves .move.current"))
        seen = self.driver.execute_script(
            "const box = document.getElementById('review-moves').getBoundingClientRect(),"
            " cur = document.querySelector('#review-moves .current').getBoundingClientRect();"
            " return cur.top >= box.top - 1 && cur.bottom <= box.bottom + 1;")
        assert seen, "the current move is scrolled out of the list"
        print("review: the last move is scrolled into the list's view")
