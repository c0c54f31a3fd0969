"""Screenshots of the web page for docs/web-page.md: the dashboard, one accessory, pairing, health and the
log, at a desktop and a phone width, with Debian's headless chromium (see browser_driver.py). Run by
scripts/screenshots. First it puts the demo's accessories in rooms and turns the lamp on, through the page's
API (the demo's state directory is a temporary one), so that the dashboard looks like a home.

    screenshots.py URL ACCESSORY_SLUG OUTPUT_DIR
"""
import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from browser_driver import start_browser  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

SIZES = {"desktop": (1280, 860), "phone": (390, 844)}
PAGES = [("accessories", "#/", "#accessories .accessory"),
         ("accessory", "#/accessory/{slug}", ".service .row"),
         ("pair", "#/pair", "#pair-form"),
         ("health", "#/health", "#servers .server"),
         ("log", "#/log", "#log div")]


ROOMS = {"Living room": ["desk_lamp", "fan", "room_temperature", "room_humidity", "thermostat"],
         "Kitchen": ["kettle"], "Hallway": ["front_door", "front_door_lock", "hallway_motion"],
         "Bedroom": ["bedroom_blind"]}


def call(url, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + "api/" + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def furnish(url, slug):
    for room, slugs in ROOMS.items():
        for accessory in slugs:
            try:
                call(url, "POST", "bridge/request/options", {"accessory": accessory, "options": {"room": room}})
            except Exception as error:  # a demo without that accessory: its tile stays in "No room"
                print(f"room for {accessory}: {error}", file=sys.stderr)
    lamp = call(url, "GET", "accessories/" + slug)
    for service in lamp["services"]:
        for c in service["characteristics"]:
            if c["type"] in ("25", "8"):
                call(url, "POST", f"accessories/{slug}/characteristics/{c['iid']}", {"value": True if c["type"] == "25" else 80})


def main():
    url, slug, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    furnish(url, slug)
    driver = start_browser()
    try:
        for size, (width, height) in SIZES.items():
            driver.set_window_size(width, height)
            for name, fragment, ready in PAGES:
                driver.get(url + fragment.format(slug=slug))
                WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, ready))
                WebDriverWait(driver, 10).until(lambda d: "live" == d.find_element(By.ID, "live").text)
                time.sleep(0.3)  # the last values and fonts settle; nothing here is asserted
                path = os.path.join(out, f"{name}-{size}.png")
                driver.save_screenshot(path)
                print(path)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
