#!/usr/bin/env python3
"""Issue 38's engine target, measured: ten tabs of one headless Chromium
open the Analyse view and analyse (one engine each), the server's resident
memory is read, the tabs close, and the engine processes under the server
are counted every 0.5 s until none is left (at most 60 s). Loopback only.

    SE_OFFLINE=true SE_AVOID_STATS=true python3 scripts/gui/ten_tabs.py --yote target/release/yote
"""
import argparse
import os
import subprocess
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def engines_of(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return len(out.split())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--yote", default="target/release/yote")
    ap.add_argument("--tabs", type=int, default=10)
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
        driver.get("about:blank")
        first = driver.current_window_handle
        tabs = []
        cells = ["a1", "b1", "c1", "d1", "e1", "f1", "a2", "b2", "c2", "d2"]
        for i in range(args.tabs):
            driver.switch_to.new_window("tab")
            tabs.append(driver.current_window_handle)
            driver.get(f"{url}?variant=standard&moves=@{cells[i % len(cells)]}&view=analyse")
            deadline = time.time() + 20
            while driver.execute_script("return document.body.dataset.ready") != "true":
                assert time.time() < deadline, "a tab never became ready"
                time.sleep(0.05)
            driver.find_element(By.CSS_SELECTOR, "#analyse-go").click()
        time.sleep(3)
        rss = status_kb(server.pid, "VmRSS")
        print(f"{args.tabs} tabs open and analysing: server VmRSS {rss / 1024:.1f} MB, "
              f"{engines_of(server.pid)} engine processes")
        for handle in tabs:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(first)
        closed = time.time()
        timeline = []
        while engines_of(server.pid) > 0 and time.time() - closed < 60:
            timeline.append(f"{time.time() - closed:.0f}s:{engines_of(server.pid)}")
            time.sleep(0.5)
        print("engines after the close: " + " ".join(timeline[::4]))
        left = engines_of(server.pid)
        print(f"tabs closed: {left} engine processes left after {time.time() - closed:.1f} s; "
              f"server VmRSS {status_kb(server.pid, 'VmRSS') / 1024:.1f} MB, "
              f"VmHWM {status_kb(server.pid, 'VmHWM') / 1024:.1f} MB")
    finally:
        driver.quit()
        server.kill()
        server.wait()


if __name__ == "__main__":
    main()
