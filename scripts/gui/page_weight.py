#!/usr/bin/env python3
"""The page's weight on the wire and its ready time, in headless Chromium:
bytes transferred (headers included) and decoded for the first load and
for reloads (revalidated: 304s), and `window.yoteReadyMs` (navigation
start to the board drawn). Loopback only; stops the server at the end.

    SE_OFFLINE=true SE_AVOID_STATS=true python3 scripts/gui/page_weight.py --yote target/release/yote
"""
import argparse
import json
import statistics
import subprocess
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

WEIGHT = """
const nav = performance.getEntriesByType('navigation')[0];
const all = [nav, ...performance.getEntriesByType('resource')];
return {
  files: all.length,
  transferred: all.reduce((n, e) => n + e.transferSize, 0),
  encoded: all.reduce((n, e) => n + e.encodedBodySize, 0),
  decoded: all.reduce((n, e) => n + e.decodedBodySize, 0),
  ready: window.yoteReadyMs,
};
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--yote", default="target/release/yote")
    ap.add_argument("--loads", type=int, default=5)
    args = ap.parse_args()
    server = subprocess.Popen([args.yote, "gui", "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    url = server.stdout.readline().split()[-1]
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for a in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run",
              f"--user-data-dir={tempfile.mkdtemp()}"]:
        options.add_argument(a)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        rows = []
        for i in range(args.loads):
            driver.get(url)
            deadline = time.time() + 20
            while driver.execute_script("return document.body.dataset.ready") != "true":
                assert time.time() < deadline, "the page never became ready"
                time.sleep(0.02)
            time.sleep(0.3)  # late module and worker entries
            rows.append(driver.execute_script(WEIGHT))
            print(("first load " if i == 0 else "reload     ") + json.dumps(rows[-1]))
        print(f"first load: {rows[0]['transferred'] / 1024:.1f} KB transferred "
              f"({rows[0]['decoded'] / 1024:.1f} KB decoded); reloads: median "
              f"{statistics.median(r['transferred'] for r in rows[1:]) / 1024:.1f} KB; ready median "
              f"{statistics.median(r['ready'] for r in rows):.0f} ms "
              f"({', '.join(str(round(r['ready'])) for r in rows)})")
    finally:
        driver.quit()
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
