"""The Stratus Console's Explorer driven in headless Chromium, using only the page.

Usage: console_explorer_browser.py CONSOLE_URL API_KEY

Opens the console URL `stratus serve --auth` printed (a schema of notes that IAM callers may
use), runs a mutation as the identity pool's guest (signed with SigV4 by the console), sees a
field completed and an unknown field marked, browses the docs, reloads an earlier request from
the history, and subscribes to new notes as the guest: a note gql creates (API_KEY, as an app would) arrives
in the result pane, and Stop ends it. Prints one line per check. On failure it writes a
screenshot and the page's HTML into a temporary directory, prints its path and exits with
status 1.
"""

import asyncio
import json
import sys
from urllib.parse import urlsplit

from gql import Client, gql
from gql.transport.aiohttp import AIOHTTPTransport
from gql.transport.appsync_auth import AppSyncApiKeyAuthentication

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from console_page import Page, check

url, api_key = sys.argv[1:3]
host = urlsplit(url).netloc
page = Page()
driver, wait = page.driver, page.wait
find = page.find


finds = page.finds


def run_as(label):
    Select(find("identity-select")).select_by_visible_text(label)


def editor_text():
    return driver.execute_script("return document.querySelector('.CodeMirror').CodeMirror.getValue()")


def type_query(query):
    """Replaces the editor's text with `query`, typed as keys into CodeMirror."""
    editor = find("explorer-editor")
    typed = editor.find_element(By.TAG_NAME, "textarea")
    editor.click()
    typed.send_keys(Keys.CONTROL, "a")
    typed.send_keys(Keys.DELETE)
    typed.send_keys(query)
    typed.send_keys(Keys.ESCAPE)  # closes a completion list the typing opened
    return typed


def run(query, variables="{}"):
    type_query(query)
    return page.run_explorer(variables)


def status():
    return driver.find_element(By.ID, "explorer-status").text


async def gql_mutation(query):
    auth = AppSyncApiKeyAuthentication(host=host, api_key=api_key)
    async with Client(transport=AIOHTTPTransport(url=f"http://{host}/graphql", auth=auth),
                      fetch_schema_from_transport=False, execute_timeout=60) as session:
        return await session.execute(gql(query))


