#!/usr/bin/env python3
"""Timers of a background tab, measured in headless Chromium: why `yote
gui`'s heartbeat comes from its shared worker (docs/gui.md, "Engines of
background tabs").

A static page (served here from a temporary folder, not by `yote gui`)
runs a 2 s interval in the page, in a dedicated Worker and in a
SharedWorker, and records when each fired. Three tabs of it: one hidden
behind another tab, one hidden holding a Web Lock (as the gui page does),
and one frozen (CDP Page.setWebLifecycleState, as Chrome freezes
background tabs). ChromeDriver's --disable-background-timer-throttling is
taken off and Chrome's intensive wake-up throttling (timers once a
minute) set to start after --grace seconds hidden instead of 5 minutes.
Prints each timer's largest gap per tab (read once the tab is back in
front: each timer fires then, so the gap across the time in the
background is among those recorded).

    SE_OFFLINE=true SE_AVOID_STATS=true python3 scripts/gui/hidden_timers.py --seconds 40
"""
import argparse
import functools
import http.server
import os
import tempfile
import threading
import time

os.environ.setdefault("SE_OFFLINE", "true")
os.environ.setdefault("SE_AVOID_STATS", "true")

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402

PAGE = """<!doctype html><title>timers</title><script>
window.ticks = { page: [], worker: [], shared: [] };
setInterval(() => ticks.page.push(performance.now()), 2000);
const w = new Worker('w.js');
w.onmessage = (m) => { ticks.worker = m.data; };
const s = new SharedWorker('s.js');
s.port.onmessage = (m) => { ticks.shared = m.data; };
s.port.start();
if (location.search.includes('lock')) navigator.locks.request('held', () => new Promise(() => {}));
</script>"""
WORKER = "const t = []; setInterval(() => { t.push(performance.now()); postMessage(t); }, 2000);"
SHARED = ("const t = [], ports = []; onconnect = (e) => { ports.push(e.ports[0]); e.ports[0].start(); };"
          "setInterval(() => { t.push(performance.now()); for (const p of ports) p.postMessage(t); }, 2000);")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=40, help="how long the tabs stay in the background")
    ap.add_argument("--grace", type=int, default=1, help="seconds hidden before intensive throttling")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="hidden-timers-")
    for name, text in [("index.html", PAGE), ("w.js", WORKER), ("s.js", SHARED)]:
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=folder))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    options = webdriver.ChromeOptions()
    options.binary_location = args.chromium
    options.add_experimental_option("excludeSwitches", [
        "disable-background-timer-throttling", "disable-backgrounding-occluded-windows"])
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              f"--enable-features=IntensiveWakeUpThrottling:grace_period_seconds/{args.grace}"]:
        options.add_argument(a)
    driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
    try:
        tabs = {}
        for name, query in [("hidden", ""), ("hidden, holding a Web Lock", "?lock"), ("frozen", "")]:
            if tabs:
                driver.switch_to.new_window("tab")
            driver.get(url + query)
            tabs[name] = driver.current_window_handle
        time.sleep(3)  # every timer running
        driver.execute_cdp_cmd("Page.setWebLifecycleState", {"state": "frozen"})
        driver.switch_to.new_window("tab")
        driver.get("about:blank")
        time.sleep(args.seconds)
        print(f"largest gap between 2 s timer runs in {args.seconds:.0f} s in the background "
              f"(intensive throttling after {args.grace} s hidden):")
        for name, handle in tabs.items():
            # Back in front (thawed): each timer fires at once, so the gap
            # across the time in the background is among the recorded ones.
            driver.switch_to.window(handle)
            if name == "frozen":
                driver.execute_cdp_cmd("Page.setWebLifecycleState", {"state": "active"})
            time.sleep(2.5)
            ticks = driver.execute_script("return ticks")
            gaps = []
            for kind in ["page", "worker", "shared"]:
                t = ticks[kind]
                gaps.append(f"{kind} {max(b - a for a, b in zip(t, t[1:])) / 1000:.1f} s ({len(t)} runs)")
            print(f"  {name}: " + ", ".join(gaps))
    finally:
        driver.quit()
        server.shutdown()


if __name__ == "__main__":
    main()
