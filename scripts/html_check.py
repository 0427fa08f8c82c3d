"""Drives headless Chromium over the DevTools protocol (pipe transport) for scripts/html-check.sh.

Usage: html_check.py CHROMIUM REPORT.html OUTPUT.png
Exit status: 0 when the page loaded without console errors, 1 otherwise.
"""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT_SECONDS = 90
WIDTH, HEIGHT = 1280, 900
MAX_SCREENSHOT_HEIGHT = 16000


class Browser:
    def __init__(self, chromium):
        self.profile = tempfile.mkdtemp(prefix="html-check-")
        to_chrome_read, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_write = os.pipe()

        def wire_pipes():
            # Chromium reads commands on fd 3 and writes replies and events on fd 4.
            high_read = os.dup(to_chrome_read)
            high_write = os.dup(from_chrome_write)
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
             f"--user-data-dir={self.profile}", f"--window-size={WIDTH},{HEIGHT}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False, preexec_fn=wire_pipes)
        os.close(to_chrome_read)
        os.close(from_chrome_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.deadline = time.monotonic() + TIMEOUT_SECONDS

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        return self.next_id

    def receive(self):
        message = self.receive_raw()
        # A dialog (alert, confirm) blocks the page until answered: dismiss it at once. It stays in
        # the events and counts as a problem: a report page never opens one.
        if message.get("method") == "Page.javascriptDialogOpening":
            self.send("Page.handleJavaScriptDialog", {"accept": False}, message.get("sessionId"))
        return message

    def receive_raw(self):
        while b"\0" not in self.buffer:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self.from_chrome], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None):
        wanted = self.send(method, params, session)
        while True:
            message = self.receive()
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method):
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            message = self.receive()
            if message.get("method") == method:
                return message
            self.events.append(message)

    def close(self):
        try:
            self.send("Browser.close")
        except OSError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def problems_in(events, session):
    problems, notes = [], []
    for event in events:
        if event.get("sessionId") != session:
            continue
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
            (problems if params.get("type") in ("error", "assert") else notes).append(f"console.{params.get('type')}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "")
            problems.append(f"uncaught exception: {text}")
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            line = f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}".strip()
            (problems if entry.get("level") == "error" else notes).append(line)
        elif method == "Page.javascriptDialogOpening":
            problems.append(f"the page opened a dialog ({params.get('type')}): {params.get('message')!r}")
    return problems, notes


def main():
    chromium, report, output = sys.argv[1:4]
    url = "file://" + os.path.abspath(report)
    browser = Browser(chromium)
    try:
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime.enable", "Log.enable", "Page.enable"):
            browser.call(domain, session=session)
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False}, session)
        # HTML_CHECK_MEDIA=print renders with the print style sheet; HTML_CHECK_NO_JS=1 with
        # JavaScript disabled (the page must be fully usable without it).
        if os.environ.get("HTML_CHECK_MEDIA"):
            browser.call("Emulation.setEmulatedMedia", {"media": os.environ["HTML_CHECK_MEDIA"]}, session)
        if os.environ.get("HTML_CHECK_NO_JS") == "1":
            browser.call("Emulation.setScriptExecutionDisabled", {"value": True}, session)
        browser.call("Page.navigate", {"url": url}, session)
        browser.wait_for("Page.loadEventFired")
        # The filter box must hide every row for a query that matches nothing, and show them again.
        # Rows: a run report's benchmark rows, a history page's charts (one per series).
        probe = browser.call("Runtime.evaluate", {"returnByValue": True, "expression": """(function () {
            var rowSelector = 'tr.bench-row, figure.trend';
            var input = document.querySelector('#filter input');
            var rows = document.querySelectorAll(rowSelector).length;
            if (!input || document.getElementById('filter').hidden) { return {rows: rows, filtered: null, restored: null, scripts: document.scripts.length}; }
            input.value = 'no benchmark is called this';
            input.dispatchEvent(new Event('input'));
            var filtered = document.querySelectorAll('tr.bench-row:not([hidden]), figure.trend:not([hidden])').length;
            input.value = '';
            input.dispatchEvent(new Event('input'));
            var restored = document.querySelectorAll('tr.bench-row:not([hidden]), figure.trend:not([hidden])').length;
            return {rows: rows, filtered: filtered, restored: restored, scripts: document.scripts.length};
        })()"""}, session)["result"].get("value", {})
        metrics = browser.call("Page.getLayoutMetrics", session=session)
        content = metrics.get("cssContentSize") or metrics.get("contentSize")
        height = min(int(content["height"]), MAX_SCREENSHOT_HEIGHT)
        shot = browser.call("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": WIDTH, "height": height, "scale": 1}}, session)
        with open(output, "wb") as file:
            file.write(base64.b64decode(shot["data"]))
        # HTML_CHECK_PARTS=N also saves the page in N-pixel slices (OUTPUT-1.png, …), easier to
        # look at than one very tall image.
        part_height = int(os.environ.get("HTML_CHECK_PARTS", "0") or 0)
        for index, top in enumerate(range(0, height, part_height) if part_height > 0 else []):
            part = browser.call("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": top, "width": WIDTH, "height": min(part_height, height - top), "scale": 1}},
                session)
            with open(f"{os.path.splitext(output)[0]}-{index + 1}.png", "wb") as file:
                file.write(base64.b64decode(part["data"]))
        time.sleep(0.2)
        browser.call("Runtime.evaluate", {"expression": "0"}, session)  # flush pending events
        problems, notes = problems_in(browser.events, session)
    finally:
        browser.close()

    if probe.get("scripts", 0) > 1:
        problems.append(f"the page has {probe['scripts']} scripts; only perfkit's own one is expected")
    if os.environ.get("HTML_CHECK_NO_JS") == "1":
        if probe.get("filtered") is not None:
            problems.append("the filter box is shown although JavaScript is disabled")
    elif probe.get("rows") and probe.get("filtered") is None:
        problems.append("the filter box did not appear although JavaScript is enabled")
    if probe.get("filtered") not in (None, 0):
        problems.append(f"the filter box left {probe['filtered']} rows visible for a query matching nothing")
    if probe.get("restored") not in (None, probe.get("rows")):
        problems.append("clearing the filter box did not show every row again")
    for note in notes:
        print(f"html-check: note: {note}", file=sys.stderr)
    print(f"html-check: {report}: {probe.get('rows', 0)} benchmark rows or series, page {int(content['height'])} px tall, "
          f"screenshot {output}", file=sys.stderr)
    if problems:
        for problem in problems:
            print(f"html-check: {report}: {problem}", file=sys.stderr)
        return 1
    print(f"html-check: {report}: no console errors", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
