"""A real browser for the web page's tests: Debian's headless chromium driven by Selenium.

Reads one JSON command per line on standard input and answers each with one JSON line on standard output:
{"ok": true, ...} or {"ok": false, "error": "..."}. The browser only ever opens the loopback URLs the test
gives; Selenium is handed Debian's chromedriver, so it never downloads a driver or a browser.

Commands (every "css" is a CSS selector; "timeout" in seconds, default 20):
  open        url, [width, height]        load a page (the window size set first)
  wait        css, [text], [gone]         until the element exists (and its text contains text; or is gone)
  click       css
  type        css, text, [enter]          clear the field, type text (and press Enter)
  set_range   css, value                  set an <input type=range> and fire its change event
  text        css                         the element's visible text
  property    css, name                   a DOM property (checked, value)
  wait_property css, name, value          until that property equals value
  accept_confirm                          accept the next window.confirm() with OK
  screenshot  path                        the whole window as PNG
  url                                     the current URL
  diagnose                                the page's HTML and the browser console's messages
  quit
"""
import json
import os
import sys
import time

os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager must never fetch anything

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


def start_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("HAP2MQTT_TEST_CHROMIUM", "/usr/bin/chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--disable-extensions", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-default-apps",
                     "--metrics-recording-only", "--password-store=basic", "--window-size=1280,900"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=os.environ.get("HAP2MQTT_TEST_CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


def find(driver, css, timeout):
    return WebDriverWait(driver, timeout).until(lambda d: d.find_element(By.CSS_SELECTOR, css))


def run(driver, command):
    cmd = command["cmd"]
    timeout = float(command.get("timeout", 20))
    if cmd == "open":
        if "width" in command:
            driver.set_window_size(int(command["width"]), int(command["height"]))
        driver.get(command["url"])
        return {}
    if cmd == "wait":
        css, text, gone = command["css"], command.get("text"), command.get("gone", False)

        def ready(d):
            found = d.find_elements(By.CSS_SELECTOR, css)
            if gone:
                return not found
            if not found:
                return False
            return text is None or any(text in element.text for element in found)

        try:
            WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(ready)
        except TimeoutException:
            shown = [e.text for e in driver.find_elements(By.CSS_SELECTOR, css)]
            raise TimeoutError(f"{css} {'still there' if gone else 'not shown'}"
                               + (f" with {text!r}" if text and not gone else "") + f" within {timeout} s; shown: {shown}")
        # The page redraws a tile when a value changes: an element found may be replaced before it is read.
        for _ in range(20):
            try:
                found = driver.find_elements(By.CSS_SELECTOR, css)
                return {"text": found[0].text if found else ""}
            except StaleElementReferenceException:
                continue
        return {"text": ""}
    if cmd == "click":
        for attempt in range(20):
            try:
                find(driver, command["css"], timeout).click()
                return {}
            except StaleElementReferenceException:
                if attempt == 19:
                    raise
    if cmd == "type":
        element = find(driver, command["css"], timeout)
        element.clear()
        element.send_keys(command["text"])
        if command.get("enter"):
            element.send_keys(Keys.ENTER)
        return {}
    if cmd == "set_range":
        element = find(driver, command["css"], timeout)
        driver.execute_script(
            "arguments[0].value = arguments[1];"
            "arguments[0].dispatchEvent(new Event('input', {bubbles: true}));"
            "arguments[0].dispatchEvent(new Event('change', {bubbles: true}));", element, str(command["value"]))
        return {}
    if cmd == "text":
        return {"text": find(driver, command["css"], timeout).text}
    if cmd == "property":
        return {"value": find(driver, command["css"], timeout).get_property(command["name"])}
    if cmd == "wait_property":
        css, name, value = command["css"], command["name"], command["value"]

        def equal(d):
            found = d.find_elements(By.CSS_SELECTOR, css)
            return bool(found) and found[0].get_property(name) == value

        try:
            WebDriverWait(driver, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(equal)
        except TimeoutException:
            found = driver.find_elements(By.CSS_SELECTOR, css)
            shown = found[0].get_property(name) if found else "(no element)"
            raise TimeoutError(f"{css}.{name} is {shown!r}, not {value!r}, after {timeout} s")
        return {}
    if cmd == "accept_confirm":
        driver.execute_script("window.confirm = () => true;")
        return {}
    if cmd == "screenshot":
        driver.save_screenshot(command["path"])
        return {}
    if cmd == "diagnose":
        console = [f"{entry['level']} {entry['message']}" for entry in driver.get_log("browser")]
        return {"html": driver.find_element(By.TAG_NAME, "main").get_attribute("outerHTML")[:6000], "console": console}
    if cmd == "url":
        return {"url": driver.current_url}
    raise KeyError(f"unknown command {cmd!r}")


def main():
    driver = start_browser()
    print(json.dumps({"ok": True, "ready": True}), flush=True)
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            command = json.loads(line)
            if command.get("cmd") == "quit":
                print(json.dumps({"ok": True}), flush=True)
                break
            try:
                answer = {"ok": True, **run(driver, command)}
            except Exception as error:  # every failure goes back to the test as one line
                answer = {"ok": False, "error": f"{type(error).__name__}: {error}".strip()[:2000]}
            print(json.dumps(answer), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
