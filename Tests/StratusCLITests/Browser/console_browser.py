"""The Stratus Console driven in headless Chromium, using only the page.

Usage: console_browser.py CONSOLE_URL API_KEY

Opens the console URL `stratus serve` printed, runs a mutation and a query in the Explorer
as the API key, creates and lists notes as two Cognito users of an owner rule and sees
different rows, sees bob refused alice's note by the owner rule in Requests and replays that
request in the Explorer, then opens Data, filters, edits a row and sees its _version rise. Last,
on the Live page, it sees a subscription gql opened and a mutation gql made (API_KEY, over
`/graphql` and the real-time endpoint, as an app would). Prints
one line per check. On failure it writes a screenshot and the page's HTML into a temporary
directory, prints its path and exits with status 1.
"""

import asyncio
import json
import sys
import threading
from urllib.parse import urlsplit

from gql import Client, gql
from gql.transport.aiohttp import AIOHTTPTransport
from gql.transport.appsync_auth import AppSyncApiKeyAuthentication
from gql.transport.appsync_websockets import AppSyncWebsocketsTransport

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from console_page import Page, check, testid

url, api_key = sys.argv[1:3]
host = urlsplit(url).netloc
page = Page()
driver, wait = page.driver, page.wait
find = page.find


def run_as(label):
    Select(find("identity-select")).select_by_visible_text(label)


def run(query, variables="{}"):
    """Types `query` and `variables` into the Explorer, runs it and returns the parsed result."""
    editor = find("explorer-editor")
    # CodeMirror (Debian's libjs-codemirror) takes keys in its own text area; without it the
    # editor is a plain one.
    typed = editor if editor.tag_name == "textarea" else editor.find_element(By.TAG_NAME, "textarea")
    editor.click()
    typed.send_keys(Keys.CONTROL, "a")
    typed.send_keys(Keys.DELETE)
    typed.send_keys(query)
    return page.run_explorer(variables)


def run_current():
    """Runs what the Explorer holds and returns the parsed result."""
    result = find("explorer-result")
    find("explorer-run").click()
    wait.until(lambda _: result.text.strip() != "")
    return json.loads(result.text)


class GqlSubscriber(threading.Thread):
    """Subscribes to onCreateNote with gql, as an app would, until one event arrives."""

    def __init__(self):
        super().__init__(daemon=True)
        self.events = []
        self.error = None

    def run(self):
        try:
            asyncio.run(self.listen())
        except Exception as error:  # reported by the check that waits for the event
            self.error = f"{type(error).__name__}: {error}"

    async def listen(self):
        auth = AppSyncApiKeyAuthentication(host=host, api_key=api_key)
        transport = AppSyncWebsocketsTransport(url=f"ws://{host}/graphql/realtime", auth=auth)
        async with Client(transport=transport, fetch_schema_from_transport=False) as session:
            subscription = session.subscribe(
                gql("subscription Watch($filter: ModelSubscriptionNoteFilterInput) "
                    "{ onCreateNote(filter: $filter) { id text } }"),
                variable_values={"filter": {"text": {"beginsWith": "from gql"}}},
            )
            async for result in subscription:
                self.events.append(result["onCreateNote"])
                break
            await subscription.aclose()


async def gql_mutation(query):
    auth = AppSyncApiKeyAuthentication(host=host, api_key=api_key)
    async with Client(transport=AIOHTTPTransport(url=f"http://{host}/graphql", auth=auth),
                      fetch_schema_from_transport=False, execute_timeout=60) as session:
        return await session.execute(gql(query))


def rows():
    return driver.find_elements(By.CSS_SELECTOR, testid("data-row"))


def cell(row, field):
    return row.find_element(By.CSS_SELECTOR, f'td[data-field="{field}"]').text