try:
    driver.get(url)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    # The docs pane opens on the query type once the schema is read.
    wait.until(lambda _: any(f.text.startswith("listNotes") for f in finds("docs-field")))
    check(True, "the docs pane lists the query type's fields")

    labels = [o.text for o in Select(find("identity-select")).options]
    check("IAM: identity-pool guest" in labels, f"Run as offers the identity pool's guest: {labels}")
    run_as("IAM: identity-pool guest")
    made = run('mutation Guest { createNote(input: {id: "iam-1", text: "by a guest"}) { id text } }')
    check(made == {"data": {"createNote": {"id": "iam-1", "text": "by a guest"}}},
          f"a mutation as the identity-pool guest, signed with SigV4: {made}")
    check("as IAM: identity-pool guest" in status(), f"the status names the identity: {status()}")

    # Claims of the local OIDC provider, typed beside Run as: the console signs a token of them.
    run_as("OIDC claims (local provider stratus-local)")
    claims = find("identity-claims")
    check(claims.is_displayed(), "an identity of claims shows the claims field")
    claims.clear()
    claims.send_keys('{"sub": "carol", "groups": ["staff"]}')
    signed = run('query Claims { listNotes { items { id } } }')
    check(signed == {"data": {"listNotes": {"items": [{"id": "iam-1"}]}}},
          f"a query as typed OIDC claims, signed by the local provider: {signed}")
    check("as OIDC claims" in status(), f"the status names the identity: {status()}")
    claims.clear()
    claims.send_keys('{"name": "nobody"}')
    type_query('query NoSubject { listNotes { items { id } } }')
    find("explorer-run").click()
    wait.until(lambda _: "OIDC claims name their subject" in status())
    check(True, "claims without sub are refused with the fix")

    # AMAZON_COGNITO_USER_POOLS listed in the file is the local pool's.
    run_as("Cognito user alice")
    check(not find("identity-claims").is_displayed(), "other identities hide the claims field")
    mine = run("query Mine { listNotes { items { id } } }")
    check(mine == {"data": {"listNotes": {"items": []}}},
          f"a query as a Cognito user, who owns none of the notes: {mine}")

    run_as("API key")
    listed = run("query Listed { listNotes { items { id text } } }")
    check(listed == {"data": {"listNotes": {"items": [{"id": "iam-1", "text": "by a guest"}]}}},
          "a query as the API key sees the guest's note")

    # Completion: the fields of the type at the cursor.
    typed = type_query("{ listN")
    typed.send_keys(Keys.CONTROL, " ")
    wait.until(lambda _: driver.find_elements(By.CSS_SELECTOR, ".CodeMirror-hints li"))
    hints = [h.text for h in driver.find_elements(By.CSS_SELECTOR, ".CodeMirror-hints li")]
    check(any(h.startswith("listNotes") for h in hints), f"completion offers listNotes: {hints}")
    typed.send_keys(Keys.ENTER)
    wait.until(lambda _: editor_text() == "{ listNotes")
    check(True, "Enter takes the completion")
    typed.send_keys(" { items { id nope } } }")
    typed.send_keys(Keys.ESCAPE)
    # The check runs as the text changes: a list made for the text before the completion
    # ("listN" unknown) is replaced once the check of the whole text is drawn.
    wait.until(lambda _: any("'nope'" in p.text for p in finds("explorer-problem")))
    problems = [p.text for p in finds("explorer-problem")]
    check(problems == ["1:26 Type Note has no field 'nope'."], f"the unknown field is found: {problems}")
    marked = driver.find_elements(By.CSS_SELECTOR, ".CodeMirror .explorer-error")
    check(marked and marked[0].text == "nope", "and marked in the editor")
    find("explorer-run").click()
    wait.until(lambda _: "with errors" in status())
    problems = [p.text for p in finds("explorer-problem")]
    check(len(problems) == 1 and problems[0].startswith("1:26 ") and "nope" in problems[0],
          f"the API's error is marked at its location: {problems}")

    # Docs: a type's fields, reached by its link.
    link = next(t for t in finds("docs-type") if t.text == "ModelNoteConnection")
    link.click()
    wait.until(lambda _: any(f.text.startswith("items") for f in finds("docs-field")))
    check(True, "the docs pane follows a type link")

    # History: the guest's mutation, loaded again with its identity.
    entries = finds("history-entry")
    check([e.text for e in entries] == ["{ listNotes { items { id nope } } }", "Listed", "Mine", "NoSubject",
                                        "Claims", "Guest"],
          f"the history lists what ran, newest first: {[e.text for e in entries]}")
    entries[4].click()
    selected = Select(find("identity-select")).first_selected_option.text
    check(selected == "OIDC claims (local provider stratus-local)", f"an entry of claims loads its identity: {selected}")
    check(json.loads(find("identity-claims").get_attribute("value")) == {"sub": "carol", "groups": ["staff"]},
          "and its claims")
    finds("history-entry")[5].click()
    check("createNote(input: {id: \"iam-1\"" in editor_text(), "a history entry loads its query")
    selected = Select(find("identity-select")).first_selected_option.text
    check(selected == "IAM: identity-pool guest", f"and its identity: {selected}")
    driver.refresh()
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    check(len(finds("history-entry")) == 6, "the history outlives a reload (localStorage)")

    # A live subscription as the guest (the connection and its start signed by the console): a
    # note gql creates arrives in the result pane.
    run_as("IAM: identity-pool guest")
    type_query("subscription Watch { onCreateNote { id text } }")
    result = find("explorer-result")
    find("explorer-run").click()
    wait.until(lambda _: status().startswith("Subscribed"))
    check(find("explorer-stop").is_enabled(), f"the subscription runs: {status()}")
    made = asyncio.run(gql_mutation('mutation { createNote(input: {id: "gql-1", text: "from gql"}) { id text } }'))
    check(made == {"createNote": {"id": "gql-1", "text": "from gql"}}, "gql creates a note")
    wait.until(lambda _: "gql-1" in result.text)
    event = json.loads(result.text.split("\n", 1)[1])
    check(event == {"data": {"onCreateNote": {"id": "gql-1", "text": "from gql"}}},
          f"the event arrives in the result pane: {event}")
    find("explorer-stop").click()
    wait.until(lambda _: status() == "Stopped.")
    check(not find("explorer-stop").is_enabled(), "Stop ends the subscription")
    print("console explorer browser test passed")
except Exception:
    page.fail()
finally:
    page.close()
