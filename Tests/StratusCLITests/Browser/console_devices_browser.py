"""The Stratus Console's Functions and Devices pages driven in headless Chromium, using only the page.

Usage: console_devices_browser.py CONSOLE_URL DATABASE MISSING_DATABASE

Opens the console URL `stratus serve` printed. The Functions page shows the invocation of the
function `echo-dev` a client caused, with its event, its result and the line the function
printed. The Devices page opens DATABASE, a DataStore database whose app saved a blog while
offline, and shows that create waiting in its outbox; MISSING_DATABASE (no such file) is
refused with the fix named. Prints one line per check. On failure it writes a screenshot and the
page's HTML into a temporary directory, prints its path and exits with status 1.
"""

import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from console_page import Page, check, testid

url, database, missing = sys.argv[1:4]
# The invocations are drawn anew as they change: one found just before is stale, and read again.
page = Page(timeout=15)
driver, wait = page.driver, page.wait
find, find_all = page.find, page.finds


def invocation_log():
    for invocation in find_all("function-invocation"):
        if invocation.get_attribute("data-function") == "echo-dev":
            return invocation.find_element(By.CSS_SELECTOR, testid("function-log")).text
    return None


try:
    driver.get(url)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    find("nav-functions").click()
    wait.until(lambda _: (invocation_log() or "").startswith("echo was asked for"))
    invocation = find_all("function-invocation")[0]
    check(invocation_log() == "echo was asked for from a client",
          f"the Functions page shows the line the function printed: {invocation_log()}")
    text = invocation.text
    check("echo-dev" in text and "SUCCEEDED" in text and " ms" in text,
          "the invocation names its function, its outcome and the time it took")
    check('"text": "from a client"' in text, "the invocation shows the event it was sent")
    outcome = invocation.find_element(By.CSS_SELECTOR, testid("function-outcome")).text
    check(outcome == '"FROM A CLIENT"', f"the invocation shows the function's result: {outcome}")

    find("nav-devices").click()
    path = find("devices-path")
    wait.until(lambda _: path.is_displayed())
    path.send_keys(missing, Keys.ENTER)
    status = find("devices-status")
    wait.until(lambda _: "No file at" in status.text)
    check(status.text.startswith(f"No file at '{missing}'. Pass the path of a DataStore database"),
          f"a path with no file is refused, naming the fix: {status.text}")
    path.clear()
    path.send_keys(database, Keys.ENTER)
    wait.until(lambda _: len(find_all("device-mutation")) == 1)
    mutation = find_all("device-mutation")[0].text
    check("create" in mutation and "Blog" in mutation and "b1" in mutation and "Written offline" in mutation,
          f"the outbox shows the create made offline: {mutation}")
    blog = [row.text for row in find_all("device-model") if row.text.startswith("Blog ")]
    check(blog == ["Blog 1 0 1"], f"the models show Blog's record, pending: {blog}")
    sync = [row.text for row in find_all("device-sync") if row.text.startswith("Blog ")]
    check(len(sync) == 1 and "never" in sync[0] and "base" in sync[0],
          f"the sync state shows Blog never synced, a base sync next: {sync}")
    print("console devices browser test passed")
except Exception:
    page.fail()
finally:
    page.close()
