"""Writes to and listens on the local backend with gql, as another client would while DataStore syncs.

Usage:
  gql_datastore.py write HTTP_URL HOST API_KEY
      Creates blog g1, updates it with its _version, creates blog g2 and deletes it.
      Prints one JSON object with each answer.
  gql_datastore.py listen REALTIME_URL HOST API_KEY COUNT
      Subscribes to onCreateBlog, prints "ready" once the subscription is acknowledged, then
      prints one JSON array with the first COUNT events.
"""
import asyncio
import json
import sys

from gql import Client, gql
from gql.transport.aiohttp import AIOHTTPTransport
from gql.transport.appsync_auth import AppSyncApiKeyAuthentication
from gql.transport.appsync_websockets import AppSyncWebsocketsTransport

FIELDS = "id name _version _deleted"
CREATE = f"mutation C($input: CreateBlogInput!) {{ createBlog(input: $input) {{ {FIELDS} }} }}"
UPDATE = f"mutation U($input: UpdateBlogInput!) {{ updateBlog(input: $input) {{ {FIELDS} }} }}"
DELETE = f"mutation D($input: DeleteBlogInput!) {{ deleteBlog(input: $input) {{ {FIELDS} }} }}"
SUBSCRIPTION = f"subscription {{ onCreateBlog {{ {FIELDS} }} }}"


async def write(http_url, auth):
    async with Client(
        transport=AIOHTTPTransport(url=http_url, auth=auth), fetch_schema_from_transport=False, execute_timeout=60
    ) as http:
        created = await http.execute(gql(CREATE), variable_values={"input": {"id": "g1", "name": "From gql"}})
        version = created["createBlog"]["_version"]
        updated = await http.execute(
            gql(UPDATE), variable_values={"input": {"id": "g1", "name": "Edited by gql", "_version": version}}
        )
        other = await http.execute(gql(CREATE), variable_values={"input": {"id": "g2", "name": "Short-lived"}})
        deleted = await http.execute(
            gql(DELETE), variable_values={"input": {"id": "g2", "_version": other["createBlog"]["_version"]}}
        )
    print(json.dumps({"created": created, "updated": updated, "deleted": deleted}, sort_keys=True))


async def listen(realtime_url, auth, count):
    events = []
    transport = AppSyncWebsocketsTransport(url=realtime_url, auth=auth)
    async with Client(transport=transport, fetch_schema_from_transport=False) as session:
        subscription = session.subscribe(gql(SUBSCRIPTION))
        iterator = subscription.__aiter__()
        first = asyncio.ensure_future(iterator.__anext__())
        # The start message goes out once the subscription is iterated: give it time to be acknowledged.
        await asyncio.sleep(1)
        print("ready", flush=True)
        events.append((await asyncio.wait_for(first, 60))["onCreateBlog"])
        while len(events) < count:
            events.append((await asyncio.wait_for(iterator.__anext__(), 60))["onCreateBlog"])
        await subscription.aclose()
    print(json.dumps(events, sort_keys=True), flush=True)


def main():
    mode = sys.argv[1]
    if mode == "write":
        http_url, host, api_key = sys.argv[2:5]
        asyncio.run(write(http_url, AppSyncApiKeyAuthentication(host=host, api_key=api_key)))
    else:
        realtime_url, host, api_key, count = sys.argv[2:6]
        asyncio.run(listen(realtime_url, AppSyncApiKeyAuthentication(host=host, api_key=api_key), int(count)))


main()