try:
    driver.get(url)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "true")
    check(driver.current_url.endswith("/console"), "the secret URL redirects to /console")
    check(driver.get_cookies() and all(c["httpOnly"] and c["sameSite"] == "Strict" for c in driver.get_cookies()),
          "the session cookie is HttpOnly and SameSite=Strict")

    run_as("API key")
    created = run('mutation { createNote(input: {id: "k1", text: "by key"}) { id text } }')
    check(created == {"data": {"createNote": {"id": "k1", "text": "by key"}}}, "a mutation as the API key")
    listed = run("query Notes($limit: Int) { listNotes(limit: $limit) { items { id text } } }", '{"limit": 10}')
    check(listed == {"data": {"listNotes": {"items": [{"id": "k1", "text": "by key"}]}}},
          "a query with variables as the API key")

    for user in ("alice", "bob"):
        run_as(f"Cognito user {user}")
        made = run(f'mutation {{ createNote(input: {{id: "{user}-1", text: "{user}\'s"}}) {{ id owner }} }}')
        note = made["data"]["createNote"]
        # The owner is the user's sub and username, as the pool's tokens carry them.
        check(note["id"] == f"{user}-1" and note["owner"].endswith(f"::{user}"), f"a mutation as {user}")
    seen = {}
    for user in ("alice", "bob"):
        run_as(f"Cognito user {user}")
        answer = run("{ listNotes { items { id owner } } }")
        seen[user] = answer["data"]["listNotes"]["items"]
    check([note["id"] for note in seen["alice"]] == ["alice-1"], "alice lists only her note")
    check([note["id"] for note in seen["bob"]] == ["bob-1"], "bob lists only his note")

    # bob may not edit alice's note: the owner rule refuses him, and Requests says which rule.
    refused = run('mutation Trespass { updateNote(input: {id: "alice-1", text: "bob was here"}) { id } }')
    check(refused["data"] == {"updateNote": None}
          and [e["errorType"] for e in refused["errors"]] == ["Unauthorized"], "the owner rule refuses bob")
    find("nav-requests").click()

    def trespass():
        for row in driver.find_elements(By.CSS_SELECTOR, testid("request-row")):
            if "Trespass" in row.text:
                return row
        return None

    wait.until(lambda _: trespass() is not None)
    decision = trespass().find_element(By.CSS_SELECTOR, testid("request-decision")).text
    check(decision.startswith("refused: Not Authorized to access updateNote on type Mutation (at updateNote)")
          and "The owner rule on 'owner' refused the item" in decision and "::bob'" in decision,
          f"Requests shows the refusal and its rule: {decision}")
    check("bob" in trespass().text and "AMAZON_COGNITO_USER_POOLS" in trespass().text,
          "Requests shows who was refused and how they were authorized")
    allowed = [r for r in driver.find_elements(By.CSS_SELECTOR, testid("request-row")) if "createNote" in r.text]
    check(allowed and all(r.find_element(By.CSS_SELECTOR, testid("request-decision")).text == "allowed"
                          for r in allowed), "the creates are allowed")
    trespass().send_keys(Keys.ENTER)
    find("request-replay").click()
    wait.until(lambda _: driver.execute_script("return location.hash") == "#explorer")
    replayed = run_current()
    check(replayed["errors"][0]["message"] == "Not Authorized to access updateNote on type Mutation",
          "the replayed request runs as bob again in the Explorer")

    find("nav-data").click()
    run_as("API key")
    wait.until(lambda _: driver.find_elements(By.CSS_SELECTOR, testid("model-Note")))
    find("model-Note").click()
    wait.until(lambda _: len(rows()) == 3)
    check(sorted(cell(r, "id") for r in rows()) == ["alice-1", "bob-1", "k1"], "Data lists every note as the API key")
    headers = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "#data-table th")]
    check({"_version", "_deleted", "_lastChangedAt"} <= set(headers), "the rows show the sync fields")

    find("data-filter").send_keys('{"id": {"eq": "k1"}}', Keys.ENTER)
    wait.until(lambda _: len(rows()) == 1)
    row = rows()[0]
    version = int(cell(row, "_version"))
    check(cell(row, "id") == "k1", "the filter narrows the rows")
    row.find_element(By.CSS_SELECTOR, testid("data-edit")).click()
    edit = find("data-edit-input")
    edit.clear()
    edit.send_keys('{"text": "edited in the console"}')
    find("data-edit-save").click()
    wait.until(lambda _: rows() and cell(rows()[0], "text") == "edited in the console")
    check(int(cell(rows()[0], "_version")) == version + 1, f"the edit raised _version from {version}")

    find("nav-live").click()
    subscriber = GqlSubscriber()
    subscriber.start()

    def watched():
        return [r.text for r in driver.find_elements(By.CSS_SELECTOR, testid("live-subscription"))
                if "onCreateNote" in r.text]

    wait.until(lambda _: watched() or subscriber.error)
    check(not subscriber.error, f"gql subscribes{': ' + subscriber.error if subscriber.error else ''}")
    check('{"text":{"beginsWith":"from gql"}}' in watched()[0] and "API key" in watched()[0],
          f"Live shows gql's subscription with its filter: {watched()[0]}")
    # The mutation selects text: subscribers' filters see only the fields it selects, as AppSync's do.
    made = asyncio.run(gql_mutation('mutation { createNote(input: {id: "gql-1", text: "from gql"}) { id text } }'))
    check(made == {"createNote": {"id": "gql-1", "text": "from gql"}}, "gql creates a note")

    def event():
        return [e.text for e in driver.find_elements(By.CSS_SELECTOR, testid("live-event")) if "gql-1" in e.text]

    wait.until(lambda _: event())
    check(event()[0].split("\n")[0].endswith("createNote Note") and '"text":"from gql"' in event()[0],
          f"Live shows the mutation gql made: {event()[0]}")
    subscriber.join(10)
    check(subscriber.events == [{"id": "gql-1", "text": "from gql"}],
          f"gql's subscription hears it too: {subscriber.events} {subscriber.error or ''}")
    print("console browser test passed")
except Exception:
    page.fail()
finally:
    page.close()
