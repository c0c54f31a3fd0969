"""Screenshots of the web page for README: the accessories, one accessory, pairing, health and the log, at
a desktop and a phone width, with Debian's headless chromium (see browser_driver.py). Run by scripts/screenshots.

    screenshots.py URL ACCESSORY_SLUG OUTPUT_DIR
"""
import os
import sys
import time

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


def main():
    url, slug, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
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
