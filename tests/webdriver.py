"""A small W3C WebDriver client for the browser tests: chromedriver driven over plain HTTP.

WebDriver is HTTP with JSON bodies, so the standard library's ``urllib`` is
all a test needs to open a page, click, read attributes, run a script, read
the browser's console log and take a screenshot -- no Selenium (and none of
its dependencies, nor its manager that looks for drivers on the network).

``browser_or_skip_reason()`` says why no browser can be used here (None when
Debian's ``chromium`` and ``chromium-driver`` are installed).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from typing import Any

#: Flags for a headless Chromium on a machine without network: the background-networking
#: ones stop it from reaching out (and stalling) for updates, sync and field trials.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]

_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C key of an element reference


def _find(*names: str) -> str | None:
    for n in names:
        p = shutil.which(n) or (n if os.path.isabs(n) and os.access(n, os.X_OK) else None)
        if p:
            return p
    return None


def browser_or_skip_reason() -> tuple[str, str] | str:
    """``(chromium, chromedriver)`` paths, or the reason the browser tests must skip."""
    chromium = _find("/usr/bin/chromium", "chromium", "chromium-browser")
    driver = _find("/usr/bin/chromedriver", "chromedriver")
    if chromium is None or driver is None:
        missing = " and ".join(n for n, p in (("chromium", chromium), ("chromedriver", driver)) if p is None)
        return (f"no headless browser: {missing} not found (Debian: apt-get install chromium chromium-driver; "
                f".ci/run installs them)")
    return chromium, driver


class Browser:
    """One headless Chromium session through chromedriver; ``close()`` ends both."""

    def __init__(self, chromium: str, driver: str, timeout: float = 60.0, window: tuple[int, int] = (1400, 900)
                 ) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="mg-chromium-")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen([driver, f"--port={port}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.session = ""
        try:
            self._wait_ready()
            options = {"binary": chromium, "args": CHROMIUM_FLAGS + [f"--user-data-dir={self.profile}",
                                                           f"--window-size={window[0]},{window[1]}"]}
            caps = {"browserName": "chrome", "goog:chromeOptions": options, "goog:loggingPrefs": {"browser": "ALL"}}
            reply = self._call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})
            self.session = f"/session/{reply['sessionId']}"
        except BaseException:
            self.close()
            raise

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                if self._call("GET", "/status").get("ready"):
                    return
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.1)

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                return json.loads(r.read() or b"{}").get("value")
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"WebDriver {method} {path}: {exc.read().decode(errors='replace')[:500]}") from None

    # ------------------------------------------------------------ the page
    def get(self, url: str) -> None:
        self._call("POST", f"{self.session}/url", {"url": url})

    def find_all(self, css: str) -> list[str]:
        found = self._call("POST", f"{self.session}/elements", {"using": "css selector", "value": css})
        return [e[_ELEMENT] for e in found]

    def find(self, css: str) -> str:
        found = self.find_all(css)
        if len(found) != 1:
            raise AssertionError(f"{len(found)} elements match {css!r}, expected one")
        return found[0]

    def click(self, element: str) -> None:
        self._call("POST", f"{self.session}/element/{element}/click", {})

    def attribute(self, element: str, name: str) -> str | None:
        return self._call("GET", f"{self.session}/element/{element}/attribute/{name}")

    def execute(self, script: str, *args: Any) -> Any:
        return self._call("POST", f"{self.session}/execute/sync", {"script": script, "args": list(args)})

    def console_log(self) -> list[dict[str, Any]]:
        """The browser's console messages since the last call (chromedriver's log endpoint)."""
        return self._call("POST", f"{self.session}/se/log", {"type": "browser"})

    def screenshot(self) -> bytes:
        """The page as a PNG."""
        return base64.b64decode(self._call("GET", f"{self.session}/screenshot"))

    def close(self) -> None:
        try:
            if self.session:
                self._call("DELETE", self.session)
        except (OSError, RuntimeError):
            pass
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)
