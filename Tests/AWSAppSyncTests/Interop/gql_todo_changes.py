"""Changes todos on the local backend with gql, as another client would while an AppSync client is offline.

Usage:
  gql_todo_changes.py HTTP_URL HOST API_KEY
      Renames todo t1 to "Oat milk" and deletes todo t2, each with the _version it reads first,
      and creates todo t3 "Bread". Prints one JSON object with each answer.
"""
import asyncio
import json
import sys

from gql import Client, gql
from gql.transport.aiohttp import AIOHTTPTransport
from gql.transport.appsync_auth import AppSyncApiKeyAuthentication

FIELDS = "id name _version _deleted"
GET = f"query G($id: ID!) {{ getTodo(id: $id) {{ {FIELDS} }} }}"
CREATE = f"mutation C($input: CreateTodoInput!) {{ createTodo(input: $input) {{ {FIELDS} }} }}"
UPDATE = f"mutation U($input: UpdateTodoInput!) {{ updateTodo(input: $input) {{ {FIELDS} }} }}"
DELETE = f"mutation D($input: DeleteTodoInput!) {{ deleteTodo(input: $input) {{ {FIELDS} }} }}"


async def change(http_url, auth):
    async with Client(
        transport=AIOHTTPTransport(url=http_url, auth=auth), fetch_schema_from_transport=False, execute_timeout=60
    ) as http:
        milk = await http.execute(gql(GET), variable_values={"id": "t1"})
        updated = await http.execute(
            gql(UPDATE),
            variable_values={"input": {"id": "t1", "name": "Oat milk", "_version": milk["getTodo"]["_version"]}},
        )
        eggs = await http.execute(gql(GET), variable_values={"id": "t2"})
        deleted = await http.execute(
            gql(DELETE), variable_values={"input": {"id": "t2", "_version": eggs["getTodo"]["_version"]}}
        )
        created = await http.execute(gql(CREATE), variable_values={"input": {"id": "t3", "name": "Bread"}})
    print(json.dumps({"updated": updated, "deleted": deleted, "created": created}, sort_keys=True))


def main():
    http_url, host, api_key = sys.argv[1:4]
    asyncio.run(change(http_url, AppSyncApiKeyAuthentication(host=host, api_key=api_key)))


main()
