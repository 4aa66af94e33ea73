"""What the console's browser tests share: headless Chromium, the page's test hooks, checks, and
the screenshot and HTML a failure leaves.

Each test script imports it from its own directory (Python puts a script's directory first on
its path).
"""

import json
import os
import shutil
import sys
import tempfile
import traceback

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


class Page:
    """Debian's chromium, headless at 1280×720 with a profile of its own, driven by chromedriver."""

    # A wait ends as soon as the page shows what it waits for; the bound only matters when the
    # suite runs beside many others, where a user's password hashing alone can take seconds.
    def __init__(self, timeout=30):
        self.profile = tempfile.mkdtemp(prefix="stratus-console-chromium-")
        options = webdriver.ChromeOptions()
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1280,720", f"--user-data-dir={self.profile}", "--no-first-run"):
            options.add_argument(argument)
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        self.driver = webdriver.Chrome(
            options=options, service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")))
        # Rows are drawn anew after each read: a row found just before is stale, and read again.
        self.wait = WebDriverWait(self.driver, timeout, ignored_exceptions=[StaleElementReferenceException])

    def find(self, name):
        return self.driver.find_element(By.CSS_SELECTOR, testid(name))

    def finds(self, name):
        return self.driver.find_elements(By.CSS_SELECTOR, testid(name))

    def run_explorer(self, variables="{}"):
        """Runs the query the Explorer's editor holds with `variables` and returns the parsed
        result."""
        field = self.find("explorer-variables")
        field.clear()
        field.send_keys(variables)
        result = self.find("explorer-result")
        self.driver.execute_script("arguments[0].textContent = ''", result)
        self.find("explorer-run").click()
        self.wait.until(lambda _: result.text.strip() != "")
        return json.loads(result.text)

    def fail(self):
        """Writes a screenshot and the page's HTML into a temporary directory, prints the
        exception and the directory, and exits with status 1."""
        directory = tempfile.mkdtemp(prefix="stratus-console-failure-")
        self.driver.save_screenshot(os.path.join(directory, "page.png"))
        with open(os.path.join(directory, "page.html"), "w") as file:
            file.write(self.driver.page_source)
        traceback.print_exc()
        print(f"Screenshot and page source in {directory}")
        sys.exit(1)

    def close(self):
        self.driver.quit()
        shutil.rmtree(self.profile, ignore_errors=True)


def testid(name):
    return f'[data-testid="{name}"]'


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message)
