"""The Stratus Console's Data page driven in headless Chromium, using only the page.

Usage: console_data_browser.py CONSOLE_URL

Opens the console URL `stratus serve` printed and its Data page, as the API key. Creates a note
with the page's form (through the API's create mutation), edits it and sees its _version rise,
opens its history from the delta journal and sees both versions, generates five notes from the
schema and sees them, sorts them across pages, deletes a note and hides the tombstone, and sees a create
the API refuses reported as the API answered it. Prints one line per check. On failure it writes
a screenshot and the page's HTML into a temporary directory, prints its path and exits with
status 1.
"""

import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from console_page import Page, check, testid

url = sys.argv[1]
page = Page()
driver, wait = page.driver, page.wait
find = page.find


def rows():
    return driver.find_elements(By.CSS_SELECTOR, testid("data-row"))


def cell(row, field):
    return row.find_element(By.CSS_SELECTOR, f'td[data-field="{field}"]').text


def row_with(text):
    for row in rows():
        if cell(row, "text") == text:
            return row
    return None


def status():
    return driver.find_element(By.ID, "data-status")


def write_editor(text):
    editor = find("data-edit-input")
    wait.until(lambda _: editor.is_displayed())
    editor.clear()
    editor.send_keys(text)
    find("data-edit-save").click()


try:
    driver.get(url)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    Select(find("identity-select")).select_by_visible_text("API key")
    find("nav-data").click()
    wait.until(lambda _: driver.find_elements(By.CSS_SELECTOR, testid("model-Note")))
    find("model-Note").click()
    wait.until(lambda _: "Note: 0 items" in status().text)

    find("data-create").click()
    wait.until(lambda _: find("data-edit-input").is_displayed())
    check(find("data-edit-input").get_attribute("value") == "{}",
          "New item opens the editor with the create input's required fields (none: the API makes the id)")
    write_editor('{"text": "made in the console"}')
    wait.until(lambda _: row_with("made in the console"))
    check(cell(row_with("made in the console"), "_version") == "1", "the created note is in the table at _version 1")
    check(status().text.startswith("Created Note {\"id\":"), f"the page says what it created: {status().text}")

    row_with("made in the console").find_element(By.CSS_SELECTOR, testid("data-edit")).click()
    write_editor('{"text": "edited in the console"}')
    wait.until(lambda _: row_with("edited in the console"))
    check(cell(row_with("edited in the console"), "_version") == "2", "the edit raised _version to 2")

    row_with("edited in the console").find_element(By.CSS_SELECTOR, testid("data-history")).click()
    wait.until(lambda _: len(driver.find_elements(By.CSS_SELECTOR, testid("history-row"))) == 2)
    history = driver.find_elements(By.CSS_SELECTOR, testid("history-row"))
    versions = [(cell(r, "version"), cell(r, "operation")) for r in history]
    check(versions == [("1", "CREATE"), ("2", "UPDATE")], f"the history shows both versions: {versions}")
    check('"text":"made in the console"' in cell(history[0], "fields")
          and '"text":"edited in the console"' in cell(history[1], "fields"),
          "each version shows its fields")
    check(find("data-history-note").text.startswith("Every version since the item was created"),
          f"the history says the journal holds every version: {find('data-history-note').text}")

    count = find("data-generate-count")
    count.clear()
    count.send_keys("5")
    find("data-generate").click()
    wait.until(lambda _: len(rows()) == 6)
    check(status().text.startswith("Generated 5 of 5 Note items"), f"five notes are generated: {status().text}")
    generated = [cell(r, "text") for r in rows() if cell(r, "text") != "edited in the console"]
    check(len(generated) == 5 and all(t.startswith("text ") for t in generated),
          f"the generated notes are in the table: {generated}")

    # Sorting covers every item the filter matches, not the page read: with pages of two, the
    # three pages together are all six notes in order.
    everything = sorted(cell(r, "text") for r in rows())
    size = find("data-limit")
    size.clear()
    size.send_keys("2" + Keys.RETURN)
    wait.until(lambda _: len(rows()) == 2)
    find("data-sort-text").click()
    wait.until(lambda _: "page 1 of 3, all 6 matching items sorted by text ascending" in status().text)
    seen = [cell(r, "text") for r in rows()]
    for number in (2, 3):
        find("data-next").click()
        wait.until(lambda _: f"page {number} of 3" in status().text)
        seen += [cell(r, "text") for r in rows()]
    check(seen == everything, f"a column's header sorts every matching item across the pages: {seen}")
    check(not find("data-next").is_enabled(), "the last sorted page has no next page")
    find("data-sort-text").click()
    wait.until(lambda _: "sorted by text descending" in status().text)
    check([cell(r, "text") for r in rows()] == everything[::-1][:2], "a second click sorts it the other way")
    size.clear()
    size.send_keys("25" + Keys.RETURN)
    wait.until(lambda _: len(rows()) == 6)
    check([cell(r, "text") for r in rows()] == everything[::-1], "the sort holds when the page size changes")

    row_with("edited in the console").find_element(By.CSS_SELECTOR, testid("data-delete")).click()
    driver.switch_to.alert.accept()
    wait.until(lambda _: "deleted" in (row_with("edited in the console").get_attribute("class") or ""))
    check(cell(row_with("edited in the console"), "_deleted") == "true", "a deleted note stays as a tombstone")
    find("data-tombstones").click()
    wait.until(lambda _: len(rows()) == 5 and not row_with("edited in the console"))
    check(True, "hiding tombstones leaves the deleted note out")

    find("data-create").click()
    write_editor('{"text": "x", "nope": 1}')
    wait.until(lambda _: "nope" in status().text)
    check("error" in status().get_attribute("class") and status().text
          == '200: Variable "$input" got invalid value "{"nope":1,"text":"x"}". In field "nope": Unknown field.',
          f"a create the API refuses is reported as the API answered: {status().text}")
    print("console data browser test passed")
except Exception:
    page.fail()
finally:
    page.close()
